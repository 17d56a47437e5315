#!/bin/bash
# record_storm.sh - long recorder load and fault tests ('make stress'):
# 1,000 nested and 2,000 flat forks, 20 rounds of exec from a thread with
# 8 busy siblings, and 10 recorder SIGKILLs mid-run.  No hang (timeouts),
# every trace readable, counts match what the programs did.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
d=$(mktemp -d /tmp/iotape-stress.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"

for mode in nested flat; do
	n=1000; [ $mode = flat ] && n=2000
	got=$(timeout 600 "$IOTAPE" record -q -o storm.iotape -- "$PROGS/rec_storm" $n $mode) ||
		fail "storm $mode: exit $?"
	p=$("$IOTAPE" dump storm.iotape | grep -c 'storm-probe')
	[ "$p" = "$got" ] || fail "storm $mode: $p probes recorded, $got made"
	echo "storm $mode: $got processes ok"
done

for i in $(seq 1 20); do
	rm -f log
	n=$(timeout 120 "$IOTAPE" record -q -o te.iotape -- "$PROGS/rec_thread_exec" 8) ||
		fail "thread exec round $i: exit $?"
	w=$("$IOTAPE" dump te.iotape | grep -c 'write(3, \.\.\., 1) = 1')
	[ "$w" -le "$n" ] && [ "$n" -le $((w + 8)) ] || fail "thread exec round $i: $w recorded, $n done"
done
echo "thread exec: 20 rounds ok"

for i in $(seq 1 10); do
	"$IOTAPE" record -q --flush-ms 20 -o k.iotape -- "$PROGS/rec_storm" 100000 &
	rp=$!
	sleep 0.$((RANDOM % 9 + 1))
	kill -9 $rp; wait $rp 2>/dev/null
	"$IOTAPE" dump k.iotape >/dev/null 2>&1; rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "kill round $i: dump exit $rc"
done
echo "recorder SIGKILL: 10 rounds ok"
