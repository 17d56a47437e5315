#!/bin/bash
# replay_thread_fail.sh - a replay thread that cannot be started (no
# memory for its stack, no threads left: tests/shim/failthread.so makes
# every pthread_create after the first 50 fail) leaves its calls out, and
# what waits for it does not: its parent's wait4 returns, and so do waits
# for the threads it would have started.  A shell loop of 200 short
# processes (tests/bench/mk_analyze_traces --procs) then replays 48 of
# them and says that 152 threads could not be started.  The old replay
# waited for each of them until its deadlock break (200 ms): 153 waits
# broken, 31 s.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_mk_analyze_traces
need_shim failthread
T=$(mktemp -d /tmp/iotape-threadfail.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$GEN" --procs "$T/p.iotape" 200 || fail "mk_analyze_traces --procs failed"
mkdir "$T/r"
# no profile: its writer is a thread too; nor the plan's read-ahead
# (IOTAPE_READAHEAD=0): its thread would be one of the 50
LD_PRELOAD=$SHIM FAILTHREAD_AFTER=50 IOTAPE_READAHEAD=0 timeout 300 "$IOTAPE" replay "$T/p.iotape" --root "$T/r" \
	--timing afap >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "replay exit $rc: $(head -c 800 "$T/out")"
grep -q "152 recorded threads could not be started here" "$T/out" ||
	fail "no word of the threads not started: $(head -c 800 "$T/out")"
if grep -q "dependency waits broken" "$T/out"; then
	grep "dependency waits broken" "$T/out"
	fail "waits for threads that could not start were broken as deadlocks, not returned"
fi
grep -q "ops *450 replayed" "$T/out" || fail "not the 450 ops of the threads started: $(grep ops "$T/out")"
echo "ok: 48 of 200 processes replayed, the rest not started, nothing waited for them"
