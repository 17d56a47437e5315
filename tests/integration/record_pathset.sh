#!/bin/bash
# record_pathset.sh - the set of paths met, at its cap: tests/progs/
# rec_paths names 60,000 paths twice under --path-set-mb 1 (~49,000 kept);
# every path named still has its state, the first one written is the
# state before the program touched it (absent, or the file it created
# after), every later one is flagged "again", the summary counts the
# repeats, and without the cap each path has exactly one state.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
d=$(mktemp -d /tmp/iotape-pset.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
LC_ALL=C; export LC_ALL
n=60000
# the bpf backend (the default where it loads): a ring that holds every
# record of the run (~20 MB), so that a recorder slowed down (the
# sanitizers: 38,587 of 122,000 records lost in the default 8 MiB) loses
# none, and the paths' states are what is tested here
# (ptrace ignores it)
ring="--bpf-ring-mb 64"

# states "PATH TYPE" of the files named, first state of each path first
states() {
	"$IOTAPE" dump -s "$1" | sed -n 's/^# *[0-9.]* state "\([^"]*name-of-file-[0-9]*\)" \([^ ]*\).*/\1 \2/p'
}

mkdir capped
timeout 120 "$IOTAPE" record $ring --path-set-mb 1 -o capped.iotape -- "$PROGS/rec_paths" "$d/capped" \
	$((2 * n)) $n >/dev/null 2>capped.err || fail "capped record exit $?: $(cat capped.err)"
grep -q 'the set of paths met was full (1.0 MiB, .* states were taken again' capped.err ||
	fail "no warning of the full set: $(cat capped.err)"
states capped.iotape >capped.states
[ "$(cut -d' ' -f1 capped.states | sort -u | wc -l)" = $n ] ||
	fail "capped: $(cut -d' ' -f1 capped.states | sort -u | wc -l) of $n paths have a state"
[ "$(wc -l <capped.states)" -gt $n ] || fail "capped: no path's state taken again"
# the first state of each path: absent (the program stat()s before it creates)
first=$(awk '!seen[$1]++ { print $2 }' capped.states | sort | uniq -c | awk '{ print $2 "=" $1 }' | tr '\n' ' ')
[ "$first" = "absent=$n " ] || fail "capped: first states: $first"
# a path's later states are flagged; its first, flagged only by the
# filter's false positives (rare)
"$IOTAPE" dump -s capped.iotape | grep 'state "[^"]*name-of-file-' >capped.lines
again=$(awk '{ p = $4 } seen[p]++ && !/\(again\)$/ { n++ } END { print n + 0 }' capped.lines)
[ "$again" = 0 ] || fail "capped: $again later states not flagged again"
falsepos=$(awk '{ p = $4 } !seen[p]++ && /\(again\)$/ { n++ } END { print n + 0 }' capped.lines)
[ "$falsepos" -lt $((n / 100)) ] || fail "capped: $falsepos first states flagged again"
"$IOTAPE" check capped.iotape >/dev/null || fail "capped: check fails"

mkdir free
timeout 120 "$IOTAPE" record $ring -o free.iotape -- "$PROGS/rec_paths" "$d/free" $((2 * n)) $n \
	>/dev/null 2>free.err || fail "record exit $?: $(cat free.err)"
grep -q 'set of paths met was full' free.err && fail "uncapped: the set was full"
states free.iotape >free.states
[ "$(wc -l <free.states)" = $n ] || fail "uncapped: $(wc -l <free.states) states for $n paths"
echo "cap: $(wc -l <capped.states) states for $n paths (first: all absent); no cap: $n"
