#!/bin/bash
# replay_fd_reuse_thread.sh - a thread takes the descriptor number its
# process had just closed (tests/progs/fd_reuse_thread: the worker spins
# on a flag in memory, then opens a file as the number the main thread
# had opened, locked, statted 2,000 times and closed).  The plan counted
# a process's table shared from its second thread's first op, not from
# the thread's start: the main thread's calls on the number had no order
# against the worker's open, which, replayed at once, took the number
# while the main thread held it: its lock EBADF, or its 2,000 stats left
# out as "descriptor not replayed" with 0 mismatches (rrdtool's
# fontconfig thread, until 2026-12-07).  Recorded with ptrace and bpf
# where it loads; replayed three times each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/fd_reuse_thread" ] || fail "$PROGS/fd_reuse_thread is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	mkdir -p "$T/$b/w"
	seq 1 2000 >"$T/$b/w/a"
	seq 1 3000 >"$T/$b/w/b"
	"$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
		"$PROGS/fd_reuse_thread" "$T/$b/w/a" "$T/$b/w/b" || fail "$b: record: exit $?"
	for i in 1 2 3; do
		rm -rf "$T/$b/r" && mkdir "$T/$b/r"
		replay_clean "$b, round $i" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" \
			--timing afap -o "$T/$b/p.iotape"
		n=$("$IOTAPE" dump "$T/$b/p.iotape" | grep -cE ' (fstat|newfstatat|fcntl)\(.*\[not replayed\]')
		[ "$n" = 0 ] || fail "$b: replay $i left $n of the main thread's calls on its descriptor out"
	done
	echo "ok ($b): the worker's open came after the main thread's close, in 3 replays"
done
