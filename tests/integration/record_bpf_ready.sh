#!/bin/bash
# record_bpf_ready.sh - a gap's wait for a CPU is no think time.
# tests/progs/ready_threads computes alone between its first 100 calls
# (2 ms of CPU time each), then with twice as many threads as CPUs, where
# about half of every gap is a wait for a CPU.  The bpf backend counts
# that wait per gap ('[ready S]' in `iotape dump`, ready_ns), and the
# replay's CPU budget, which must cut the main thread's think time to
# its CPU time, cuts those waits first: the gaps it computed alone keep
# their think time, and its first 100 calls take as long as it computed
# (the 99 gaps between them: 198 ms or more of CPU time).  Cut alike, as
# before, every gap lost the share of the time the thread had a CPU in
# the part that shared it (~0.6: those calls replayed ~40 % fast).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/ready_threads" ] || fail "$PROGS/ready_threads is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
"$IOTAPE" record -q --backend bpf -o t.iotape -- "$PROGS/ready_threads" 2>rec.err ||
	fail "record: exit $? ($(tail -2 rec.err))"
"$IOTAPE" dump -P t.iotape | grep -E ' (newfstatat\(AT_FDCWD, |stat\()"[^"]*", \.\.\., 0\) = 0' >calls.txt
n=$(wc -l <calls.txt)
r=$(grep -c '\[ready [0-9.]*\]' calls.txt)
[ "$n" -ge 500 ] || fail "only $n stat calls in the trace"
[ $((r * 4)) -ge "$n" ] || fail "$r of $n stat calls with a wait for a CPU before them (want a quarter or more)"
main=$(head -1 calls.txt | awk '{print $1}')
mkdir r
"$IOTAPE" replay -q t.iotape --root r --force -o p.iotape >rep.out 2>&1 ||
	fail "replay: exit $? ($(tail -3 rep.out))"
span() {
	"$IOTAPE" dump -P "$1" | grep -E "^$main +[0-9.]+ (newfstatat\(AT_FDCWD, |stat\()\"[^\"]*\", \.\.\., 0\) = 0" |
		awk 'NR == 1 { a = $2 } NR == 100 { print $2 - a; exit }'
}
rec=$(span t.iotape)
rep=$(span p.iotape)
[ -n "$rec" ] && [ -n "$rep" ] || fail "no 100 stat calls of thread $main (recorded '$rec', replayed '$rep')"
awk -v s="$rep" 'BEGIN { exit !(s >= 0.8 * 0.198) }' || {
	IOTAPE_REPLAY_BUDGET=1 IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay t.iotape --root r --force 2>&1 |
		grep "tid $main:"
	fail "the main thread's first 100 calls replayed in $rep s (recorded $rec s, 0.198 s of CPU time between them): the budget cut the gaps it computed alone"
}
echo "ok: $r of $n calls waited for a CPU before them; the first 100 of thread $main: recorded $rec s, replayed $rep s (0.198 s of CPU)"
