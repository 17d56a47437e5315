#!/bin/bash
# replay_lock_close.sh - a lock let go by its holder's close, not by an
# unlock: tests/progs/lock_close's children each lock a file (flock() or
# F_SETLK), tell the parent through a pipe and close their descriptor;
# the parent tries for the lock without waiting, refused if the child's
# close had not come yet, granted if it had.  Nothing but the lock orders
# the try and the close, so the plan has to: a close, exit or exec that
# closes an open file a lock was taken through changes the file's locks
# as an unlock does (plan_fds.c held_lock()).  Before, it was no lock
# call and kept no order with them: a try refused when recorded was
# granted in the replay (its unlock then missing, the next child's lock
# waited 1 s and was refused), 45-80 mismatches of 270 lock calls a
# replay, under both backends.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/lock_letgo" ] || fail "$PROGS/lock_letgo is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for b in auto ptrace; do
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
		"$PROGS/lock_letgo" "$T/$b/w/f" 100 close) >"$T/$b/rec.out" 2>&1 ||
		{ cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	n=$("$IOTAPE" dump "$T/$b/t.iotape" | grep -cE ' (flock\([0-9]+, LOCK_|fcntl\([0-9]+, F_SETLK, )')
	[ "$n" -ge 200 ] || fail "$b: the trace has $n lock calls, not 200 or more"
	WHY="a try answered otherwise than recorded: the close that let the lock go came on the other side of it" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" -o "$T/$b/p.iotape"
	echo "ok ($b): $(cat "$T/$b/rec.out" | tail -n 1), replayed with 0 mismatches"
done
