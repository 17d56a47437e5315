#!/bin/bash
# record_mixed_killed.sh - under --backend mixed, a call whose thread is
# killed on its way out: tests/progs/kill_handled's children each write
# 8 bytes to a pipe, and the parent kills each on reading them (SIGTERM
# alone, and SIGUSR1, handled, with SIGTERM).  A child still leaving its
# write dies before the fast path's library writes the result down, and
# no ptrace stop reads it from the registers as tracer.c's
# killed_leaving() does: the write was recorded unfinished (a third to
# three quarters of them), not replayed, and the parent's read of its 8
# bytes found nothing in the replay.  The exit program now reads the call
# and its result from the registers, or from a handler's frame set up
# first (iotape.bpf.c left_call()).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
need_fastpath_lib
[ -x "$PROGS/kill_handled" ] || fail "$PROGS/kill_handled is not built (make tests)"
tmp_dir /tmp/iotape-mixed-killed
for how in term usr1; do
	mkdir -p "$T/$how/r"
	"$IOTAPE" record -q --backend mixed -o "$T/$how/t.iotape" -- \
		"$PROGS/kill_handled" 300 "$how" >"$T/$how/rec.out" 2>&1 ||
		{ cat "$T/$how/rec.out"; fail "$how: record: exit $?"; }
	"$IOTAPE" dump "$T/$how/t.iotape" >"$T/$how/dump"
	n=$(grep -c '^[0-9]* .* write([0-9]*, \.\.\., 8) = 8 ' "$T/$how/dump")
	u=$(grep -c '^[0-9]* .* write([0-9]*, \.\.\., 8 <unfinished' "$T/$how/dump")
	[ "$n" = 300 ] || fail "$how: $n of the 300 children's writes recorded = 8 ($u unfinished)"
	WHY="a write its reader read was not replayed" \
		replay_clean "$how" "$T/$how/t.iotape" "$T/$how/r" "$T/$how/out" --timing afap
	echo "ok ($how): 300 writes recorded = 8, replayed with 0 mismatches"
done
