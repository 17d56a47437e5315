#!/bin/bash
# replay_lock_refused.sh - a try for a lock refused while another process
# held a lock in its way, whose return the recorder saw after that
# process's unlock had returned: tests/progs/lock_flip's readers take and
# let go a read lock, its writers try for a write lock of the same bytes,
# none waiting, six of them on fewer CPUs.  A writer taken off its CPU
# between a refusal and its recorded return was ordered by that return,
# after the reader's unlock, and granted in the replay (0-7 mismatches a
# recording, in 3 of 5 recordings; sqlite3's four writers: 2 in every
# replay).  The unlock comes after the pending tries it refused now
# (deps_seen.c).  Without the fast path every lock call is two ptrace
# stops, tens of microseconds apart, and most tries overlap another
# process's lock or unlock: the plan keeps the locks its ordered calls
# hold (rpl_locks_ordered()) and pulls only what they do not answer
# (3,335-19,776 mismatches a replay in each of 40 such recordings before
# it, on a loaded machine; 0 in 20 after).  Four recordings with the fast path and
# two without, each replayed with 0 mismatches; the plan's order itself
# is held by test_replay_plan's refused_before_unlock, unlock_of_read_lock,
# read_refused_late and refused_by_lock_held.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/lock_flip" ] || fail "$PROGS/lock_flip is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for i in 1 2 3 4 5 6; do
	fp=
	[ "$i" -gt 4 ] && fp=--no-fastpath
	mkdir -p "$T/$i/w" "$T/$i/r"
	(cd "$T/$i/w" && "$IOTAPE" record -q --backend ptrace $fp -o "$T/$i/t.iotape" -- \
		"$PROGS/lock_flip" "$T/$i/w/f" 20000 6) >"$T/$i/rec.out" 2>&1 ||
		{ cat "$T/$i/rec.out"; fail "recording $i: exit $?"; }
	n=$("$IOTAPE" dump "$T/$i/t.iotape" | grep -c 'fcntl([0-9]*, F_SETLK, ')
	[ "$n" -ge 120000 ] || fail "recording $i has $n lock calls, not 120000 or more"
	WHY="a try answered otherwise than recorded: an unlock came on the other side of it" \
		replay_clean "recording $i" "$T/$i/t.iotape" "$T/$i/r" "$T/$i/out" \
		--timing afap -o "$T/$i/p.iotape"
	echo "ok ($i${fp:+, $fp}): $(grep -c refused "$T/$i/rec.out") processes, $n lock calls, 0 mismatches"
done
