#!/bin/bash
# replay_events.sh - `replay --events N` replays the first N events of a
# trace as if the file ended there: traces/tar.iotape replayed whole and
# its first 20,000 events (of 44,183), both --timing afap.  Each thread
# of the short replay must make the first calls its thread makes in the
# whole replay, with the same results (the profiles' calls, times left
# out), and no more than N of them; the summary and the profile's header
# say what part was replayed; a bad count is bad usage (exit 2); bench
# --events N replays the same calls.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-events.XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=$SRCDIR/traces/tar.iotape
N=20000
n=$("$IOTAPE" check "$SRC" | sed -n 's/^  events *\([0-9]*\).*/\1/p')
[ "$n" -gt $((N * 2)) ] || fail "$SRC has $n events, expected more than $((N * 2))"
mkdir "$T/r.all" "$T/r.part"
"$IOTAPE" replay "$SRC" --root "$T/r.all" --timing afap --verify -q -o "$T/all.iotape" ||
	fail "replay of the whole trace: exit $?"
"$IOTAPE" replay "$SRC" --root "$T/r.part" --timing afap --verify --events $N \
	-o "$T/part.iotape" >"$T/part.out" 2>&1 || { cat "$T/part.out"; fail "replay --events $N: exit $?"; }
grep -q "^  events       the first $N of the trace's $n (--events)$" "$T/part.out" ||
	{ cat "$T/part.out"; fail "the summary does not say which events were replayed"; }
[ "$("$IOTAPE" dump "$T/part.iotape" | sed -n 's/^# replay.events *//p')" = $N ] ||
	fail "the profile's header has no replay.events $N"
"$IOTAPE" dump "$T/all.iotape" | grep -q '^# replay.events' &&
	fail "the whole replay's profile says replay.events"
# calls per thread, in order, without times
calls() {
	"$IOTAPE" dump -P "$1" | grep -v '^#' | grep -v ' --- \| +++ ' | untimed -p |
		sort -s -n -k1,1
}
calls "$T/all.iotape" >"$T/all.calls"
calls "$T/part.iotape" >"$T/part.calls"
k=$(wc -l <"$T/part.calls")
[ "$k" -gt $((N * 9 / 10)) ] && [ "$k" -le $N ] ||
	fail "the part's profile has $k calls, expected $((N * 9 / 10)) to $N"
# the whole replay's lines of each thread, as many as the part has of it
awk 'NR == FNR { want[$1]++; next } ($1 in want) && got[$1]++ < want[$1]' \
	"$T/part.calls" "$T/all.calls" >"$T/all.first"
if ! cmp -s "$T/part.calls" "$T/all.first"; then
	diff "$T/part.calls" "$T/all.first" | head -20
	fail "the first $N events' calls or results differ from the whole replay's"
fi
# bench passes it on, to the starting tree's preparing and to the replay
mkdir "$T/d"
"$IOTAPE" bench "$SRC" --dir "$T/d" --timing afap --events $N -q -o "$T/bench" >"$T/bench.out" 2>&1 ||
	{ cat "$T/bench.out"; fail "bench --events $N: exit $?"; }
b=$(ls "$T/bench"/*.iotape | head -n 1)
[ "$("$IOTAPE" dump "$b" | sed -n 's/^# replay.events *//p')" = $N ] ||
	fail "bench's profile has no replay.events $N"
[ "$(calls "$b" | wc -l)" = "$k" ] || fail "bench's replay made $(calls "$b" | wc -l) calls, replay $k"
"$IOTAPE" bench "$SRC" --dir "$T/d" --events 0 -o "$T/bench0" >/dev/null 2>&1
[ $? = 2 ] || fail "bench --events 0: not bad usage"
for bad in 0 -5 12x ''; do
	"$IOTAPE" replay "$SRC" --root "$T/r.bad" --events "$bad" >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc = 2 ] || fail "--events '$bad': exit $rc, expected 2"
	grep -q -- '--events' "$T/bad.err" || fail "--events '$bad': the message does not name it"
done
echo "ok: the first $N of $n events replayed as in the whole replay ($k calls)"
