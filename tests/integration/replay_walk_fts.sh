#!/bin/bash
# replay_walk_fts.sh - walks that fts makes (rm -r, du) and a walk whose
# writes go into a pipe (tar c | cat) replay in the listing order of the
# filesystem under the root, as replay_walk_listed.sh's tar does: a
# directory of 30 files listed in an order of their own (renamed in a
# shuffled order, on tmpfs), replayed onto the same files made in name
# order.  fts copies the directory's descriptor, closes the one it read
# and names the entries through the copy; tar's writes into the pipe are
# waited for by its reader and stay in their places (where a write in
# the walk is one the reader does not wait for, the walk keeps the
# recorded order: replay_walk_pipe_full.sh).  The files the
# replay removes or opens must come in the order the root lists them.
set -u
. "$(dirname "$0")/lib.sh"
walk_tree walkf
ls -f "$A/d" | grep '^f' >"$T/recorded"
cd "$A" || fail "no $A"
"$IOTAPE" record -q -o "$T/pipe.iotape" -- sh -c 'tar c d | cat >/dev/null' ||
	fail "recording tar c | cat failed"
cp -a d e
"$IOTAPE" record -q -o "$T/rm.iotape" -- rm -r e || fail "recording rm -r failed"

# the root: the same files, made in name order (the tree a setup copied)
root() {
	walk_root d e
	ls -f "$M/R$A/d" | grep '^f' >"$T/listed"
	cmp -s "$T/recorded" "$T/listed" && fail "the root lists the files as recorded: nothing to test"
}
# the names of the top directory's files the replay of $1 took by the
# calls $2, in order
taken() {
	IOTAPE_REPLAY_WALKS=1 strace -f -qq -e trace="$2" -o "$T/st" "$IOTAPE" replay "$1" --root "$M/R" \
		--timing afap --force >"$T/out" 2>&1 || { cat "$T/out"; fail "replay of $1 failed"; }
	grep -q 'mismatches   0' "$T/out" || { cat "$T/out"; fail "replay of $1 mismatched"; }
	sed -n 's/.*\(openat2\|unlinkat\)([0-9]*, "\(f[0-9][0-9]\)".*/\2/p' "$T/st" >"$T/taken"
	[ "$(wc -l <"$T/taken")" = 30 ] || { cat "$T/st"; fail "the replay of $1 took $(wc -l <"$T/taken") of the 30 files"; }
	if grep -q "kept: a pipe's or socket's call no other thread waits for" "$T/out"; then
		# cat's reads followed some of tar's writes only (how many
		# bytes a read took varies from recording to recording): the
		# walk keeps its recorded order (replay_walk_pipe_full.sh)
		cmp -s "$T/taken" "$T/recorded" ||
			{ paste "$T/taken" "$T/recorded"; fail "the walk of $1, kept, did not replay in the recorded order"; }
		echo "(the walk into the pipe kept its recorded order: writes cat did not wait for)"
		return
	fi
	cmp -s "$T/taken" "$T/listed" ||
		{ paste "$T/taken" "$T/listed" "$T/recorded"; fail "the walk of $1 did not replay in the root's listing order"; }
	grep -q 'walks        1 directories walked in the order listed here' "$T/out" ||
		{ cat "$T/out"; fail "the walk of $1 taken in the listed order is not counted (d; its s is listed as recorded)"; }
}

root
taken "$T/rm.iotape" unlinkat
[ -e "$M/R$A/e" ] && fail "rm -r replayed left $A/e"
root
taken "$T/pipe.iotape" openat2
echo "ok: rm -r's fts walk and tar's walk into a pipe replay in the root's listing order"
