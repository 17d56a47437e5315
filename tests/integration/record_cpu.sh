#!/bin/bash
# record_cpu.sh - --cpu-policy auto: a script that runs its programs one
# after another stays on one CPU (a stop costs ~25x less when the tracer
# and the program share a CPU), however its children end and are reaped;
# two programs running side by side spread the recording over the CPUs.
# The summary line says which.  The header has the calibrated CPU cost of
# a stop (> 0) and of a process's start.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs to spread over (this machine has $(nproc))"
d=$(mktemp -d /tmp/iotape-cpu.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"

# serial: 200 short programs from one shell, vforked (dash) and forked
# (bash), plus pipelines of two where one waits for the other's output
for sh in sh bash; do
	timeout 120 "$IOTAPE" record --backend ptrace -o t.iotape -- $sh -c \
		'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done' 2>err ||
		fail "$sh: record failed: $(cat err)"
	grep -q ', one CPU, ' err || fail "$sh: a serial script spread the CPUs: $(cat err)"
done
timeout 120 "$IOTAPE" record --backend ptrace -o t.iotape -- sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10; do ls / >/dev/null; cat /etc/hostname >/dev/null; done' 2>err ||
	fail "record failed: $(cat err)"
grep -q ', one CPU, ' err || fail "a serial script spread the CPUs: $(cat err)"

# the calibration's CPU cost of a stop and of a traced process's start,
# in the header: a stop costs the program CPU time, also when every CPU
# is busy (two loops of our own beside the recording)
if [ -r /proc/self/schedstat ]; then
	for load in 0 2; do
		pids=
		for j in $(seq $load); do (while :; do :; done) & pids="$pids $!"; done
		timeout 120 "$IOTAPE" record --backend ptrace -q -o t.iotape -- /bin/true 2>err ||
			fail "record failed: $(cat err)"
		[ -z "$pids" ] || kill $pids
		wait
		"$IOTAPE" dump t.iotape >h.txt 2>err || fail "dump failed: $(cat err)"
		stop=$(awk '$2 == "record.stop_cpu_ns" { print $3 }' h.txt)
		proc=$(awk '$2 == "record.proc_cpu_ns" { print $3 }' h.txt)
		[ -n "$stop" ] && [ "$stop" -gt 0 ] ||
			fail "$load busy loops: record.stop_cpu_ns '$stop', not > 0: $(grep '^#' h.txt)"
		[ -n "$proc" ] && [ "$proc" -ge 0 ] ||
			fail "$load busy loops: no record.proc_cpu_ns: $(grep '^#' h.txt)"
	done
fi

# side by side: two loops of programs at once
timeout 120 "$IOTAPE" record --backend ptrace -o t.iotape -- sh -c \
	'for j in 1 2; do (i=0; while [ $i -lt 100 ]; do cat /dev/null; i=$((i+1)); done) & done; wait' 2>err ||
	fail "record failed: $(cat err)"
grep -Eq ', CPUs spread at [0-9.]+ s \(programs ran side by side\), ' err ||
	fail "two loops at once stayed on one CPU: $(cat err)"
# --cpu-policy one never spreads
timeout 120 "$IOTAPE" record --backend ptrace --cpu-policy one -o t.iotape -- sh -c \
	'for j in 1 2; do (i=0; while [ $i -lt 50 ]; do cat /dev/null; i=$((i+1)); done) & done; wait' 2>err ||
	fail "record failed: $(cat err)"
grep -q 'spread' err && fail "--cpu-policy one spread: $(cat err)"
exit 0
