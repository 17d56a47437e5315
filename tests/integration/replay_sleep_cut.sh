#!/bin/bash
# replay_sleep_cut.sh - the CPU budget cuts a thread's sleeps before its
# computing.  tests/progs/sleep_compute computes 100 ms between two calls
# (a, b), then sleeps 100 ms on a condition variable (a futex with a
# timeout: no recorded call) before the next (c).  Its CPU time holds the
# computing, not the sleep, so its budget is about half its gaps; cut
# alike, the computing replayed in half its time (rustc's main thread: its
# first 158 ms replayed in 93, while its waits for its code generation
# threads took the rest of the cut).  The bpf backend times the sleep
# (waited_ns), and the budget now cuts that first: in the replay, b comes
# at least three quarters of the program's computing after a (a spin of
# CPU time takes at least as long on the clock).  Needs the bpf backend
# (its sleep times; skipped where it does not load).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/sleep_compute" ] || fail "$PROGS/sleep_compute is not built (make tests)"
tmp_dir /var/tmp/iotape-test
cd "$T"
mkdir w r
own=$(cd w && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PROGS/sleep_compute" "$T/w") ||
	fail "record: exit $?"
[ "$own" -ge 100000000 ] 2>/dev/null || fail "the program printed no CPU time of 100 ms or more: '$own'"
"$IOTAPE" dump "$T/t.iotape" >t.txt || fail "dump exit $?"
grep -Eq '"[^"]*/c".*\[waited 0\.(09|1)' t.txt ||
	{ grep '/c"' t.txt; fail "the call after the sleep has no sleep of ~100 ms timed (waited)"; }
replay_clean "" "$T/t.iotape" "$T/r" out -o "$T/p.iotape"
cat out
"$IOTAPE" dump "$T/p.iotape" >p.txt || fail "dump of the profile exit $?"
a=$(awk '/"[^"]*\/a"/ { print $2; exit }' p.txt)
b=$(awk '/"[^"]*\/b"/ { print $2; exit }' p.txt)
awk -v a="$a" -v b="$b" -v c="$own" 'BEGIN { exit !(a != "" && b != "" && (b - a) * 1e9 >= c * 3 / 4) }' ||
	fail "replayed b came $b s, a $a s: less than three quarters of the program's $own ns of computing between them"
echo "ok: the program computed $own ns between a and b; replayed a at $a s, b at $b s"
