#!/bin/bash
# replay_fork_made_fd.sh - a fork copies the descriptors another thread
# of its process made before the recorded fork: tests/progs/fork_made_fd's
# maker thread makes a pipe after 200 stats, its forker thread (woken
# through a condition variable, which no trace holds) forks a child that
# writes into the pipe.  Replayed at full speed, the fork ran while the
# maker was still at its stats, the child's copy had no pipe, and the
# maker's read met end of file (the go command's status pipes, 1 replay in
# 3 of a killed and resumed `go build`).  The fork now waits for the calls
# of the other threads that made a descriptor and returned before the
# recorded clone began (fork_fds.c rpl_fork_wait_makers()).  The forker
# closes the write end after its child: a close by another thread after
# the recorded fork may still come before the copy here (not kept).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/fork_made_fd" ] || fail "$PROGS/fork_made_fd is not built (make tests)"
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w/d"
for i in $(seq 1 200); do : >"$T/w/d/f$i"; done
(cd "$T/w" && "$IOTAPE" record -q --backend ptrace -o "$T/t.iotape" -- \
	"$PROGS/fork_made_fd" "$T/w/d" 20) >"$T/rec.out" 2>&1 ||
	{ cat "$T/rec.out"; fail "recording: exit $?"; }
grep -q '^120 bytes read$' "$T/rec.out" || fail "the program read $(cat "$T/rec.out"), not 120 bytes"
for k in 1 2 3; do
	mkdir -p "$T/r$k"
	WHY="a child's copy of the table lacked the pipe another thread made before the fork" \
		replay_clean "replay $k" "$T/t.iotape" "$T/r$k" "$T/out$k" --timing afap
	echo "ok ($k): 0 mismatches"
done
