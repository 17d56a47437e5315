#!/bin/bash
# replay_long.sh - a long trace replays its first part as that part alone
# does.  tests/bench/longtrace repeats traces/tar.iotape once (the first
# part) and three times (the long trace: each repetition in its own
# subtree, with its own pids); both are replayed --timing afap.  Every
# thread of the first part must make the same calls with the same results
# in both replays (the profiles' calls, times left out), and the first
# repetition's subtree must end up the same (types, modes, sizes, link
# targets).  The profile, merged from the threads' outcomes after the
# run, has its calls in the order they started.  And memory per event,
# the long replay's over the short one's, over the events it has more:
# (1) the plan's, its anonymous pages after each planning step
# (IOTAPE_REPLAY_MEM; the largest, after the threads step), at most 166
# bytes per event more: the plan still holds every event, 136 bytes
# each, its outcome kept in a file: 159 measured, the same in every run,
# 162 since 2026-12-06 (167 with an op of 144 bytes; 164 with a path
# state of 144 bytes, not 120), 165 since 2026-12-07, late evening
# (seen.c's table of each file's size, mode and names as the plan
# orders them, and the open files' positions, freed after the threads
# step); (2) the whole replay's peak resident
# memory, at most 181 bytes per event more: 157-170 measured in 30 runs
# (171-186 with the threads that ended held to the end of the run, their
# stacks mapped; 183-187 with the ops sorted through a side array of 32
# bytes an op and a word per op kept aside while the threads were
# planned, 210-217 with the outcome in the op, 245-248 with ops of 192
# and a late time per op sorted at the end).  Both replays read the trace
# without a thread decoding ahead (IOTAPE_READAHEAD=0): the chunks it
# decoded are let go after the read, but its freed buffers raise glibc's
# mmap threshold, and the heap then holds ~0.8 MiB more of the longer
# plan (a constant, not per event: 9 bytes an event at these lengths);
# the plan made with it is checked to be the same.  The peak also holds the
# run's thread stacks and glibc's arenas (up to 8 per CPU, made as
# threads happen to overlap) and the program's and the trace's mapped
# pages: ~1 MiB that differs from run to run, 12 bytes an event here,
# which the plan's figure leaves out.  A streaming plan would hold both
# flat.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_longtrace
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (tools/deps.sh check installs it)"
T=$(mktemp -d /var/tmp/iotape-long.XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=$SRCDIR/traces/tar.iotape
"$GEN" -r 1 "$SRC" "$T/one.iotape" || fail "longtrace -r 1"
"$GEN" -r 3 "$SRC" "$T/three.iotape" || fail "longtrace -r 3"
n1=$("$IOTAPE" check "$T/one.iotape" | sed -n 's/^  events *\([0-9]*\).*/\1/p')
n3=$("$IOTAPE" check "$T/three.iotape" | sed -n 's/^  events *\([0-9]*\).*/\1/p')
[ "$n3" -gt $((n1 * 2)) ] || fail "the long trace has $n3 events, the first part $n1"
for t in one three; do
	mkdir "$T/r.$t"
	IOTAPE_READAHEAD=0 IOTAPE_REPLAY_MEM=1 /usr/bin/time -o "$T/$t.rss" -f '%M' \
		"$IOTAPE" replay "$T/$t.iotape" \
		--root "$T/r.$t" --timing afap --verify -q -o "$T/$t.prof.iotape" 2>"$T/$t.err" ||
		fail "replay of $t: exit $?: $(head -c 500 "$T/$t.err")"
done
# the plan's anonymous memory at its largest, after one of its steps
plan_kib() {
	sed -n 's/.*memory: \(read\|threads\|think\|plan\): anon \([0-9]*\) KiB.*/\2/p' "$1" |
		sort -n | tail -n 1
}
plan1=$(plan_kib "$T/one.err") plan3=$(plan_kib "$T/three.err")
[ -n "$plan1" ] && [ -n "$plan3" ] || fail "no memory lines (IOTAPE_REPLAY_MEM): $(head -c 500 "$T/three.err")"
plan_ev=$(( (plan3 - plan1) * 1024 / (n3 - n1) ))
rss1=$(tail -n 1 "$T/one.rss") rss3=$(tail -n 1 "$T/three.rss")
per_ev=$(( (rss3 - rss1) * 1024 / (n3 - n1) ))
echo "plan: $plan1 KiB for $n1 events, $plan3 KiB for $n3: $plan_ev bytes per event more"
echo "peak RSS: $rss1 KiB for $n1 events, $rss3 KiB for $n3: $per_ev bytes per event more"
# sanitizers' shadow memory and quarantine are no measure of the plan's
case ${BUILD:-build} in
*san*) ;;
*)	[ "$plan_ev" -le 166 ] || fail "the plan took $plan_ev bytes per event more (166 at most)"
	[ "$per_ev" -le 181 ] || fail "the replay took $per_ev bytes per event more at its peak (181 at most)" ;;
esac
# the plan of the long trace read with a thread decoding ahead (the
# default) is the plan read without
plan_hash() {
	IOTAPE_READAHEAD=$1 IOTAPE_REPLAY_BUDGET=1 IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay \
		"$T/three.iotape" --root "$T/r.plan" --force 2>&1 | sed -n 's/.*plan of .*hash \([0-9a-f]*\).*/\1/p'
}
mkdir "$T/r.plan"
h0=$(plan_hash 0) h2=$(plan_hash 2)
[ -n "$h0" ] || fail "no plan hash (IOTAPE_REPLAY_BUDGET)"
[ "$h0" = "$h2" ] || fail "the plan read with a thread decoding ahead differs: $h2, without: $h0"
# the calls (not the process records) never start earlier than the one before
back=$("$IOTAPE" dump "$T/three.prof.iotape" | grep -v '^#' | grep -v ' --- \| +++ ' |
	awk '{ if ($2 + 0 < prev) n++; prev = $2 + 0 } END { print n + 0 }')
[ "$back" = 0 ] || fail "$back calls of the long profile start before the call ahead of them"
# calls per thread, in order, without times
calls() {
	"$IOTAPE" dump -P "$1" | grep -v '^#' | untimed -p | sort -s -n -k1,1
}
calls "$T/one.prof.iotape" >"$T/one.calls"
calls "$T/three.prof.iotape" >"$T/three.calls"
# the long replay's lines of the first part's threads, as many per thread
# as the first part has (the driver, pid 100, goes on to the next ones)
awk 'NR == FNR { want[$1]++; next } ($1 in want) && got[$1]++ < want[$1]' \
	"$T/one.calls" "$T/three.calls" >"$T/three.first"
[ "$(wc -l <"$T/one.calls")" -gt 1000 ] || fail "first part replayed too little"
if ! cmp -s "$T/one.calls" "$T/three.first"; then
	diff "$T/one.calls" "$T/three.first" | head -20
	fail "the first part's calls or results differ in the long replay"
fi
tree() { (cd "$1" && find iotape-rep.0 -printf '%y %m %s %p %l\n' | sort); }
tree "$T/r.one" >"$T/one.tree"
tree "$T/r.three" >"$T/three.tree"
[ "$(wc -l <"$T/one.tree")" -gt 100 ] || fail "first part left too small a tree"
if ! cmp -s "$T/one.tree" "$T/three.tree"; then
	diff "$T/one.tree" "$T/three.tree" | head -20
	fail "the first repetition's tree differs in the long replay"
fi
[ -d "$T/r.three/iotape-rep.2" ] || fail "the third repetition left no tree"
echo "ok: $n1 of $n3 events replayed alike"
