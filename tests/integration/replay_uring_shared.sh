#!/bin/bash
# replay_uring_shared.sh - io_uring requests that share a user_data, and a
# ring one thread submits to while another reaps (tests/progs/uring_shared):
#  - data: a 1 KiB and a 3 KiB read in flight with user_data 0.  The plan
#    paired completions with requests by user_data, the last request took
#    both, and 100 of 200 results differed; those were not counted as
#    mismatches either, so --verify passed.  Now a completion takes the
#    request in flight with its key whose length it is, else the first;
#    an async result that differs is a mismatch.
#  - open: two IORING_OP_OPENATs in flight with user_data 0.  One
#    descriptor was taken for the other's file, and the program's pread64
#    and close of the other were left out (descriptor not replayed 20).
#  - reap: reads submitted by one thread, reaped by another.  ptrace read
#    the completion at the reaper's io_uring_enter before it kept the
#    request at the submitter's exit: "completions of no request seen",
#    and the next read with that user_data paired with the stale request.
#    Now such a completion is kept until its request is, and written
#    after it.  bpf saw none of the completions the full ring (16) put
#    on its overflow list (4,765 of 5,000 never seen complete): they are
#    taken at io_uring_cqe_overflow now.
#  - refused: fsyncs whose SQE has buf_index set, which the kernel
#    refuses (EINVAL) while preparing them (fio's io_uring engine with
#    fixedbufs).  bpf took requests at io_uring_submit_req, which these
#    never reach: only their completions, of no request; now also at
#    io_uring_req_failed.  The replay made them without the buffer index,
#    and they succeeded: it keeps it now.
# Recorded with ptrace and with bpf where it loads; replayed with --verify.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/uring_shared" ] || fail "$PROGS/uring_shared is not built (make tests)"
tmp_dir /var/tmp/iotape-test
"$PROGS/uring_shared" "$T" data 2>/dev/null || skip "io_uring is not available here"
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	for m in data open reap refused; do
		d=$T/$b/$m
		mkdir -p "$d/w" "$d/r"
		"$IOTAPE" record --bpf-ring-mb 64 --backend "$b" -o "$d/t.iotape" -- \
			"$PROGS/uring_shared" "$d/w" $m >"$d/rec.out" 2>&1 ||
			{ cat "$d/rec.out"; fail "$b, $m: record: exit $?"; }
		! grep -E " [1-9][0-9]* completions of no request| [1-9][0-9]* requests never seen complete|dropped [1-9]" \
			"$d/rec.out" || fail "$b, $m: the recording lost completions or events"
		[ $m != refused ] || [ "$("$IOTAPE" dump "$d/t.iotape" | grep -c ' io_uring submit fsync(')" = 100 ] ||
			fail "$b, $m: the trace does not hold the 100 fsyncs the kernel refused"
		rm -rf "$d/w"
		replay_clean "$b, $m" "$d/t.iotape" "$d/r" "$d/out" --timing afap --verify
		grep -qE "completions reaped \(([0-9]+) recorded\), 0 results differ" "$d/out" ||
			{ cat "$d/out"; fail "$b, $m: async results differ"; }
		! grep -q "descriptor not replayed" "$d/out" ||
			{ cat "$d/out"; fail "$b, $m: calls on a descriptor io_uring opened were left out"; }
		echo "ok ($b, $m): $(grep -o '[0-9]* of [0-9]* requests replayed' "$d/out"), 0 results differ, 0 mismatches"
	done
done
