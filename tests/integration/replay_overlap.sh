#!/bin/bash
# replay_overlap.sh - two processes' calls on one path that overlapped
# are ordered by what the look-up found (replay/deps_seen.c rpl_pull_seen()).
# tests/data/two-writers.iotape: two sqlite3 writers of one database,
# recorded; one's stat of the journal entered during the other's create
# of it, returned first, and found it.  Ordered by their ends, the stat
# came first and replayed ENOENT, in every replay (1 mismatch of 1,295
# stats).  Now the plan orders the create first (the plan says so), and
# the replays, as fast as they go and timed, have no mismatch.
set -u
. "$SRCDIR/tests/integration/lib.sh"
TR="$SRCDIR/tests/data/two-writers.iotape"
tmp_dir /tmp/iotape-overlap

mkdir "$T/plan"
IOTAPE_REPLAY_BUDGET=1 IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay "$TR" --root "$T/plan" --force \
	>"$T/plan.out" 2>&1 || { cat "$T/plan.out"; fail "planning the trace failed"; }
grep -q 'budget: 1 ops ordered before a call on their path that ended first' "$T/plan.out" ||
	{ cat "$T/plan.out"; fail "the plan did not order the create before the stat that found it"; }
for timing in afap original; do
	rm -rf "$T/root"
	mkdir "$T/root"
	replay_clean "--timing $timing" "$TR" "$T/root" "$T/out" \
		--timing $timing --verify -o "$T/p.iotape"
	echo "--timing $timing: 0 mismatches"
done
echo "ok: a stat that found a file another process was creating is replayed after the create"
