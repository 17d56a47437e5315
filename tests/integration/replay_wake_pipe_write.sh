#!/bin/bash
# replay_wake_pipe_write.sh - a poller woken by a pipe's writer, whose
# next write may block here (tests/progs/pipe_poller: packets of 4 and
# 65,516 bytes into a pipe read through a non-blocking end that a poller
# thread's epoll_wait wakes, as git writes pkt-lines to git-annex's
# filter process).  The bpf backend names the thread whose wake-up ended
# a call (its waker), and the replay orders the call after the waker's
# last call that ended before it.  When that call was a 65,516-byte
# write, which fitted the pipe at once when recorded but blocks here (the
# pipe's pages laid out otherwise), the epoll_wait waited for the write's
# end, the reader for the epoll_wait, and the write for the reader: a
# cycle the pipe's wait broke after 2 s with a short write (2-3
# mismatches in 6 of 8 recordings, all 4 with 1,000 packets).  A waker's
# call that acts from its entry (a pipe write) now counts as begun, not
# ended: the woken call follows the call before it.  bpf only: ptrace
# recordings name no waker.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/pipe_poller" ] || fail "$PROGS/pipe_poller is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for k in 1 2; do
	d="$T/rec$k"
	mkdir -p "$d"
	"$IOTAPE" record -q --backend bpf -o "$d/t.iotape" -- "$PROGS/pipe_poller" 1000 \
		>"$d/rec.out" 2>&1 || { cat "$d/rec.out"; fail "record $k failed"; }
	grep -q '^read 65520000$' "$d/rec.out" || { cat "$d/rec.out"; fail "record $k: the reader did not read all"; }
	"$IOTAPE" dump "$d/t.iotape" | grep -q 'epoll_wait(.*\[woken by [0-9]*\]' ||
		fail "record $k: no epoll_wait with its waker in the trace"
	for i in 1 2; do
		rm -rf "$d/r" && mkdir "$d/r"
		replay_clean "recording $k, replay $i" "$d/t.iotape" "$d/r" "$d/out" --timing afap
		grep -q "whose other end never came" "$d/out" &&
			{ cat "$d/out"; fail "recording $k, replay $i gave up a wait for a pipe's other end"; }
	done
done
echo "ok: 2 recordings of 1,000 packets, 2 replays each, 0 mismatches"
