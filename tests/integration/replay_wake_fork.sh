#!/bin/bash
# replay_wake_fork.sh - a process woken through memory shared with its
# parent (forked, no exec: fio's job processes) is replayed after the
# call its waker made just before waking it, as a thread woken by
# another thread of its process is (replay/wakes.c).
#
# tests/progs/wake_fork: the child waits on a semaphore in a shared
# mapping; the parent sleeps 100 ms, calls access(p.after) and posts it;
# the child then calls access(c.first).  Recorded with the bpf backend
# (which sees the child's wake-up: woke_ns), replayed: c.first comes
# after p.after (the summary's "wakes" line, "gap wakes" where the trace
# names the waker), not a few ms after the
# child's start, ~100 ms before it (the CPU budget cuts the child's
# gap, a sleep).  Three recordings, each replayed.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
d=$(mktemp -d /var/tmp/iotape-wakefork.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

for i in 1 2 3; do
	"$IOTAPE" record -q --backend bpf -o t$i.iotape -- "$PROGS/wake_fork" "$d" 2>rec$i.err ||
		fail "record $i of wake_fork failed: $(tail -3 rec$i.err)"
	"$IOTAPE" dump -P t$i.iotape >dump$i.txt || fail "dump $i failed"
	grep 'c\.first' dump$i.txt | grep -q '\[woken ' ||
		fail "recording $i: c.first has no wake-up: $(grep 'c\.first' dump$i.txt)"
	mkdir root$i
	"$IOTAPE" replay --root "$d/root$i" -o p$i.iotape t$i.iotape >rpl$i.out 2>&1 ||
		fail "replay $i failed: $(tail -3 rpl$i.out)"
	grep -Eq '^  (gap )?wakes ' rpl$i.out || fail "replay $i planned no wake: $(cat rpl$i.out)"
	"$IOTAPE" dump -P p$i.iotape >pdump$i.txt || fail "dump of profile $i failed"
	after=$(awk '/p\.after/ { print $2 + 0; exit }' pdump$i.txt)
	first=$(awk '/c\.first/ { print $2 + 0; exit }' pdump$i.txt)
	awk -v a="$after" -v f="$first" 'BEGIN { exit !(a != "" && f != "" && f >= a) }' ||
		fail "replay $i: c.first at $first s, before p.after at $after s"
	echo "recording $i: c.first replayed at $first s, p.after at $after s"
done
