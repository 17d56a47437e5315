#!/bin/sh
# validate.sh - 'make validate': does replaying a recorded trace on
# filesystem X predict how the real workload runs on X?
#
# For the Mozilla-tree workload on fs/ of linux-source-6.1: record it once;
# then for each filesystem, (1) run the real workload natively on a fresh
# filesystem from the same starting tree, cold cache, timing each phase,
# and (2) 'iotape bench' the trace on a fresh filesystem of the same kind
# (prepare, drop caches, replay with original timing).  Prints per phase:
# native time, replay time, error %, and whether replay ranks the
# filesystems as the native runs do.  Needs root (loop filesystems).
#   FS=ext4,xfs,btrfs RUNS=1 make validate
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
FS=${FS:-ext4,xfs,btrfs,tmpfs}
[ "$(id -u)" = 0 ] || { echo "validate: needs root (loop filesystems); run as root" >&2; exit 1; }
command -v python3 >/dev/null || { echo "validate: needs python3 (apt-get install -y python3)" >&2; exit 1; }
TARBALL=/usr/src/linux-source-6.1.tar.xz
SRCROOT=/var/tmp/iotape-src
SRC=$SRCROOT/linux-source-6.1/fs
if [ ! -d $SRC ]; then
	[ -f $TARBALL ] || { echo "validate: $TARBALL missing: apt-get install -y linux-source-6.1" >&2; exit 1; }
	mkdir -p $SRCROOT && tar -C $SRCROOT -xJf $TARBALL linux-source-6.1/fs
fi
OUT=${OUT:-/var/tmp/iotape-validate}
rm -rf "$OUT"; mkdir -p "$OUT/native" "$OUT/replay"
W=/var/tmp/iotape-validate-work
rm -rf $W
echo "validate: recording the Mozilla-tree workload on fs/ ($(find $SRC | wc -l) entries)"
"$IOTAPE" record -q -o "$OUT/moz.iotape" -- sh traces/mozilla-workload.sh $SRC $W/moz
rm -rf $W
M=$OUT/mnt
mkdir -p $M
cleanup() { umount $M 2>/dev/null || true; [ -n "${LOOP:-}" ] && losetup -d $LOOP 2>/dev/null || true; rm -f "$OUT/img"; }
trap cleanup EXIT INT TERM
for fs in $(echo $FS | tr , ' '); do
	echo "validate: $fs: native run"
	case $fs in
	tmpfs) mount -t tmpfs -o size=2g tmpfs $M ;;
	*)	truncate -s 2G "$OUT/img"; LOOP=$(losetup --find --show "$OUT/img")
		case $fs in
		ext4) mkfs.ext4 -F -q $LOOP ;; xfs) mkfs.xfs -f -q $LOOP ;;
		btrfs) mkfs.btrfs -f -q $LOOP >/dev/null ;; ext2) mkfs.ext2 -F -q $LOOP ;;
		*) echo "validate: unknown fs $fs" >&2; exit 1 ;;
		esac
		mount -t $fs $LOOP $M ;;
	esac
	cp -a $SRC $M/src
	sync; echo 3 >/proc/sys/vm/drop_caches
	PHASE_LOG=$OUT/native/$fs.times sh traces/mozilla-workload.sh $M/src $M/work
	cleanup; LOOP=
	echo "validate: $fs: replay (iotape bench)"
	"$IOTAPE" bench "$OUT/moz.iotape" --fs $fs -q -o "$OUT/replay" >/dev/null
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
