#!/bin/bash
# replay_deep_paths.sh - a tree deeper than PATH_MAX (4096 bytes): 150
# directories of 30-byte names one below the other, a file at the
# bottom, walked by `du` and `find` (which reads the file) and removed by
# `rm -rf` (which all go down with descriptors and up with "..").  The
# trace names these paths in full (about 4,500 bytes); the kernel takes
# at most 4,095 in one lookup, and every such call of the replay failed
# ENAMETOOLONG (2,377 mismatches in a walk of 260 levels).  Now a longer
# path is looked up in parts, each below the directory the last one
# opened, inside the root; and the recorder folds "X/NAME/.." of a walk
# climbing back to "X" at any depth, as it did below 4,096 bytes only
# (kept as such, the names of directories the walk had removed on the
# way up: 289 mismatches more), and takes the states of such names.  A
# name of more than 4,095 bytes given as such (`ls` of one) fails
# ENAMETOOLONG, before any lookup; the recorder keeps its first 4,095
# bytes, and the replay makes it fail so again.  Recorded with ptrace
# (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
T=$(mktemp -d /var/tmp/iotape-deep.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || fail "no $T"
record_backends "$T"
name=level_with_a_longer_name_0000
# the tree, made before the recording (bash's cd below 4,096 bytes finds
# its way by listing "/", which the replay's root does not hold)
mk_deep() {
	(cd "$T/w" && for i in $(seq 1 150); do mkdir $name && cd $name || exit 1; done &&
		echo deep >leaf) || fail "could not make the deep tree"
}
cat >"$T/w.sh" <<W
set -e
cd "$T/w"
du -s $name >/dev/null
find $name -name leaf >"$T/found"
find $name -name leaf -execdir cat {} + >/dev/null
ls -d "\$(printf "$name/%.0s" \$(seq 1 160))" >/dev/null 2>&1 || true
rm -rf $name
W
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir "$T/root" "$T/w"
	mk_deep
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- bash "$T/w.sh" \
		>/dev/null 2>"$T/err" || fail "$b: recording the deep tree's script failed: $(cat "$T/err")"
	[ "$(wc -c <"$T/found")" -gt 4500 ] || fail "$b: find found no leaf 4,500 bytes down: $(head -c 200 "$T/found")"
	long=$("$IOTAPE" dump "$T/t.iotape" | grep -c "openat(.*/leaf\"")
	[ "$long" -ge 1 ] || fail "$b: the trace holds no open of the leaf"
	[ ! -e "$T/w/$name" ] || fail "$b: rm -rf left the tree"
	"$IOTAPE" dump "$T/t.iotape" | grep -q "= -1 ENAMETOOLONG" ||
		fail "$b: the trace holds no call that failed ENAMETOOLONG (ls of a 4,800-byte name)"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ -d "$T/root$T/w" ] && [ -z "$(ls -A "$T/root$T/w")" ] ||
		fail "$b: the replay left $T/w not empty: $(ls -A "$T/root$T/w" | head -3)"
done
exit 0
