#!/bin/bash
# replay_remove_files.sh - `tar -cf a.tar --remove-files src` of a tree
# of 5 directories of 12 files: tar unlinks each file a little after it
# archived it, by its path, and each directory after its last files.
# The replay puts a run of files named by their paths in the order the
# target lists their directories, and a directory's own name ranks
# before its entries': the directory's removal went ahead of the unlinks
# of its last files (ENOTEMPTY; 3-4 mismatches, the tree left behind).
# A removal of a directory now ends such a run.  Recorded with ptrace
# (fast path and not) and bpf where it loads.
# Then the same tree on a tmpfs (which lists a directory's newest entry
# first), replayed into this test's directory (another filesystem, which
# lists them in another order): tar walks the tree's directories in the
# tmpfs's order, and the replay puts that walk's entries in its own.  The
# unlinks of one directory's last files come while tar archives the
# next directory: moved with that one ahead of the other, they took the
# other's files away before tar read them (193 mismatches in a build and
# archive workload on fresh ext4 filesystems).  A walk whose entries'
# calls name another entry's files now keeps its order.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp removefiles
command -v tar >/dev/null || fail "tar is missing"

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir -p "$T/root" "$T/w/src"
	for d in 0 1 2 3 4; do
		mkdir "$T/w/src/d$d"
		for f in $(seq 0 11); do
			head -c $((1000 + 300 * f)) /dev/zero | tr '\0' x >"$T/w/src/d$d/f$f.txt"
		done
	done
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		tar -cf a.tar --remove-files src) 2>"$T/err" ||
		fail "$b: recording tar --remove-files failed: $(cat "$T/err")"
	[ ! -e "$T/w/src" ] || fail "$b: tar left src behind"
	"$IOTAPE" dump "$T/t.iotape" | grep -q "unlinkat(AT_FDCWD, \"$T/w/src/d[0-4]\", AT_REMOVEDIR) = 0" ||
		fail "$b: the trace holds no removal of a directory by its path"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ ! -e "$T/root$T/w/src" ] || fail "$b: the replay left $(find "$T/root$T/w/src" | wc -l) names of src"
	[ -s "$T/root$T/w/a.tar" ] || fail "$b: the replay made no a.tar"
done

[ "$(id -u)" = 0 ] || { echo "the walk on a tmpfs not tried: needs root to mount one"; exit 0; }
M=$T/m
mkdir "$M"
mount -t tmpfs -o size=64m iotape-removefiles "$M" || fail "cannot mount a tmpfs at $M"
trap 'cd /; umount "$M"; rm -rf "$T"' EXIT
mkdir -p "$M/w/tree"
for d in 3 0 6 1 7 4 2 5; do
	mkdir "$M/w/tree/d$d"
	for f in $(seq 0 11); do
		head -c $((1000 + 300 * f)) /dev/zero | tr '\0' y >"$M/w/tree/d$d/f$f.txt"
	done
done
(cd "$M/w" && "$IOTAPE" record -q -o "$T/m.iotape" -- tar -cf a.tar --remove-files tree) 2>"$T/err" ||
	fail "tmpfs: recording tar --remove-files failed: $(cat "$T/err")"
rm -rf "$T/root"
mkdir "$T/root"
replay_verified tmpfs "$T/m.iotape" "$T/root" "$T/rout"
[ ! -e "$T/root$M/w/tree" ] || fail "tmpfs: the replay left $(find "$T/root$M/w/tree" | wc -l) names of tree"
[ "$(stat -c %s "$T/root$M/w/a.tar")" = "$(stat -c %s "$M/w/a.tar")" ] ||
	fail "tmpfs: the replay's a.tar is $(stat -c %s "$T/root$M/w/a.tar") bytes, not $(stat -c %s "$M/w/a.tar")"
exit 0
