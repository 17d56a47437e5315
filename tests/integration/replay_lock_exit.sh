#!/bin/bash
# replay_lock_exit.sh - a lock let go by its holder's exit, not by an
# unlock or a close: tests/progs/lock_exit's children each lock a file
# (flock() or F_SETLK), tell the parent through a pipe and end; the
# parent tries for the lock without waiting, refused if the child's end
# had not let it go yet.  The kernel closes an ending process's files
# well after its exit_group's entry, even after its exit record's event:
# counted from its entry (plan_fds.c held_lock()), the exit came before
# tries that entered after it and that its lock refused, and those were
# granted in the replay (ptrace: 196-198 mismatches of 200 tries and
# the children's locks; bpf: 54-98).  An exit that lets a lock go for
# good counts from just before the first sign that it was free now (the
# next lock granted to another process, its reap: deps.c freed_at()),
# and a try refused that returned after it comes first (deps_seen.c).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/lock_letgo" ] || fail "$PROGS/lock_letgo is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=(ptrace)
! bpf_loads "$T" || backends+=(bpf)
for b in "${backends[@]}"; do
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
		"$PROGS/lock_letgo" "$T/$b/w/f" 100 exit) >"$T/$b/rec.out" 2>&1 ||
		{ cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	n=$("$IOTAPE" dump "$T/$b/t.iotape" | grep -cE ' (flock\(3, LOCK_EX\|LOCK_NB\)|fcntl\(3, F_SETLK, .*F_WRLCK)')
	[ "$n" -ge 100 ] || fail "$b: the trace has $n of the parent's tries, not 100"
	WHY="a try answered otherwise than recorded: the exit that let the lock go came on the other side of it" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" -o "$T/$b/p.iotape"
	echo "ok ($b): $(tail -n 1 "$T/$b/rec.out"), replayed with 0 mismatches"
done
