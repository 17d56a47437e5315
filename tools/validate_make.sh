#!/bin/sh
# validate_make.sh - 'make validate-make': does a replay of a recorded
# 'make -j2' predict how long the real build takes on filesystem X?
#
# The build is iotape's own (its sources from 'git archive HEAD', built
# into BUILD=b, 'make -j2 all': ~130 compiler runs).  It is recorded once
# on a tmpfs; then for each filesystem, alternately RUNS times: the real
# build from a fresh filesystem holding the sources, and 'iotape bench'
# of the trace on a fresh filesystem of the same kind.  Prints the
# medians, their spread and the replay's error.  A build is mostly
# compiler CPU, which the replay keeps as think time: what this checks is
# that the schedule (processes, waits, think time) holds over ~40,000
# calls in ~400 processes, not the filesystem's share of the time.
#   FS=ext4,xfs,btrfs,tmpfs (default)  RUNS=3 (default)  CACHE=hot|cold
# CACHE=cold drops the page cache before both; the real build then also
# reads the compiler and its libraries back from disk, which the replay
# does not (programs and libraries are loaded by exec and mmap, whose
# page reads a trace cannot see).  Needs root (loop filesystems).
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
FS=${FS:-ext4,xfs,btrfs,tmpfs}
RUNS=${RUNS:-3}
CACHE=${CACHE:-hot}
OUT=${OUT:-/var/tmp/iotape-validate-make}
[ "$(id -u)" = 0 ] || { echo "validate-make: needs root (loop filesystems); run as root" >&2; exit 1; }
case $CACHE in cold|hot) ;; *) echo "validate-make: CACHE is cold or hot, not '$CACHE'" >&2; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) echo "validate-make: RUNS is a count of runs, not '$RUNS'" >&2; exit 2 ;; esac
command -v git >/dev/null && git rev-parse HEAD >/dev/null 2>&1 ||
	{ echo "validate-make: run it in iotape's git tree (it builds iotape's own sources)" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT/src" "$OUT/mnt"
git archive HEAD | tar -x -C "$OUT/src"
M=$OUT/mnt
IMG=$OUT/img
SIZE=2G
NAME=validate-make
. tools/validate_lib.sh
steady_memory 5120
# The build runs where the trace says it ran: $M/src.
build() { (cd $M/src && make -j2 BUILD=b all >/dev/null 2>&1); }
echo "validate-make: recording make -j2 (iotape's own build) on tmpfs"
mkfs_mount tmpfs
cp -a "$OUT/src" $M/src
(cd $M/src && "$IOTAPE" record -q -o "$OUT/make.iotape" -- make -j2 BUILD=b all >/dev/null 2>&1)
cleanup
drop=--no-drop-caches
[ $CACHE = cold ] && drop=
: >"$OUT/times"
for fs in $(echo $FS | tr , ' '); do
	r=1
	while [ $r -le $RUNS ]; do
		echo "validate-make: $fs: native build $r/$RUNS, then replay ($CACHE cache)"
		mkfs_mount $fs
		cp -a "$OUT/src" $M/src
		sync
		[ $CACHE = cold ] && echo 3 >/proc/sys/vm/drop_caches
		t0=$(date +%s%N); build; t1=$(date +%s%N)
		cleanup
		# shellcheck disable=SC2086
		"$IOTAPE" bench "$OUT/make.iotape" --fs $fs --image-size $SIZE $drop -q \
			-o "$OUT/replay-$r" >/dev/null
		rep=$("$IOTAPE" report "$OUT/replay-$r/$fs.1.iotape" --json |
		      python3 -c 'import json,sys; print(json.load(sys.stdin)["real_ns"])')
		echo "$fs $r $((t1 - t0)) $rep" >>"$OUT/times"
		r=$((r + 1))
	done
done
python3 - "$OUT/times" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
print("make -j2       native   +-%   replay   +-%    err%")
for fs in dict.fromkeys(r[0] for r in rows):
    n = [int(r[2]) / 1e9 for r in rows if r[0] == fs]
    p = [int(r[3]) / 1e9 for r in rows if r[0] == fs]
    mn, mp = statistics.median(n), statistics.median(p)
    star = '*' if max(n) < min(p) or max(p) < min(n) else ' '
    print(f"{fs:<12} {mn:8.2f} {100*(max(n)-min(n))/mn:5.0f} {mp:8.2f} {100*(max(p)-min(p))/mp:5.0f} {100*(mp-mn)/mn:+7.1f}{star}")
print(f"medians of {len(rows) // len(set(r[0] for r in rows))} runs; *: the ranges do not overlap")
PY
