#!/bin/bash
# replay_lock_pipe_exit.sh - an exit that lets a lock go for good and
# closes the last write end of a pipe: tests/progs/lock_pipe_exit's
# writers each take a shared flock(), write a line to a reader and end;
# the reader sees end of file before the parent reaps the writer
# (`flock -s FILE cat x | wc -l`).  Such an exit counts from just before
# its reap for the locks' order (deps.c freed_at()), and counted so for
# its pipe as well, it came after the reader's read of end of file, which
# then waited for the end until the wait was given up: EAGAIN, 2 s each
# (ptrace: 20 of 20 reads).  Such a read is a sign of the exit's end as
# well, and the exit counts just before it now (deps_seen.c rpl_eof_of(),
# deps.c eof_lowers()).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/lock_pipe_exit" ] || fail "$PROGS/lock_pipe_exit is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=(ptrace)
! bpf_loads "$T" || backends+=(bpf)
for b in "${backends[@]}"; do
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
		"$PROGS/lock_pipe_exit" "$T/$b/w/f" 20) >"$T/$b/rec.out" 2>&1 ||
		{ cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	n=$("$IOTAPE" dump "$T/$b/t.iotape" | grep -c ' read(3, \.\.\., 256) = 0 ')
	[ "$n" -eq 20 ] || fail "$b: the trace has $n of the readers' reads of end of file, not 20"
	WHY="a read of end of file replayed before the writer's exit that ended the pipe" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" -o "$T/$b/p.iotape"
	echo "ok ($b): $(tail -n 1 "$T/$b/rec.out"), replayed with 0 mismatches"
done
