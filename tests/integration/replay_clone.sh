#!/bin/bash
# replay_clone.sh - a clone's outcome decides what cp copies.  cp -a
# recorded where FICLONE fails (tmpfs) copies every file's data after the
# failed clone; replayed on a filesystem where FICLONE works (btrfs, else
# xfs), the clone succeeds and that copy must not be replayed ("cloned
# instead").  Recorded where the clone works, nothing is copied; replayed
# on tmpfs the failed clone must be followed by the copy, or the files
# would be left empty.  Either way the replayed tree equals the native one.
set -u
. "$(dirname "$0")/lib.sh"
need_root_loop
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
# coreutils 9 clones by default (--reflink=auto); older cp never tries
cp --help | grep -q 'reflink\[=WHEN\]' || skip "cp has no --reflink"
if command -v mkfs.btrfs >/dev/null 2>&1; then
	FS=btrfs
elif command -v mkfs.xfs >/dev/null 2>&1; then
	FS=xfs MKFS_OPTS="-m reflink=1"
else
	skip "neither mkfs.btrfs nor mkfs.xfs is installed"
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-clone.XXXXXX")
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; rm -rf "$T"' EXIT
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || skip "cannot mount tmpfs"
loop_fs $FS 320M "$T/cow"

# listing DIR - as in replay_trees.sh; directories without a link count
# (btrfs counts none for subdirectories)
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%P %y %m %n %s %l\n' |
		awk '$2 != "f" { $5 = "-" } $2 == "d" { $4 = "-" } { print }' | LC_ALL=C sort)
}

# run FROM TO - record cp -a of a small tree on filesystem FROM, replay
# it on filesystem TO, compare trees; the summary goes to $T/out.
run() {
	local from=$1 to=$2 a=$1/A
	mkdir -p "$a"
	mk_tree "$a/src" 20
	(cd "$a" && "$IOTAPE" record -q -o "$T/cp.iotape" -- cp -a src dst) ||
		fail "$from: recording failed"
	listing "$a" >"$T/native"
	mkdir "$to/root"
	"$IOTAPE" replay "$T/cp.iotape" --root "$to/root" --timing afap -o "$T/cp.prof" \
		>"$T/out" 2>&1 || { cat "$T/out"; fail "replay on $to failed"; }
	listing "$to/root$a" >"$T/replayed"
	diff -u "$T/native" "$T/replayed" ||
		{ cat "$T/out"; fail "recorded on $from, replayed on $to: the trees differ"; }
	rm -rf "$a" "$to/root" "$T/cp.iotape" "$T/cp.prof"
}

# The clone fails on tmpfs; on $FS it works: no copy replayed.
run "$T/tmpfs" "$T/cow"
grep -q "cloned instead [1-9]" "$T/out" ||
	{ cat "$T/out"; fail "tmpfs -> $FS: the copy after the failed clone was replayed"; }
echo "ok: cp -a recorded on tmpfs, replayed on $FS: $(grep -o 'cloned instead [0-9]*' "$T/out")"

# The clone works on $FS, not on tmpfs: the copy is made there.
run "$T/cow" "$T/tmpfs"
grep -q "cloned instead" "$T/out" && { cat "$T/out"; fail "$FS -> tmpfs: copies skipped"; }
echo "ok: cp -a recorded on $FS, replayed on tmpfs: data copied after the failed clone"
