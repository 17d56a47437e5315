#!/bin/bash
# analyze_thread_cpu.sh - a process's CPU time in `iotape report` is all
# its threads': each task's exit record holds its own (both recorders
# read it per thread), and the report added the leader's alone, so a Go
# build's compilers showed 4.0 s of their 9.2 s, and `iotape validate`
# compared that with the native runs' 10.5 s.  tests/progs/thread_cpu
# computes in 2 threads while its main thread waits, and prints their CPU
# time as they read it; the report's figure for the command must be at
# least that, with ptrace (fast path and without) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd record
need_iotape_cmd report
need_cmd python3
[ -x "$PROGS/thread_cpu" ] || fail "$PROGS/thread_cpu is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
record_backends "$T"
for m in "${BACKENDS[@]}"; do
	backend_opts $m
	own=$("$IOTAPE" record -q "${OPTS[@]}" -o $m.iotape -- "$PROGS/thread_cpu") || fail "record ($m): exit $?"
	"$IOTAPE" report --json $m.iotape >$m.json || fail "report ($m): exit $?"
	rep=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(c["cpu_ns"] for c in d["commands"] if c["command"] == "thread_cpu"))' $m.json) ||
		fail "($m) the report has no command thread_cpu"
	[ "$rep" -ge "$own" ] ||
		fail "($m) the report gives thread_cpu $rep ns of CPU time, its threads measured $own ns"
	echo "ok ($m): the threads measured $own ns of CPU time, the report gives $rep ns"
done
