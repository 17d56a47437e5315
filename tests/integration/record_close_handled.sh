#!/bin/bash
# record_close_handled.sh - a call that returns into a signal handler that
# exits: tests/progs/close_handled's children each close their end of a
# socket pair; the parent reads the end of file and sends SIGTERM, whose
# handler exits (fdm's delivery children).  The handler often runs before
# the fast path's library writes the close's result down: under ptrace
# the close stayed unfinished (the thread's last call is the handler's
# exit_group), the replay skipped it, and the parent's read found the
# socket still open (EAGAIN for the recorded 0).  The recorder now takes
# the close's result at the signal-delivery-stop (tracer.c
# signalled_leaving()); under --backend mixed (bpf with the fast path,
# where bpf loads), from the result the BPF exit program kept of the
# thread's last fast-path call (iotape.bpf.c left_call(): 18-36 of 50
# closes unfinished in a recording before).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
[ -x "$PROGS/close_handled" ] || fail "$PROGS/close_handled is not built (make tests)"
record_tmp close-handled
! bpf_loads "$T" || BACKENDS+=(mixed)
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	[ "$b" = mixed ] && OPTS=(--backend mixed)
	mkdir -p "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/close_handled" 300 \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	"$IOTAPE" dump "$T/$b/t.iotape" >"$T/$b/dump"
	u=$(grep -c '^[0-9]* .* close([0-9]* <unfinished' "$T/$b/dump")
	[ "$u" = 0 ] || fail "$b: $u of the children's closes recorded unfinished"
	WHY="a close left unfinished, skipped by the replay" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): no close left unfinished, replayed with 0 mismatches"
done
