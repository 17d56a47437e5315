#!/bin/bash
# replay_lock_downgrade.sh - a write lock made a read lock lets the
# readers waiting for it through (LMDB's lock file at open: the first
# process holds a write lock on byte 0 while it sets up, then makes it a
# read lock; the others, refused the write lock, wait with F_SETLKW for a
# read lock).  tests/progs/lock_downgrade: A holds the write lock; B is
# refused it and waits for a read lock; C, refused the write lock while
# B waits, tells A, which makes its lock a read lock.  The plan put B's
# wait before C's refusal (a lock granted that the refusal took for the
# one in its way, though it was not granted until the downgrade), and so
# before the downgrade, which follows the refusal; and under ptrace the
# downgrade returned after the two waits it let through, and ordered by
# ends came after them.  The waits gave up after a second (1-2 fcntl
# mismatches in every replay, every backend); python3-lmdb's three
# writers 1 in each ptrace replay.  Now a lock waits for the lock of
# another process in its way that the plan holds until that is freed,
# and a read lock granted follows the downgrade that let it through, as
# it follows an unlock.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/lock_downgrade" ] || fail "$PROGS/lock_downgrade is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends="auto ptrace"
bpf_loads "$T" && backends="$backends bpf"
for b in $backends; do
	for round in 1 2; do
		d=$T/$b-$round
		mkdir -p "$d/w" "$d/r"
		(cd "$d/w" && "$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- \
			"$PROGS/lock_downgrade" "$d/w/lock") ||
			fail "$b, round $round: record: exit $? (the program's locks answered wrong)"
		"$IOTAPE" dump "$d/t.iotape" | grep -E ' fcntl\([0-9]+, F_SETLKW?, ' |
			sed -E 's/^ *[0-9]+ +[0-9.]+ //; s/ <[0-9.]+>.*//' >"$d/locks"
		[ "$(grep -c 'F_SETLKW, {l_type=F_RDLCK.* = 0$' "$d/locks")" = 2 ] &&
			[ "$(grep -c 'F_WRLCK.* = -1 EAGAIN' "$d/locks")" = 2 ] ||
			{ cat "$d/locks"; fail "$b, round $round: the trace lacks the two refusals and two waits"; }
		WHY="a wait for the downgrade gave up" \
			replay_clean "$b, round $round" "$d/t.iotape" "$d/r" "$d/out"
	done
	echo "ok ($b): two refused write locks and two waits for the downgrade replayed with 0 mismatches"
done
