#!/bin/bash
# replay_lock_waiting.sh - a lock that waited (F_SETLKW) is not pulled
# ahead of a refusal it had no part in.  tests/progs/lock_waiting: A
# holds byte 10, B waits for it, A locks byte 200, C is refused bytes
# 0-99 (A's byte 10 is in its way) and tells A, which unlocks byte 10.
# The plan took B's wait, pending at C's refusal, for the lock granted in
# C's way and put it first, so before A's unlock, which follows C: the
# wait gave up after a second (1 fcntl mismatch in every ptrace replay,
# about one in three of the others).  tdb with four writer processes
# (python3-tdb): a chain lock waited for while the others' transactions
# took the whole-file read lock piece by piece, 26 mismatches and 11 s for
# 0.17 s (ptrace), the bpf replay more than a minute.  A lock that waits
# is granted after what frees its bytes, never before a refusal that
# comes before that.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/lock_waiting" ] || fail "$PROGS/lock_waiting is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends="ptrace auto"
bpf_loads "$T" && backends="$backends bpf"
for b in $backends; do
	for round in 1 2 3; do
		d=$T/$b-$round
		mkdir -p "$d/w" "$d/r"
		(cd "$d/w" && "$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- \
			"$PROGS/lock_waiting" "$d/w/lock") ||
			fail "$b, round $round: record: exit $? (the program's locks answered wrong)"
		"$IOTAPE" dump "$d/t.iotape" | grep -E ' fcntl\([0-9]+, F_SETLKW?, ' |
			sed -E 's/^ *[0-9]+ +[0-9.]+ //; s/ <[0-9.]+>.*//' >"$d/locks"
		grep -q 'F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=10, l_len=1}) = 0$' "$d/locks" &&
			grep -q 'l_start=0, l_len=100}) = -1 EAGAIN' "$d/locks" ||
			{ cat "$d/locks"; fail "$b, round $round: the trace lacks the wait and the refusal"; }
		WHY="the wait gave up" replay_clean "$b, round $round" "$d/t.iotape" "$d/r" "$d/out"
	done
	echo "ok ($b): a wait for a lock and a refusal beside it replayed with 0 mismatches"
done
