#!/bin/sh
# validate.sh - 'make validate': does replaying a recorded trace on
# filesystem X predict how the real workload runs on X?
#
# For the Mozilla-tree workload on a real source tree: record it once;
# then for each filesystem, (1) run the real workload natively on a fresh
# filesystem from the same starting tree, timing each phase, and (2)
# 'iotape bench' the trace on a fresh filesystem of the same kind and size
# (prepare, drop caches, replay with original timing).  Prints per phase:
# native time, replay time, error %, and whether replay ranks the
# filesystems as the native runs do.  Only phases of 1 s or more count:
# shorter ones are mostly noise.  Needs root (loop filesystems).
#
# The tree is a part of linux-source-6.1 (top-level directories, extracted
# once under /var/tmp/iotape-src), or any directory:
#   TREE="fs arch include"  the default: 26,000 entries, 240 MB, ~3 min
#   TREE=fs                 2,174 entries: every phase well under 1 s
#   TREE=all                the whole tree (84,000 entries, 1.4 GB)
#   SRC=/some/dir           a tree of your own
# CACHE=cold (default) drops the page cache before the workload starts,
# as 'iotape bench' does after prepare; CACHE=hot keeps the starting tree
# cached in both runs.
#   FS=ext4,xfs TREE=fs CACHE=hot make validate
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
FS=${FS:-ext4,xfs,btrfs,tmpfs}
CACHE=${CACHE:-cold}
[ "$(id -u)" = 0 ] || { echo "validate: needs root (loop filesystems); run as root" >&2; exit 1; }
command -v python3 >/dev/null || { echo "validate: needs python3 (apt-get install -y python3)" >&2; exit 1; }
case $CACHE in cold|hot) ;; *) echo "validate: CACHE is cold or hot, not '$CACHE'" >&2; exit 2 ;; esac
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
OUT=${OUT:-/var/tmp/iotape-validate}
rm -rf "$OUT"; mkdir -p "$OUT/native" "$OUT/replay"
W=/var/tmp/iotape-validate-work
rm -rf $W
# Native runs and replays get filesystems of one size (the layout of ext4
# and xfs depends on it): the tree, its three copies, the tar and a margin.
mb=$(du -sm "$SRC" | cut -f1)
SIZE=$((mb * 6 + 1024))M
echo "validate: recording the Mozilla-tree workload on $SRC ($(find "$SRC" | wc -l) entries, $mb MB)"
"$IOTAPE" record -q -o "$OUT/moz.iotape" -- sh traces/mozilla-workload.sh "$SRC" $W/moz
rm -rf $W
M=$OUT/mnt
mkdir -p $M
cleanup() { umount $M 2>/dev/null || true; [ -n "${LOOP:-}" ] && losetup -d $LOOP 2>/dev/null || true; rm -f "$OUT/img"; }
trap cleanup EXIT INT TERM
drop=
[ $CACHE = hot ] && drop=--no-drop-caches
for fs in $(echo $FS | tr , ' '); do
	echo "validate: $fs: native run ($CACHE cache)"
	case $fs in
	tmpfs) mount -t tmpfs -o size=$SIZE tmpfs $M ;;
	*)	truncate -s $SIZE "$OUT/img"; LOOP=$(losetup --find --show "$OUT/img")
		case $fs in
		ext4) mkfs.ext4 -F -q $LOOP ;; xfs) mkfs.xfs -f -q $LOOP ;;
		btrfs) mkfs.btrfs -f -q $LOOP >/dev/null ;; ext2) mkfs.ext2 -F -q $LOOP ;;
		*) echo "validate: unknown fs $fs" >&2; exit 1 ;;
		esac
		mount -t $fs $LOOP $M ;;
	esac
	# The tree and the work directory sit at the paths the replay uses
	# (ROOT/recorded path): same depth, same directory entries to look up.
	mkdir -p "$M$(dirname "$SRC")"
	cp -a "$SRC" "$M$SRC"
	sync
	[ $CACHE = cold ] && echo 3 >/proc/sys/vm/drop_caches
	PHASE_LOG=$OUT/native/$fs.times sh traces/mozilla-workload.sh "$M$SRC" "$M$W/moz"
	cleanup; LOOP=
	echo "validate: $fs: replay (iotape bench)"
	"$IOTAPE" bench "$OUT/moz.iotape" --fs $fs --image-size $SIZE $drop -q -o "$OUT/replay" >/dev/null
	"$IOTAPE" report "$OUT/replay/$fs.1.iotape" --json >"$OUT/replay/$fs.json"
done
python3 - "$OUT" "$FS" <<'PY'
import json, sys, os
out, fslist = sys.argv[1], sys.argv[2].split(',')
names = ["cp -a (copy in)", "sync", "cp -a tree tree-2", "cp -a tree-2 tree-3", "sync", "du", "rm -rf", "tar c", "sync"]
nat, rep = {}, {}
for fs in fslist:
    t = [float(x) for x in open(f"{out}/native/{fs}.times")]
    nat[fs] = [b - a for a, b in zip(t, t[1:])]
    j = json.load(open(f"{out}/replay/{fs}.json"))
    # the script's own 'mkdir -p WORK' is a phase of the trace too; the
    # native timing starts after it
    ph = [p for p in j["phases"] if p["name"] != "(gaps)" and not p["name"].startswith("mkdir")]
    ph.sort(key=lambda p: p["start_ns"])
    rep[fs] = [p["real_ns"] / 1e9 for p in ph][:len(names)]
print(f"{'phase':22}" + "".join(f"{fs:>26}" for fs in fslist))
print(f"{'':22}" + "".join(f"{'native':>9}{'replay':>9}{'err%':>8}" for fs in fslist))
within, total = 0, 0
for i, n in enumerate(names):
    row = f"{n:22}"
    for fs in fslist:
        a = nat[fs][i] if i < len(nat[fs]) else float('nan')
        b = rep[fs][i] if i < len(rep[fs]) else float('nan')
        e = (b - a) / a * 100 if a > 0 else float('nan')
        if a >= 1.0:
            total += 1
            within += abs(e) <= 5
        row += f"{a:9.2f}{b:9.2f}{e:+8.1f}"
    print(row)
tn = {fs: sum(nat[fs]) for fs in fslist}
tr = {fs: sum(rep[fs]) for fs in fslist}
print(f"{'total':22}" + "".join(f"{tn[fs]:9.2f}{tr[fs]:9.2f}{(tr[fs]-tn[fs])/tn[fs]*100:+8.1f}" for fs in fslist))
# ranking agreement where native runs differ by more than 10 %
agree = disagree = 0
for i in range(len(names)):
    for x in fslist:
        for y in fslist:
            if x >= y or i >= len(nat[x]) or i >= len(nat[y]): continue
            a, b = nat[x][i], nat[y][i]
            if max(a, b) < 1.0 or abs(a - b) / min(a, b) <= 0.10: continue
            if (a < b) == (rep[x][i] < rep[y][i]): agree += 1
            else: disagree += 1
print(f"\nphases >= 1 s within 5 %: {within}/{total}; same ranking where native differs > 10 %: "
      f"{agree}/{agree + disagree}")
PY
