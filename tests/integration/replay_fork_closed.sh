#!/bin/bash
# replay_fork_closed.sh - eight threads each spawn children as Go's
# os/exec does (tests/progs/spawn_status: a close-on-exec pipe, a vfork,
# the child's exec of true; the parent closes the write end and reads the
# pipe, end of file once the exec is through).  A child forked by one
# thread while another's status pipe was open holds that pipe until its
# exec.  Replayed, a fork could come before another thread's close of
# its write end, which the recorded fork came after: the child's copy
# held the end the recorded child never had, the plan ordered the child's
# exec (which closes its copy of the read end, the last) after that
# thread's read, and the read waited 2 s for an end of file that came
# only with the exec (the go command's compile -V=full children: 2
# mismatches, a replay of 0.5 s taking 2.4 s; here 3-20 mismatches a
# replay on the build before, every replay).  Now a forked child's copy
# leaves out what other threads of its parent closed before the recorded
# fork had copied the table (its FORK record).  Recorded with ptrace
# (fast path and not) and bpf where it loads, each replayed three times.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/spawn_status" ] || fail "$PROGS/spawn_status is not built (make tests)"
true_bin=$(command -v true) || skip "no true program"
[ "${true_bin#/}" != "$true_bin" ] || true_bin=/bin/true
record_tmp forkclosed

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b.iotape" -- "$PROGS/spawn_status" 8 30 "$true_bin" \
		>"$T/$b.out" 2>"$T/$b.err" || fail "$b: recording failed: $(tail -3 "$T/$b.err")"
	[ "$(cat "$T/$b.out")" = 0 ] ||
		fail "$b: $(cat "$T/$b.out") status reads saw no end of file when recorded"
	n=$("$IOTAPE" dump "$T/$b.iotape" | grep -c '^[0-9]* .*read([0-9]*, \.\.\., 8) = 0 ')
	[ "$n" = 240 ] || fail "$b: the trace holds $n status reads of end of file, not 240"
	for i in 1 2 3; do
		rm -rf "$T/root"
		mkdir "$T/root"
		WHY="a status read met EAGAIN: a child held a write end it never had" \
			replay_clean "$b, replay $i" "$T/$b.iotape" "$T/root" "$T/rout" --timing afap
		! grep -q 'waits given up' "$T/rout" ||
			fail "$b, replay $i: a pipe wait was given up: $(grep 'given up' "$T/rout")"
	done
	echo "ok ($b): 3 replays, 0 mismatches"
done
exit 0
