#!/bin/bash
# record_fp_cancel.sh - threads cancelled while they wait: four threads
# loop in epoll_wait, poll, nanosleep and a read of an idle pipe
# (tests/progs/cancel_wait), and the first cancels and joins each.  glibc
# makes those calls cancellation points by switching the thread to
# asynchronous cancellation around the syscall; through the fast path's
# stub a cancelled thread went on waiting (or timed out and waited
# again), and its joiner waited for ever: the recording never ended
# (tarantool's exit).  The stub's call of a cancellation point is now
# made in that mode too (record/fastpath/preload.c fp_cancel_point()).
# Recorded with ptrace's fast path and, where bpf loads, mixed; a
# recording that has not ended after 60 s is the fault (it ends in a
# fraction of a second).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_fastpath_lib
[ -x "$PROGS/cancel_wait" ] || fail "$PROGS/cancel_wait is not built (make tests)"
record_tmp fp-cancel
backends=ptrace
! bpf_loads "$T" || backends="ptrace mixed"
for b in $backends; do
	rc=0
	timeout -s KILL 60 "$IOTAPE" record -q --backend "$b" -o "$T/$b.iotape" -- \
		"$PROGS/cancel_wait" >"$T/$b.out" 2>&1 || rc=$?
	[ "$rc" != 137 ] || fail "$b: the recording did not end: a cancelled thread kept waiting"
	[ "$rc" = 0 ] || fail "$b: record: exit $rc: $(cat "$T/$b.out")"
	grep -q '^joined 4$' "$T/$b.out" || fail "$b: not every thread was cancelled: $(cat "$T/$b.out")"
	"$IOTAPE" check "$T/$b.iotape" >/dev/null 2>&1 || fail "$b: the trace does not check"
	echo "ok ($b): four waiting threads cancelled and joined"
done
