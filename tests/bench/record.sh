#!/bin/bash
# record.sh - what recording costs: the median of RUNS runs each of the
# program alone, under `iotape record` (in-process fast path, the default),
# under `iotape record --no-fastpath` (every call at a ptrace stop) and
# under `strace -f -ttt -T -o FILE`, side by side in one run, for (a) cp -a
# of linux-6.1 fs/ (hot cache, tmpfs), (b) tar cf of it, (c) make -j2 of
# iotape itself from a clean clone, (d) a shell script running 400 short
# programs one after another (what each process costs: exec, the dynamic
# loader's calls, exit), (e) dd of 128 MiB of zeros in 64 KiB writes
# (each write's bytes are all looked at: the zeros flag's worst case).
# Prints a table with ratios.
#   RUNS=3  POLICIES="auto one none"  (iotape --cpu-policy values to bench)
#   CASES="cp tar make spawn zeros"
#   IOTAPE_BASE=path/to/other/iotape: that build's default and
#   --no-fastpath recordings too, in turn with this one's (base-* columns)
set -u
cd "$(dirname "$0")/../.."
SRC=$PWD
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$SRC/$BUILD/iotape}
RUNS=${RUNS:-3}
POLICIES=${POLICIES:-auto}
CASES=${CASES:-cp tar make spawn zeros}
BASE=${IOTAPE_BASE:-}
CACHE=/var/tmp/iotape-bench
# copies and archives are written to tmpfs: the disk's writeback would
# dominate a 0.1 s copy
TMPW=${TMPW:-/dev/shm}
TARBALL=/usr/src/linux-source-6.1.tar.xz
export LC_ALL=C

[ -x "$IOTAPE" ] || { echo "record bench: $IOTAPE not built"; exit 1; }
command -v strace >/dev/null || { echo "record bench: strace not installed; skipped"; exit 0; }
mkdir -p "$CACHE"
if [ ! -d "$CACHE/linux-source-6.1/fs" ]; then
	[ -f "$TARBALL" ] || { echo "record bench: $TARBALL missing (apt-get install linux-source-6.1)"; exit 0; }
	echo "extracting linux-source-6.1/fs once into $CACHE ..."
	tar xf "$TARBALL" -C "$CACHE" linux-source-6.1/fs || exit 1
fi
FS=$CACHE/linux-source-6.1/fs
W=$(mktemp -d "$TMPW/iotape-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
git -C "$SRC" ls-files -z >/dev/null 2>&1 || { echo "record bench: $SRC is not a git clone"; exit 1; }

. "$SRC/tests/bench/lib.sh"

# bench NAME PREP WORK - PREP runs untimed before each run (clean state),
# WORK is timed under each mode
bench() {
	local name=$1 prep=$2 work=$3 mode i t modes
	modes="native $(for p in $POLICIES; do echo "iotape-$p"; done) ptrace strace"
	[ -n "$BASE" ] && modes="$modes base-auto base-ptrace"
	# run i of every mode, then run i+1: a slow spell of the machine
	# falls on all modes, not on one
	for mode in $modes; do : >"$W/$name.$mode.all"; done
	for i in $(seq 1 "$RUNS"); do
		for mode in $modes; do
			(cd "$W" && eval "$prep") >/dev/null 2>&1
			case $mode in
			native) t=$(cd "$W" && time_wall sh -c "$work") ;;
			iotape-*) t=$(cd "$W" && time_wall "$IOTAPE" record -q --cpu-policy "${mode#iotape-}" \
				-o "$W/t.iotape" -- sh -c "$work") ;;
			ptrace) t=$(cd "$W" && time_wall "$IOTAPE" record -q --no-fastpath \
				-o "$W/t.iotape" -- sh -c "$work") ;;
			strace) t=$(cd "$W" && time_wall strace -f -ttt -T -o "$W/t.strace" sh -c "$work") ;;
			base-auto) t=$(cd "$W" && time_wall "$BASE" record -q -o "$W/t.iotape" -- sh -c "$work") ;;
			base-ptrace) t=$(cd "$W" && time_wall "$BASE" record -q --no-fastpath \
				-o "$W/t.iotape" -- sh -c "$work") ;;
			esac
			echo "$t" >>"$W/$name.$mode.all"
		done
	done
	for mode in $modes; do median <"$W/$name.$mode.all" >"$W/$name.$mode"; done
	printf '%-8s %9.3f' "$name" "$(cat "$W/$name.native")"
	for mode in $(for p in $POLICIES; do echo "iotape-$p"; done) ptrace strace \
		    ${BASE:+base-auto base-ptrace}; do
		printf ' %9.3f (%5.2fx)' "$(cat "$W/$name.$mode")" \
			"$(echo "$(cat "$W/$name.$mode") / $(cat "$W/$name.native")" | bc -l)"
	done
	printf '  %s\n' "$(echo "$(cat "$W/$name.strace") / $(cat "$W/$name.iotape-${POLICIES%% *}")" | bc -l | cut -c1-5)x"
}

# source and copy on one tmpfs: hot cache, and cp's copy_file_range works
# (across filesystems it fails with EXDEV and cp frees a buffer per file,
# each free() an munmap that stops in the recorder)
cp -a "$FS" "$W/fs" && FS=$W/fs
echo "record bench: median of $RUNS runs, seconds (ratio to native); $(nproc) CPUs, $(uname -r)"
printf '%-8s %9s' case native
for p in $POLICIES; do printf ' %18s' "iotape($p)"; done
printf ' %18s %18s' "--no-fastpath" strace
[ -n "$BASE" ] && printf ' %18s %18s' "base(auto)" "base --no-fastpath"
printf '  %s\n' "strace/iotape"
case " $CASES " in *" cp "*) bench cp "rm -rf copy" "cp -a '$FS' copy" ;; esac
case " $CASES " in *" tar "*) bench tar "rm -f out.tar" "tar cf out.tar -C '$FS/..' fs" ;; esac
case " $CASES " in *" make "*)
	rm -rf "$W/iotape-src" && git clone -q "$SRC" "$W/iotape-src" 2>/dev/null
	# the clone has only what is committed: copy the working tree over it
	(cd "$SRC" && git ls-files -co --exclude-standard -z |
		xargs -0 cp --parents -t "$W/iotape-src" 2>/dev/null)
	bench make "rm -rf iotape-src/x" "make -s -C iotape-src -j2 BUILD=x build-all" ;;
esac
case " $CASES " in *" zeros "*) bench zeros "rm -f zeros" "dd if=/dev/zero of=zeros bs=64k count=2048 status=none" ;; esac
case " $CASES " in *" spawn "*)
	bench spawn true 'i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done' ;;
esac
