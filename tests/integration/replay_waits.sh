#!/bin/bash
# Waits are recorded and replayed: a sleep (sh -c 'sleep 0.3; true') and a
# poll that times out (tests/progs/wait_poll: 200 ms on a pipe nobody
# writes to) keep their time in the replay, where the replayer used to
# drop it (the gap held it, and the think-time budget, bounded by the CPU
# time, cut it).  The sleep is a floor of the replay's length, not a
# timing threshold of this machine.  The fast path and --no-fastpath
# record the same waits.
# A parent that polls for its child's end (tests/progs/wait_child: wait4
# WNOHANG, a 20 ms sleep, again) made as many rounds as its child ran
# when recorded (0.5 s: it waits for input fed late); the replay's child
# ends at once, and the parent's sleeps after that are not slept, where
# the replayer used to sleep every round.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/wait_poll" ] || fail "$PROGS/wait_poll is not built (make tests)"
[ -x "$PROGS/wait_child" ] || fail "$PROGS/wait_child is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the wait calls of a trace, as dump prints them, without pid, time, duration
waits() {
	"$IOTAPE" dump "$1" | grep -E ' (clock_nanosleep|nanosleep|poll|ppoll|epoll_wait)\(' |
		untimed
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

# the poll for a child's end: its rounds after the child ended here are
# not slept, and the summary says how many
(sleep 0.5; echo go) | "$IOTAPE" record -q -o "$T/poll.iotape" -- "$PROGS/wait_child" ||
	fail "wait_child: record failed"
rounds=$(waits "$T/poll.iotape" | grep -c 'clock_nanosleep(.*= 0$')
[ "$rounds" -ge 5 ] || fail "wait_child: $rounds sleeps recorded, not a poll: $(waits "$T/poll.iotape")"
rm -rf "$T/root" && mkdir "$T/root"
"$IOTAPE" replay "$T/poll.iotape" --root "$T/root" >"$T/poll.out" 2>&1 ||
	fail "wait_child: replay failed: $(cat "$T/poll.out")"
cut=$(sed -n 's/^  polls *\([0-9]*\) sleeps between wait4 WNOHANG polls.*/\1/p' "$T/poll.out")
slept=$(sed -n 's/^  waits *\([0-9]*\) sleeps.*/\1/p' "$T/poll.out")
[ -n "$cut" ] && [ "$cut" -ge 1 ] ||
	fail "wait_child: every round of the poll slept, after the child had ended: $(cat "$T/poll.out")"
[ $((cut + ${slept:-0})) -eq "$rounds" ] ||
	fail "wait_child: $rounds sleeps recorded, $cut not slept and ${slept:-0} slept: $(cat "$T/poll.out")"
echo ok
