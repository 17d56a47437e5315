#!/bin/bash
# record_ptrace_run.sh - a ptrace recording writes, per stopped call, its
# thread's CPU time since the exit stop of its previous call (run_ns,
# record/slept.c), and the replay takes the stops' CPU cost from it
# (replay/budget_calls.c), which the profile's header says: stop_run_ns=N.
#
# tests/progs/aio_ops makes 200 writes each by pwrite, io_uring and
# libaio; recorded with --no-fastpath every call stops.  The trace's
# stops cost its thread some CPU time (N > 0), less than the recording
# lasted per call.
set -u
. "$SRCDIR/tests/integration/lib.sh"
d=$(mktemp -d /var/tmp/iotape-prun.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
[ -r /proc/self/schedstat ] || skip "no /proc/PID/schedstat (a kernel without CONFIG_SCHED_INFO)"

"$IOTAPE" record -q --no-fastpath -o t.iotape -- "$PROGS/aio_ops" "$d/f" 200 >ops.out 2>rec.err ||
	fail "record of aio_ops failed: $(tail -3 rec.err)"
mkdir root
"$IOTAPE" replay -q -o p.iotape --root "$d/root" t.iotape >rpl.out 2>&1 ||
	fail "replay failed: $(tail -3 rpl.out)"
opts=$("$IOTAPE" dump p.iotape | sed -n 's/^# replay options *//p')
n=$(sed -n 's/.* stop_run_ns=\([0-9]*\) .*/\1/p' <<<"$opts")
[ -n "$n" ] || fail "the profile's header names no stop_run_ns: $opts"
[ "$n" -gt 0 ] || fail "stop_run_ns=$n"
calls=$("$IOTAPE" dump --count t.iotape | awk '$NF == "total" { print $4 }')
span=$("$IOTAPE" dump t.iotape | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ { t = $2 } END { printf "%.0f", t * 1e9 }')
[ -n "$calls" ] && [ "$calls" -gt 600 ] || fail "$calls calls recorded, not the 600 writes and more"
[ "$n" -lt $((span / calls)) ] ||
	fail "stop_run_ns=$n, more than the recording's $span ns over its $calls calls"
echo "ok: stop_run_ns=$n ($calls calls in $span ns)"
