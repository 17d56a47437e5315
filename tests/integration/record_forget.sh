#!/bin/bash
# record_forget.sh - a set of paths met far smaller than the paths a
# program names (IOTAPE_PATH_SET_KB=64: ~3,000 paths): the program looks
# at a file and a directory, names 6,000 other paths, changes the two
# (the file grows from 100 to 5,000 bytes through a descriptor opened
# before, the directory is removed), names 30,000 more and looks at them
# again.  The set forgot them meanwhile (forgetting draws slots at
# random: with 6,000 paths after the removal the directory was still
# there in 1 of ~60 runs seen; 30,000 give its slot five times the
# draws), so their states are taken again
# (after the changes), flagged "again" and counted; the first
# state of each is the one before the program touched it, and the replay
# prepares that one (the file of 100 bytes, the directory and its file),
# and replays every call with the recorded results.  With ptrace (the
# fast path) and, where it loads, the bpf backend.  Fails on a recorder
# whose full set keeps the paths met first (no second state at all).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
d=$(mktemp -d /tmp/iotape-forget.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
LC_ALL=C; export LC_ALL

backends=ptrace
if "$IOTAPE" record -q --backend bpf -o probe.iotape -- true 2>probe.err; then
	backends="ptrace bpf"
else
	echo "bpf backend not tested: $(head -c 200 probe.err)"
fi

# states BACKEND PATH - the states of PATH, in the trace's order
states() {
	"$IOTAPE" dump -s "$1.iotape" | grep -F "state \"$2\" " | sed 's/^# *[0-9.]* state "[^"]*" //'
}

for be in $backends; do
	w=$d/$be
	mkdir -p "$w/keep" "$w/many" "$w/more"
	head -c 100 /dev/zero >"$w/f"
	: >"$w/keep/x"
	IOTAPE_PATH_SET_KB=64 timeout 300 "$IOTAPE" record --backend "$be" -o "$be.iotape" -- \
		sh -c 'exec 3<>"$1/f"; stat "$1/f" "$1/keep" "$1/keep/x" >/dev/null
		       "$2" "$1/many" 6000 6000 >/dev/null
		       head -c 5000 /dev/zero >&3 && rm -r "$1/keep"
		       "$2" "$1/more" 30000 30000 >/dev/null
		       stat "$1/f" >/dev/null; stat "$1/keep" 2>/dev/null; cat "$1/f" >/dev/null
		       true' sh "$w" "$PROGS/rec_paths" >/dev/null 2>"$be.err" ||
		fail "$be: record exit $?: $(cat "$be.err")"
	grep -q 'the set of paths met was full (64.0 KiB, .* states were taken again' "$be.err" ||
		fail "$be: no count of the states taken again: $(cat "$be.err")"
	states "$be" "$w/f" >f.states
	states "$be" "$w/keep" >keep.states
	[ "$(head -n 1 f.states | sed 's/ uid=.*//')" = "S_IFREG|0644 size=100" ] ||
		fail "$be: first state of f: $(head -n 1 f.states)"
	grep -q '^S_IFREG|0644 size=5000 .*(again)$' f.states ||
		fail "$be: f's state not taken again after it grew: $(cat f.states)"
	head -n 1 keep.states | grep -q '^S_IFDIR' || fail "$be: first state of keep: $(cat keep.states)"
	grep -qx 'absent (again)' keep.states ||
		fail "$be: keep's state not taken again after its removal: $(cat keep.states)"
	"$IOTAPE" check "$be.iotape" >/dev/null || fail "$be: check fails"

	# the replay prepares the first states, and every call finds them
	mkdir "$be.root"
	"$IOTAPE" replay -q "$be.iotape" --root "$d/$be.root" --prepare-only ||
		fail "$be: prepare exit $?"
	[ "$(stat -c %s "$d/$be.root$w/f")" = 100 ] ||
		fail "$be: prepared f: $(stat -c %s "$d/$be.root$w/f")"
	[ -d "$d/$be.root$w/keep" ] && [ -f "$d/$be.root$w/keep/x" ] ||
		fail "$be: keep or keep/x not prepared"
	rm -rf "$be.root" && mkdir "$be.root"
	"$IOTAPE" replay -q "$be.iotape" --root "$d/$be.root" --timing afap --verify ||
		fail "$be: replay --verify exit $?"
	echo "$be: f $(wc -l <f.states) states, keep $(wc -l <keep.states); $(grep -o '[0-9]* states were taken again' "$be.err")"
done

# The directories a program lists hold paths until the end, where their
# unnamed entries are taken: past a quarter of the cap (~130 directories
# here) they are taken early and forgotten.  ls -R of 400 directories of
# two files (named by no call): each file has a listed state, its size,
# and the replay's listings find them.
mkdir -p tree
mkdir tree/d{000..399}
touch tree/d{000..399}/a
printf 'xyz' | tee tree/d{000..399}/b >/dev/null
IOTAPE_PATH_SET_KB=64 timeout 300 "$IOTAPE" record -o ls.iotape -- ls -R "$d/tree" >/dev/null 2>ls.err ||
	fail "ls -R: record exit $?: $(cat ls.err)"
grep -q 'the entries of the directories listed were taken [0-9]* times before the end' ls.err ||
	fail "ls -R: the listed entries not taken early: $(cat ls.err)"
"$IOTAPE" dump -s ls.iotape | grep 'state "[^"]*/tree/d[0-9]*/[ab]"' >ls.states
[ "$(grep -c '/b" S_IFREG|0644 size=3 .*(listed)' ls.states)" = 400 ] ||
	fail "ls -R: $(grep -c '/b" S_IFREG|0644 size=3 .*(listed)' ls.states) of 400 b's listed with their size"
[ "$(grep -c '/a" S_IFREG|0644 size=0 .*(listed)' ls.states)" = 400 ] ||
	fail "ls -R: $(grep -c '/a" S_IFREG|0644 size=0 .*(listed)' ls.states) of 400 a's listed"
mkdir ls.root
"$IOTAPE" replay -q ls.iotape --root "$d/ls.root" --timing afap --verify ||
	fail "ls -R: replay --verify exit $?"
[ "$(find "$d/ls.root$d/tree" -type f | wc -l)" = 800 ] || fail "ls -R: files prepared: $(find "$d/ls.root$d/tree" -type f | wc -l)"
echo "ls -R: 800 listed entries, $(grep -o 'taken [0-9]* times before the end' ls.err)"
