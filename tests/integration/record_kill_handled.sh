#!/bin/bash
# record_kill_handled.sh - a call whose thread is killed on its way out,
# with a handled signal taken at the same return: tests/progs/kill_handled's
# children each write 8 bytes to a pipe; the parent reads them and sends
# SIGUSR1 (handled) and SIGTERM at once.  A child still leaving its write
# then has the handler's frame set up before SIGTERM kills it, and its
# registers at the exit event are the handler's entry (rax 0), not the
# write's return: the write was recorded = 0 (ptrace with the fast path,
# 5-10 % of them), and the replay, writing 8, counted a mismatch.  The
# recorder now takes the result from the frame (tracer.c frame_rv()).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/kill_handled" ] || fail "$PROGS/kill_handled is not built (make tests)"
record_tmp kill-handled
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	mkdir -p "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/kill_handled" 300 \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	"$IOTAPE" dump "$T/$b/t.iotape" >"$T/$b/dump"
	n=$(grep -c '^[0-9]* .* write([0-9]*, \.\.\., 8) = 8 ' "$T/$b/dump")
	z=$(grep -c '^[0-9]* .* write([0-9]*, \.\.\., 8) = 0 ' "$T/$b/dump")
	[ "$z" = 0 ] || fail "$b: $z of the children's writes recorded = 0 (the handler's rax), $n = 8"
	[ "$n" = 300 ] || fail "$b: $n of the 300 children's writes recorded = 8"
	WHY="a write recorded with another result than it had" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): 300 writes recorded = 8, replayed with 0 mismatches"
done
