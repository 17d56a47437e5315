#!/bin/bash
# Think time is spent as CPU time (--think cpu, the default): a program
# that computes for 300 ms of CPU between two file calls
# (tests/progs/think_cpu) replays with its thread using about that CPU
# time (a ratio to the recorded CPU time, not a wall-clock threshold);
# with --think sleep the replay sleeps the gap and uses next to none.  A
# bad --think is refused.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/think_cpu" ] || fail "$PROGS/think_cpu is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/work"

# cpu FILE: CPU time (ns) of the think_cpu process in a trace or profile
cpu() {
	"$IOTAPE" report --json --by process "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = [x["cpu_ns"] for x in d["commands"] if x["command"] == "think_cpu"]
print(int(c[0]) if c and c[0] is not None else -1)'
}

(cd "$T/work" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PROGS/think_cpu" 300) ||
	fail "record of think_cpu failed"
rec=$(cpu "$T/t.iotape")
[ "$rec" -ge 250000000 ] || fail "the trace holds $rec ns of CPU time for think_cpu, not ~300 ms"
for how in cpu sleep; do
	rm -rf "$T/root" && mkdir "$T/root"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --think $how -o "$T/$how.iotape" \
		>"$T/$how.out" 2>&1 || fail "replay --think $how failed: $(cat "$T/$how.out")"
	got=$(cpu "$T/$how.iotape")
	[ "$got" -ge 0 ] || fail "--think $how: no CPU time of think_cpu in the profile"
	echo "--think $how: recorded $rec ns, replayed $got ns of CPU"
	if [ $how = cpu ]; then
		# the gap is the CPU time less the program's start-up and calls
		[ $((got * 2)) -ge "$rec" ] && [ "$got" -le $((rec * 2)) ] ||
			fail "--think cpu: the replay used $got ns of CPU for $rec recorded (not within 2x)"
	else
		[ $((got * 4)) -lt "$rec" ] ||
			fail "--think sleep: the replay used $got ns of CPU for $rec recorded (slept: < 1/4)"
	fi
done
# the environment gives the default; the option wins
IOTAPE_REPLAY_THINK=sleep "$IOTAPE" replay "$T/t.iotape" --root "$T/root" --force \
	--think cpu -o "$T/env.iotape" >"$T/env.out" 2>&1 || fail "replay failed: $(cat "$T/env.out")"
got=$(cpu "$T/env.iotape")
[ $((got * 2)) -ge "$rec" ] || fail "--think cpu did not override IOTAPE_REPLAY_THINK=sleep ($got ns)"
"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --force --think nap >"$T/bad.out" 2>&1
[ $? = 2 ] || fail "--think nap was not refused as bad usage"
grep -q -- '--think nap: use cpu or sleep' "$T/bad.out" || fail "--think nap: $(cat "$T/bad.out")"
echo ok
