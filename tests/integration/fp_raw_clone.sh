#!/bin/bash
# fp_raw_clone.sh - a child of the raw clone syscall (tests/progs/raw_clone:
# syscall(SYS_clone, SIGCHLD), as bubblewrap makes its sandbox's first
# process) runs no atfork handler.  Under --backend ptrace the fast path's
# library kept its parent's ring slot in it, and every call it made
# in-process was logged under its parent's tid: the child's read of the
# eventfd its parent writes, its opens and writes of child0..child4.  The
# replay ran them in the parent's thread, the read before the write it
# waits for: 2 s, EAGAIN (1 mismatch in 2 of 5 recordings; the tids were
# wrong in all).  Now a page the kernel wipes in such a child
# (MADV_WIPEONFORK) tells the library that it is a new process.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_fastpath_lib
tmp_dir /tmp/iotape-raw_clone
for i in 1 2 3; do
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w" "$T/root"
	"$IOTAPE" record -q --backend ptrace -o "$T/t.iotape" -- "$PROGS/raw_clone" "$T/w" 2>"$T/err" ||
		fail "recording raw_clone failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
	child=$(awk '/--- new process, parent/ { print $1; exit }' "$T/dump")
	[ -n "$child" ] || fail "the trace holds no child process"
	for f in child0 child4; do
		tid=$(grep -F "\"$T/w/$f\"" "$T/dump" | awk '{ print $1; exit }')
		[ "$tid" = "$child" ] ||
			fail "round $i: $f was opened by tid ${tid:-none} in the trace, not by the child $child"
	done
	rm -rf "$T/w"
	replay_clean "round $i" "$T/t.iotape" "$T/root" "$T/rout" --timing afap
done
exit 0
