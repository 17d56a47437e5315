#!/bin/bash
# record_bpf_wake.sh - `record --backend bpf` writes, per call, when its
# thread was last woken from a voluntary sleep in the gap before it and
# how long it slept so (woke_ns, waited_ns), and the replay takes the
# thread's waker from that wake-up, not from the call.
#
# tests/progs/wake_late: a thread waits on a semaphore while the main
# thread sleeps 100 ms; the main thread calls access(m.after), posts the
# semaphore and keeps the thread's CPU 5 ms (SCHED_FIFO, both on one
# CPU).  The thread's access(t.first), ~5 ms after m.after returned,
# carries '[woken S before]' with S >= 4 ms and '[waited W]' with W >=
# 90 ms in `iotape dump`; replayed, t.first comes after m.after (a wake:
# the summary's "wakes" line, "gap wakes" where the trace names the
# waker), not the CPU budget's few ms after the
# thread's start, ~100 ms before it.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
d=$(mktemp -d /var/tmp/iotape-wake.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

"$IOTAPE" record -q --backend bpf -o t.iotape -- "$PROGS/wake_late" "$d" 2>rec.err
rc=$?
[ $rc = 2 ] && skip "wake_late cannot hold its CPU: $(cat rec.err)"
[ $rc = 0 ] || fail "record of wake_late failed ($rc): $(tail -3 rec.err)"
"$IOTAPE" dump -P t.iotape >dump.txt || fail "dump failed"
line=$(grep 't.first' dump.txt) || fail "no t.first in the trace: $(cat dump.txt)"
woke=$(sed -n 's/.*\[woken \([0-9.]*\) before\].*/\1/p' <<<"$line")
waited=$(sed -n 's/.*\[waited \([0-9.]*\)\].*/\1/p' <<<"$line")
[ -n "$woke" ] && [ -n "$waited" ] || fail "t.first has no wake-up: $line"
awk -v w="$woke" -v s="$waited" 'BEGIN { exit !(w >= 0.004 && s >= 0.09) }' ||
	fail "t.first woken $woke s before, after $waited s asleep (want >= 0.004 and >= 0.09): $line"
mkdir root
"$IOTAPE" replay --root "$d/root" -o p.iotape t.iotape >rpl.out 2>&1 ||
	fail "replay failed: $(tail -3 rpl.out)"
grep -Eq '^  (gap )?wakes ' rpl.out || fail "the replay planned no wake: $(cat rpl.out)"
"$IOTAPE" dump -P p.iotape >pdump.txt || fail "dump of the profile failed"
after=$(awk '/m\.after/ { print $2 + 0; exit }' pdump.txt)
first=$(awk '/t\.first/ { print $2 + 0; exit }' pdump.txt)
awk -v a="$after" -v f="$first" 'BEGIN { exit !(a != "" && f != "" && f >= a) }' ||
	fail "t.first replayed at $first s, before m.after at $after s"
echo "ok: woken $woke s before t.first after $waited s asleep; replayed at $first s, m.after at $after s"
