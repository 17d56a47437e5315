#!/bin/sh
# validate.sh - 'make validate': does replaying a recorded trace on
# filesystem X predict how the real workload runs on X?  One use of
# 'iotape validate' (see 'iotape validate --help'): the Mozilla-tree
# workload (traces/mozilla-workload.sh, its phases marked) on a real
# source tree, recorded once on ext4; then per filesystem, alternately,
# the real workload on a fresh filesystem and 'iotape bench' of its trace
# on another.  Needs root (loop filesystems).
#
# The tree is a part of linux-source-6.1 (top-level directories, extracted
# once under /var/tmp/iotape-src), or any directory:
#   TREE="fs arch include"  the default: 26,000 entries, 240 MB, ~3 min
#   TREE=fs                 2,174 entries: every phase well under 1 s
#   TREE=all                the whole tree (84,000 entries, 1.4 GB)
#   SRC=/some/dir           a tree of your own
# FS=LIST (default ext4,xfs,btrfs,tmpfs); CACHE=cold (default) or hot;
# RUNS=N (default 1) native runs and replays per filesystem, medians
# compared, with their spread and '*' where the ranges do not overlap.
#   FS=ext4,xfs TREE=fs CACHE=hot make validate
#   RUNS=3 make validate
# OUT=DIR (default: a new /var/tmp/iotape-validate.XXXXXX) keeps the
# trace, the profiles, the phase logs and table.json (iotape validate
# --keep).  TRACE=FILE compares a trace an earlier validation kept
# (OUT/trace.iotape) instead of recording again (iotape validate
# --trace), with the same tree: before and after a change to the
# replayer, one trace then serves both.
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
FS=${FS:-ext4,xfs,btrfs,tmpfs}
CACHE=${CACHE:-cold}
RUNS=${RUNS:-1}
[ "$(id -u)" = 0 ] || { echo "validate: needs root (loop filesystems); run as root" >&2; exit 1; }
TARBALL=/usr/src/linux-source-6.1.tar.xz
SRCROOT=/var/tmp/iotape-src
if [ -z "${SRC:-}" ]; then
	TREE=${TREE:-fs arch include}
	# One directory per selection, holding exactly the chosen parts; a
	# stamp beside it (not in it: the workload copies the tree) marks a
	# finished extraction.
	name=$(echo "$TREE" | tr ' ' +)
	case $TREE in
	all) dst=$SRCROOT; parts=linux-source-6.1; SRC=$SRCROOT/linux-source-6.1 ;;
	fs) dst=$SRCROOT; parts=linux-source-6.1/fs; SRC=$SRCROOT/linux-source-6.1/fs ;;
	*) dst=$SRCROOT/$name; SRC=$dst/linux-source-6.1
	   parts=$(for d in $TREE; do printf 'linux-source-6.1/%s ' "$d"; done) ;;
	esac
	if [ ! -e "$SRCROOT/.done-$name" ] && ! [ "$TREE" = fs -a -d "$SRC" ]; then
		[ -f $TARBALL ] || { echo "validate: $TARBALL missing: apt-get install -y linux-source-6.1" >&2; exit 1; }
		echo "validate: extracting $TREE of $TARBALL (once)"
		[ "$TREE" = fs ] || rm -rf "$SRC"
		mkdir -p "$dst"
		# shellcheck disable=SC2086
		tar -C "$dst" -xJf $TARBALL $parts
		touch "$SRCROOT/.done-$name"
	fi
fi
[ -d "$SRC" ] || { echo "validate: $SRC: no such directory" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d /var/tmp/iotape-validate.XXXXXX)}
[ -z "${TRACE:-}" ] || [ -f "$TRACE" ] || { echo "validate: TRACE=$TRACE: no such file" >&2; exit 1; }
mb=$(du -sm "$SRC" | cut -f1)
echo "validate: the Mozilla-tree workload on $SRC ($(find "$SRC" | wc -l) entries, $mb MB); kept in $OUT"
# steady memory on a VM that reports freed memory to its host (see
# validate_lib.sh); its mount point is a directory of this run's own
M=$(mktemp -d /var/tmp/iotape-validate-mem.XXXXXX)
IMG=$M.img
NAME=validate
. tools/validate_lib.sh
trap 'finish; rmdir "$M" 2>/dev/null || :' EXIT
steady_memory $((mb * 12 + 2048))
set -- --fs "$FS" --runs "$RUNS" --cache "$CACHE" --keep "$OUT" \
	--image-size $((mb * 6 + 1024))M --setup "cp -a '$SRC' tree0"
[ -z "${TRACE:-}" ] || set -- "$@" --trace "$TRACE"
rc=0
"$IOTAPE" validate "$@" -- sh "$PWD/traces/mozilla-workload.sh" tree0 moz || rc=$?
# 6: a total is off by more than 5 %: the table says so; not a failure of
# the run
[ $rc = 0 ] || [ $rc = 6 ] || exit $rc
