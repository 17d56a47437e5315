#!/bin/bash
# replay_moved_dirs.sh - names first met under a directory the workload
# had renamed: `mv src/d t/`, then `mv t/d/e src/`, `mv src t/src2` and
# `ls -R t`.  t/d/e was src/d/e at the start, a name no call made, so its
# state said nothing of the starting tree: the replay's src/d had no e,
# the second move failed (ENOENT) and the listings after it differed (5
# mismatches).  Now such a path's state is also written under the name it
# had before the renames (and so are the entries listed under a moved
# directory), and the tree is made with them.  Recorded with ptrace (fast
# path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp moveddirs

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir -p "$T/root" "$T/w/src/d/e"
	for i in 1 2 3 4 5; do echo $i >"$T/w/src/d/f$i"; echo $i >"$T/w/src/d/e/g$i"; done
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'mkdir t && mv src/d t/ && mv t/d/e src/ && mv src t/src2 && ls -R t' \
		>/dev/null 2>"$T/err") || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump"
	for p in src/d/e src/d/e/g1 src/d/f1; do
		grep -q "state \"$T/w/$p\" S_IF" "$T/dump" ||
			fail "$b: no starting state of $p: $(grep "state .*$T/w/" "$T/dump" | head -20)"
	done
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	for p in t/d/f5 t/src2/e/g5; do
		[ -f "$T/root$T/w/$p" ] || fail "$b: $p is not under the root after the replay"
	done
	echo "$b: the moved directories' names in the starting tree; 3 moves and 5 listings replayed with 0 mismatches"
done
echo "ok: names met under renamed directories are in the starting tree where they were"
