#!/bin/bash
# replay_quiet_worker.sh - a worker thread whose computing falls in one
# gap: tests/progs/quiet_worker hands its worker 4 rounds of work through
# a condition variable (futexes, which are not recorded); the worker's
# only recorded call is its exit, and the gap before it held all its
# computing.  The bpf backend names that gap's waker (the main thread's
# last broadcast) and times its last sleep; the gap then kept only the
# time from that wake-up to the exit, microseconds, and the replay spent
# none of the worker's computing (zstd -T2's compress phase replayed 35 %
# fast).  Now the part of the gap before its last sleep counts too, within
# the thread's CPU budget: the plan's think time must hold at least half
# of the CPU time the worker measured itself.  Needs the bpf backend
# (its sleep times; skipped where it does not load).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/quiet_worker" ] || fail "$PROGS/quiet_worker is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
own=$("$IOTAPE" record -q --backend bpf -o q.iotape -- "$PROGS/quiet_worker" "$T/f") || fail "record: exit $?"
[ "$own" -gt 0 ] 2>/dev/null || fail "the program printed no CPU time: '$own'"
mkdir r
IOTAPE_REPLAY_BUDGET=1 IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay q.iotape --root r --force >out 2>&1 ||
	{ cat out; fail "replay (plan only) failed"; }
think=$(sed -n 's/.* think \([0-9.]*\) ms.*/\1/p' out | tail -1)
[ -n "$think" ] || { cat out; fail "IOTAPE_REPLAY_BUDGET printed no think time"; }
awk -v t="$think" -v c="$own" 'BEGIN { exit !(t * 1e6 >= c / 2) }' ||
	{ grep budget out; fail "the plan's think time is $think ms; the worker computed $own ns"; }
echo "ok: the worker computed $own ns; the plan's think time is $think ms"
