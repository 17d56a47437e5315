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
# RUNS=N (default 1) runs the workload natively and replays it N times per
# filesystem, alternately (so that a slow spell of a shared machine falls
# on both), and compares medians; each cell then also shows the spread of
# its N runs, (max - min) / median, and a phase whose replay and native
# ranges do not overlap is marked '*': that difference is not noise.
#   FS=ext4,xfs TREE=fs CACHE=hot make validate
#   RUNS=3 make validate
# OUT=DIR (default /var/tmp/iotape-validate) holds the trace, the times
# and the profiles; the workload's own directory is OUT-work.
# TRACE=FILE replays FILE instead of recording the workload again: a
# trace an earlier validation wrote to OUT/moz.iotape, copied elsewhere
# (OUT is emptied), with the same OUT and tree (its paths name them).
# Before and after a change to the replayer, one trace then serves both.
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
FS=${FS:-ext4,xfs,btrfs,tmpfs}
CACHE=${CACHE:-cold}
RUNS=${RUNS:-1}
[ "$(id -u)" = 0 ] || { echo "validate: needs root (loop filesystems); run as root" >&2; exit 1; }
command -v python3 >/dev/null || { echo "validate: needs python3 (apt-get install -y python3)" >&2; exit 1; }
case $CACHE in cold|hot) ;; *) echo "validate: CACHE is cold or hot, not '$CACHE'" >&2; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) echo "validate: RUNS is a count of runs (1, 3, ...), not '$RUNS'" >&2; exit 2 ;; esac
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
[ -z "${TRACE:-}" ] || [ -f "$TRACE" ] || { echo "validate: TRACE=$TRACE: no such file" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT/native" "$OUT/replay"
# The trace records absolute paths under W: two validations at once need
# two OUTs.
W=$OUT-work
rm -rf $W
# Native runs and replays get filesystems of one size (the layout of ext4
# and xfs depends on it): the tree, its three copies, the tar and a margin.
mb=$(du -sm "$SRC" | cut -f1)
SIZE=$((mb * 6 + 1024))M
if [ -n "${TRACE:-}" ]; then
	echo "validate: replaying $TRACE (the workload on $SRC, recorded earlier)"
	cp "$TRACE" "$OUT/moz.iotape"
else
	echo "validate: recording the Mozilla-tree workload on $SRC ($(find "$SRC" | wc -l) entries, $mb MB)"
	"$IOTAPE" record -q -o "$OUT/moz.iotape" -- sh traces/mozilla-workload.sh "$SRC" $W/moz
fi
rm -rf $W
M=$OUT/mnt
IMG=$OUT/img
NAME=validate
mkdir -p $M
. tools/validate_lib.sh
steady_memory $(( ${SIZE%M} * 2 + 1024 ))
drop=
[ $CACHE = hot ] && drop=--no-drop-caches
for fs in $(echo $FS | tr , ' '); do
	r=1
	while [ $r -le $RUNS ]; do
		echo "validate: $fs: native run $r/$RUNS ($CACHE cache)"
		mkfs_mount $fs
		# The tree and the work directory sit at the paths the replay
		# uses (ROOT/recorded path): same depth, same directory
		# entries to look up.
		mkdir -p "$M$(dirname "$SRC")"
		cp -a "$SRC" "$M$SRC"
		sync
		[ $CACHE = cold ] && echo 3 >/proc/sys/vm/drop_caches
		PHASE_LOG=$OUT/native/$fs.$r.times sh traces/mozilla-workload.sh "$M$SRC" "$M$W/moz"
		cleanup
		echo "validate: $fs: replay $r/$RUNS (iotape bench)"
		"$IOTAPE" bench "$OUT/moz.iotape" --fs $fs --image-size $SIZE $drop -q -o "$OUT/replay/$r" >/dev/null
		"$IOTAPE" report "$OUT/replay/$r/$fs.1.iotape" --json >"$OUT/replay/$fs.$r.json"
		r=$((r + 1))
	done
done
python3 - "$OUT" "$FS" "$RUNS" <<'PY'
import json, sys, statistics
out, fslist, runs = sys.argv[1], sys.argv[2].split(','), int(sys.argv[3])
names = ["cp -a (copy in)", "sync", "cp -a tree tree-2", "cp -a tree-2 tree-3", "sync", "du", "rm -rf", "tar c", "sync"]
nan = float('nan')
def native(fs, r):
    t = [float(x) for x in open(f"{out}/native/{fs}.{r}.times")]
    return [b - a for a, b in zip(t, t[1:])]
def replay(fs, r):
    j = json.load(open(f"{out}/replay/{fs}.{r}.json"))
    # the script's own 'mkdir -p WORK' is a phase of the trace too; the
    # native timing starts after it
    ph = [p for p in j["phases"] if p["name"] != "(gaps)" and not p["name"].startswith("mkdir")]
    ph.sort(key=lambda p: p["start_ns"])
    return [p["real_ns"] / 1e9 for p in ph][:len(names)]
# per fs and phase (and the total, last), the times of the N runs
nat, rep = {}, {}
for fs in fslist:
    n = [native(fs, r) for r in range(1, runs + 1)]
    p = [replay(fs, r) for r in range(1, runs + 1)]
    nat[fs] = [[x[i] if i < len(x) else nan for x in n] for i in range(len(names))] + [[sum(x) for x in n]]
    rep[fs] = [[x[i] if i < len(x) else nan for x in p] for i in range(len(names))] + [[sum(x) for x in p]]
med = statistics.median
def spread(v):
    m = med(v)
    return (max(v) - min(v)) / m * 100 if m > 0 else 0.0
def apart(a, b):
    return runs > 1 and (max(a) < min(b) or max(b) < min(a))
w = 26 if runs == 1 else 38
print(f"{'phase':22}" + "".join(f"{fs:>{w}}" for fs in fslist))
if runs == 1:
    print(f"{'':22}" + "".join(f"{'native':>9}{'replay':>9}{'err%':>8}" for fs in fslist))
else:
    print(f"{'':22}" + "".join(f"{'native':>9}{'+-%':>5}{'replay':>9}{'+-%':>5}{'err%':>9} " for fs in fslist))
within, total, noisy = 0, 0, 0
for i, n in enumerate(names + ["total"]):
    row = f"{n:22}"
    for fs in fslist:
        a, b = med(nat[fs][i]), med(rep[fs][i])
        e = (b - a) / a * 100 if a > 0 else nan
        if a >= 1.0 and n != "total":
            total += 1
            within += abs(e) <= 5
            noisy += abs(e) > 5 and not apart(nat[fs][i], rep[fs][i])
        if runs == 1:
            row += f"{a:9.2f}{b:9.2f}{e:+8.1f}"
        else:
            row += (f"{a:9.2f}{spread(nat[fs][i]):5.0f}{b:9.2f}{spread(rep[fs][i]):5.0f}{e:+9.1f}"
                    + ("*" if apart(nat[fs][i], rep[fs][i]) else " "))
    print(row)
# ranking agreement where native runs differ by more than 10 %
agree = disagree = 0
for i in range(len(names)):
    for x in fslist:
        for y in fslist:
            if x >= y: continue
            a, b = med(nat[x][i]), med(nat[y][i])
            if max(a, b) < 1.0 or abs(a - b) / min(a, b) <= 0.10: continue
            if (a < b) == (med(rep[x][i]) < med(rep[y][i])): agree += 1
            else: disagree += 1
print(f"\nphases >= 1 s within 5 %: {within}/{total}; same ranking where native differs > 10 %: "
      f"{agree}/{agree + disagree}")
if runs > 1:
    print(f"medians of {runs} runs; +-%: (max - min) / median of the runs; "
          f"*: replay and native ranges do not overlap; "
          f"phases >= 1 s off by more than 5 % but within the noise: {noisy}")
PY
