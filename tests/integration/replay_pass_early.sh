#!/bin/bash
# replay_pass_early.sh - a pipe's read end passed to a server that waits
# in recvmsg before the sendmsg comes (tests/progs/pass_early), as
# Python's forkserver gets a pool worker's task queue: the parent writes
# a message into the pipe (4 bytes of length and 100), sends the read end
# to its server, reads the message back after a little work, and writes
# a second one (4 and 20), which the server's forked worker reads.  The
# plan, made in entry order, met the recvmsg before the sendmsg and made
# the received number a file of its own: the worker's reads kept no
# order on the pipe and took the first 24 bytes of the parent's message
# as soon as it ran; the parent's read of 100 got 76 and waited for the
# rest, which only its own next write brings, until the wait was given
# up (1 mismatch in every replay; a multiprocessing job with the spawn
# and forkserver methods lost 8 or 16 bytes of a task so).  Now such a
# recvmsg waits in the plan for a sendmsg into its way that began before
# it returned, and gets the sender's entries.  Recorded with ptrace and
# with bpf where it loads; replayed three times each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/pass_early" ] || fail "$PROGS/pass_early is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	d="$T/$b"
	mkdir -p "$d/w"
	(cd "$d/w" && "$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- "$PROGS/pass_early" "$d/w") \
		>"$d/rec.out" 2>&1 || { cat "$d/rec.out"; fail "$b: record failed"; }
	"$IOTAPE" dump "$d/t.iotape" >"$d/t.txt" || fail "$b: dump exit $?"
	# the server's recvmsg entered before the parent's sendmsg
	rt=$(sed -n 's/^[0-9]* *\([0-9.]*\) recvmsg([0-9]*, {SCM_RIGHTS \[[0-9]*\]}, 0) = 1 .*/\1/p' "$d/t.txt")
	st=$(sed -n 's/^[0-9]* *\([0-9.]*\) sendmsg([0-9]*, {SCM_RIGHTS \[[0-9]*\]}, 0) = 1 .*/\1/p' "$d/t.txt")
	[ -n "$rt" ] && [ -n "$st" ] || { grep msg "$d/t.txt"; fail "$b: no sendmsg and recvmsg of one descriptor in the trace"; }
	awk -v r="$rt" -v s="$st" 'BEGIN { exit !(r < s) }' ||
		fail "$b: the recvmsg (at $rt) did not begin before the sendmsg (at $st)"
	grep -qE ' read\([0-9]+, \.\.\., 100\) = 100 ' "$d/t.txt" &&
		grep -qE ' read\([0-9]+, \.\.\., 20\) = 20 ' "$d/t.txt" ||
		fail "$b: the parent's and the worker's reads are not in the trace"
	rm -rf "$d/w"
	for i in 1 2 3; do
		rm -rf "$d/r" && mkdir "$d/r"
		replay_clean "$b, round $i" "$d/t.iotape" "$d/r" "$d/out" --timing afap
		grep -q "whose other end never came" "$d/out" &&
			{ cat "$d/out"; fail "$b: replay $i gave up a wait for a pipe's other end"; }
	done
	echo "ok ($b): recvmsg at $rt before sendmsg at $st; 3 replays, 0 mismatches"
done
