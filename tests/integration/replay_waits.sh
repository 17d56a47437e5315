#!/bin/bash
# Waits are recorded and replayed: a sleep (sh -c 'sleep 0.3; true') and a
# poll that times out (tests/progs/wait_poll: 200 ms on a pipe nobody
# writes to) keep their time in the replay, where the replayer used to
# drop it (the gap held it, and the think-time budget, bounded by the CPU
# time, cut it).  The sleep is a floor of the replay's length, not a
# timing threshold of this machine.  The fast path and --no-fastpath
# record the same waits.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/wait_poll" ] || fail "$PROGS/wait_poll is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the wait calls of a trace, as dump prints them, without pid, time, duration
waits() {
	"$IOTAPE" dump "$1" | grep -E ' (clock_nanosleep|nanosleep|poll|ppoll|epoll_wait)\(' |
		sed -E -e 's/^[0-9]+ +[0-9.]+ //' -e 's/ <[0-9.]+>$//'
}

# replay NAME: elapsed ns of a replay of $T/NAME.iotape; checks the summary
replay() {
	local t0 t1
	rm -rf "$T/root" && mkdir "$T/root"
	t0=$(date +%s%N)
	"$IOTAPE" replay "$T/$1.iotape" --root "$T/root" >"$T/$1.out" 2>&1 ||
		fail "$1: replay failed: $(cat "$T/$1.out")"
	t1=$(date +%s%N)
	grep -Eq '^  waits +1 sleeps, polls or selects that timed out slept as recorded \([0-9.]+ ms in all\), 0 that' "$T/$1.out" ||
		fail "$1: the summary does not say the wait slept: $(cat "$T/$1.out")"
	echo $((t1 - t0))
}

# COMMAND, and the least its replay must take: what it waited (300 ms,
# 200 ms), less a margin for the clocks, not for the machine's speed
i=0
for c in "250000000 sh -c 'sleep 0.3; true'" "190000000 $PROGS/wait_poll"; do
	i=$((i + 1))
	floor=${c%% *} cmd=${c#* }
	for m in fast slow; do
		args=()
		[ $m = slow ] && args=(--no-fastpath)
		eval "\"\$IOTAPE\" record -q \"\${args[@]}\" -o \"\$T/$i.$m.iotape\" -- $cmd" ||
			fail "$cmd: record ($m) failed"
		waits "$T/$i.$m.iotape" >"$T/$i.$m.waits"
		[ -s "$T/$i.$m.waits" ] || fail "$cmd ($m): no wait recorded: $("$IOTAPE" dump "$T/$i.$m.iotape")"
	done
	diff -u "$T/$i.fast.waits" "$T/$i.slow.waits" ||
		fail "$cmd: the fast path and --no-fastpath record different waits"
	grep -Eq '= 0$' "$T/$i.fast.waits" || fail "$cmd: the wait did not time out: $(cat "$T/$i.fast.waits")"
	for m in fast slow; do
		ns=$(replay "$i.$m") || exit 1
		[ "$ns" -ge "$floor" ] ||
			fail "$cmd ($m): the replay took $ns ns, less than the wait it holds"
	done
	"$IOTAPE" report "$T/$i.fast.iotape" | grep -Eq '^ *wait ' ||
		fail "$cmd: report has no wait class: $("$IOTAPE" report "$T/$i.fast.iotape")"
done
echo ok
