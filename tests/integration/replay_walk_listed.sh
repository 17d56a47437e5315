#!/bin/bash
# replay_walk_listed.sh - a walk the program took in its filesystem's
# listing order replays in the listing order of the filesystem under the
# root: 'tar cf' of a directory of 30 files listed in an order that is
# neither their names' nor their making's (renamed in a shuffled order,
# on tmpfs), replayed onto the same files made in name order.  The files
# the replay opens must come in the order the root lists them, and a
# subdirectory's walk moves with it; a 'tar --sort=name' of the same
# tree keeps the recorded order.
set -u
. "$(dirname "$0")/lib.sh"
walk_tree walkl
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- tar cf "$A/x.tar" d &&
	"$IOTAPE" record -q -o "$T/sorted.iotape" -- tar cf "$A/y.tar" --sort=name d) ||
	fail "recording failed"
ls -f "$A/d" | grep '^f' >"$T/recorded"

# the root: the same files, made in name order (the tree a setup copied)
root() {
	walk_root
	ls -f "$M/R$A/d" | grep '^f' >"$T/listed"
	cmp -s "$T/recorded" "$T/listed" && fail "the root lists the files as recorded: nothing to test"
}
# the names of d's files the replay opened, in order
opened() {
	strace -f -qq -e trace=openat2 -o "$T/st" "$IOTAPE" replay "$1" --root "$M/R" \
		--timing afap --force >"$T/out" 2>&1 || { cat "$T/out"; fail "replay of $1 failed"; }
	grep -q 'mismatches   0' "$T/out" || { cat "$T/out"; fail "replay of $1 mismatched"; }
	sed -n 's/.*openat2([0-9]*, "\(f[0-9][0-9]\)".*/\1/p' "$T/st" >"$T/opened"
	[ "$(wc -l <"$T/opened")" = 30 ] || { cat "$T/st"; fail "the replay of $1 opened $(wc -l <"$T/opened") of d's 30 files"; }
}

root
opened "$T/t.iotape"
cmp -s "$T/opened" "$T/listed" ||
	{ paste "$T/opened" "$T/listed" "$T/recorded"; fail "the walk did not replay in the root's listing order"; }
grep -q 'walks        1 directories walked in the order listed here (31 entries' "$T/out" ||
	{ cat "$T/out"; fail "the walk taken in the listed order is not counted"; }
grep -q 'u3' "$T/st" || fail "the subdirectory's files were not opened"

root
opened "$T/sorted.iotape"
ls "$A/d" | grep '^f' >"$T/byname"
cmp -s "$T/opened" "$T/byname" || fail "a walk in name order did not keep its order"
grep -q 'walks ' "$T/out" && { cat "$T/out"; fail "a walk in name order was moved"; }
echo "ok: a walk in the listing order replays in the root's; one in name order keeps it"
