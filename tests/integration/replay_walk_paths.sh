#!/bin/bash
# replay_walk_paths.sh - files another process names by their paths, in
# the order a walk listed them on the recording's filesystem, replay in
# the listing order of the filesystem under the root: 'find d -type f
# -print0 | xargs -0 cat' of a directory of 30 files listed in an order
# of its own (and a subdirectory of 3), replayed onto the same files made
# in name order.  cat must open them in the order 'find' lists them in
# the root; 'find | sort -z | xargs -0 cat' (in name order) keeps its
# recorded order.
set -u
. "$(dirname "$0")/lib.sh"
need_cmd find
need_cmd xargs
walk_tree walkp
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- \
	sh -c 'find d -type f -print0 | xargs -0 cat >x.out' &&
	"$IOTAPE" record -q -o "$T/sorted.iotape" -- \
	sh -c 'find d -type f -print0 | sort -z | xargs -0 cat >y.out') ||
	fail "recording failed"
(cd "$A" && find d -type f) | sed 's,.*/,,' >"$T/recorded"

# the root: the same files, made in name order (the tree a setup copied)
root() {
	walk_root
	(cd "$M/R$A" && find d -type f) | sed 's,.*/,,' >"$T/listed"
	cmp -s "$T/recorded" "$T/listed" && fail "the root lists the files as recorded: nothing to test"
}
# the names of d's files (and s's) cat opened in the replay, in order
opened() {
	strace -f -qq -e trace=openat2 -o "$T/st" "$IOTAPE" replay "$1" --root "$M/R" \
		--timing afap --force >"$T/out" 2>&1 || { cat "$T/out"; fail "replay of $1 failed"; }
	grep -q 'mismatches   0' "$T/out" || { cat "$T/out"; fail "replay of $1 mismatched"; }
	sed -n 's/.*openat2([0-9]*, "\([fu][0-9][0-9]*\)".*/\1/p' "$T/st" >"$T/opened"
	[ "$(wc -l <"$T/opened")" = 33 ] ||
		{ cat "$T/st"; fail "the replay of $1 opened $(wc -l <"$T/opened") of the 33 files"; }
}

root
opened "$T/t.iotape"
cmp -s "$T/opened" "$T/listed" ||
	{ paste "$T/opened" "$T/listed" "$T/recorded"; fail "cat's opens did not replay in the root's listing order"; }
grep -q 'by path      1 runs of files named by their paths .* (33 files' "$T/out" ||
	{ cat "$T/out"; fail "the files taken in the listed order are not counted"; }

root
opened "$T/sorted.iotape"
sort "$T/recorded" >"$T/byname"
(cd "$A" && find d -type f | sort) | sed 's,.*/,,' >"$T/byname"
cmp -s "$T/opened" "$T/byname" || { paste "$T/opened" "$T/byname"; fail "files in name order did not keep their order"; }
grep -q 'by path ' "$T/out" && { cat "$T/out"; fail "files in name order were moved"; }
echo "ok: files named through a pipe in the listing order replay in the root's; in name order they keep it"
