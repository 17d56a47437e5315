#!/bin/bash
# replay_fork_close_after.sh - a close by another thread after the
# recorded fork leaves the child its copy: tests/progs/fork_close_after's
# forker thread forks a child that writes into a pipe, and the main
# thread (woken through a condition variable, which no trace holds)
# closes the write end once the fork is made, then reads to the end.
# Replayed at full speed, the close came before the child's copy of the
# table, the child's dup2 and write were not replayed and the read met
# end of file (1 mismatch a replay; Go's os/exec with an io.Pipe for a
# child's stdin, bpf: 9-22).  A close now waits for the first op of the
# children the process's other threads forked before it (fork_fds.c
# rpl_fork_wait_copies()).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/fork_close_after" ] || fail "$PROGS/fork_close_after is not built (make tests)"
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w"
(cd "$T/w" && "$IOTAPE" record -q --backend ptrace -o "$T/t.iotape" -- \
	"$PROGS/fork_close_after" 40) >"$T/rec.out" 2>&1 ||
	{ cat "$T/rec.out"; fail "recording: exit $?"; }
grep -q '^240 bytes read$' "$T/rec.out" || fail "the program read $(cat "$T/rec.out"), not 240 bytes"
for k in 1 2 3; do
	mkdir -p "$T/r$k"
	WHY="another thread's close after the recorded fork came before the child's copy of the table" \
		replay_clean "replay $k" "$T/t.iotape" "$T/r$k" "$T/out$k" --timing afap
	echo "ok ($k): 0 mismatches"
done
