#!/bin/bash
# replay_idle_worker.sh - a worker thread that makes no recorded call at
# all (xz -T2 compressing one block): tests/progs/idle_worker's worker
# computes 150 ms of its own CPU time, wakes the main thread through a
# condition variable (a futex, not recorded) and waits until the
# process's exit ends it.  The trace holds its EXIT record (its CPU time)
# and no op, so the replay makes no thread of it; the main thread's gap,
# a sleep the bpf backend names the worker as the waker of, was cut to
# the main thread's own CPU time (xz's compress phase replayed in 6.7 ms
# of 63).  Now such a gap keeps its sleep up to the waker's CPU time, and
# the main thread spins it: the plan says so ("idle wakes"), and in the
# replay m.after comes at least half the worker's CPU time after
# m.before (a spin of CPU time takes at least as long on the clock).
# Needs the bpf backend (gap wakers; skipped where it does not load).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/idle_worker" ] || fail "$PROGS/idle_worker is not built (make tests)"
tmp_dir /var/tmp/iotape-test
cd "$T"
mkdir w r
own=$(cd w && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PROGS/idle_worker" "$T/w") ||
	fail "record: exit $?"
[ "$own" -ge 150000000 ] 2>/dev/null || fail "the worker printed no CPU time of 150 ms or more: '$own'"
"$IOTAPE" dump "$T/t.iotape" >t.txt || fail "dump exit $?"
# the worker: the thread the main thread made, with no call of its own
wk=$(sed -n 's/^\([0-9]*\) .*--- new thread of .*/\1/p' t.txt | head -1)
[ -n "$wk" ] || { cat t.txt; fail "no new thread in the trace"; }
if awk -v w="$wk" '$1 == w && $3 !~ /^(---|\+\+\+)/ { f = 1 } END { exit !f }' t.txt; then
	grep "^$wk " t.txt
	fail "the worker $wk made recorded calls: this test needs one that makes none"
fi
grep -q "m\.after.*\[gap woken by $wk\]" t.txt ||
	{ grep m.after t.txt; fail "m.after does not name the worker $wk as its gap's waker"; }
replay_clean "" "$T/t.iotape" "$T/r" out -o "$T/p.iotape"
cat out
kept=$(sed -n 's/^  idle wakes   1 gaps .* CPU time: \([0-9.]*\) ms more think time.*/\1/p' out)
[ -n "$kept" ] || fail "the summary does not say that one gap kept the worker's computing ('idle wakes')"
awk -v k="$kept" -v c="$own" 'BEGIN { exit !(k * 1e6 >= c / 2) }' ||
	fail "the gap kept $kept ms of the worker's $own ns"
"$IOTAPE" dump "$T/p.iotape" >p.txt || fail "dump of the profile exit $?"
b=$(awk '/m\.before/ { print $2; exit }' p.txt)
a=$(awk '/m\.after/ { print $2; exit }' p.txt)
awk -v b="$b" -v a="$a" -v c="$own" 'BEGIN { exit !(b != "" && a != "" && (a - b) * 1e9 >= c / 2) }' ||
	fail "replayed m.after came $a s, m.before $b s: less than half the worker's $own ns between them"
echo "ok: the worker computed $own ns; the gap kept $kept ms; replayed m.before at $b s, m.after at $a s"
