#!/bin/bash
# deep.sh - what big and deep trees cost: recording and preparing at a
# cost per call that does not grow with the depth of the paths or the
# size of the tree.  Side by side in one run, medians of RUNS, every
# mode's run i before any mode's run i+1 (a slow spell of the machine
# falls on all columns):
#  (a) find + du -s over a real large tree (TREE, default /usr), natively
#      and under `iotape record`;
#  (b) cp -a of 20,000 files 3 and 30 directories deep (tmpfs), natively
#      and recorded: the two ratios should be alike;
#  (c) the starting tree of a trace of 150,000 entries made by
#      `iotape replay --prepare-only` against `cp -a --attributes-only` of
#      the same tree onto the same filesystem: tmpfs, and ext4 on a loop
#      device when run as root.
#   RUNS=5  CASES="find cp prepare"  TREE=/usr  ENTRIES=150000
#   BASE=/path/to/another/iotape: a column for that build too (before/after)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$PWD/$BUILD/iotape}
RUNS=${RUNS:-5}
CASES=${CASES:-find cp prepare}
TREE=${TREE:-/usr}
ENTRIES=${ENTRIES:-150000}
BASE=${BASE:-}
export LC_ALL=C

[ -x "$IOTAPE" ] || { echo "deep bench: $IOTAPE not built"; exit 1; }
# the trees are made in a tmpfs of our own: /dev/shm paths are not
# recorded (pseudo filesystems), and the disk's writeback would dominate
W=$(mktemp -d /tmp/iotape-deep.XXXXXX)
LOOP= MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	mountpoint -q "$W/t" && umount "$W/t"
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/t"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4g tmpfs "$W/t" 2>/dev/null; then
	T=$W/t
else
	T=$(mktemp -d /dev/shm/iotape-deep.XXXXXX)
	echo "deep bench: not root: trees in $T (/dev/shm); the prepare case is skipped"
	CASES=${CASES//prepare/}
	trap 'rm -rf "$T"; cleanup' EXIT
fi

# time_one CMD... - "WALL CPU" seconds of one run (CPU: user + system of
# the command and all it waited for; with a recorder, the program's too)
time_one() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time "$@" >/dev/null 2>"$W/err" || echo "FAILED: $* ($(tail -1 "$W/err"))" >&2; } 2>&1)
	echo "$t" | awk '{ printf "%s %.3f\n", $1, $2 + $3 }'
}
. tests/bench/lib.sh	# median
ratio() { echo "$1 / $2" | bc -l; }

# bench NAME PREP MODE:CMD... - RUNS alternating runs of each MODE's CMD
# (PREP untimed before each); medians in $W/NAME.MODE
bench() {
	local name=$1 prep=$2 i m; shift 2
	for m in "$@"; do : >"$W/$name.${m%%:*}.all"; done
	for i in $(seq 1 "$RUNS"); do
		for m in "$@"; do
			eval "$prep" >/dev/null 2>&1
			time_one sh -c "${m#*:}" >>"$W/$name.${m%%:*}.all"
		done
	done
	for m in "$@"; do
		cut -d' ' -f1 "$W/$name.${m%%:*}.all" | median >"$W/$name.${m%%:*}"
		cut -d' ' -f2 "$W/$name.${m%%:*}.all" | median >"$W/$name.${m%%:*}.cpu"
	done
}
med() { cat "$W/$1"; }
# head TITLE COL1 COL2 - a table's first line
head_row() {
	printf '%-34s %9s %18s' "$1" "$2" "$3"
	[ -n "$BASE" ] && printf ' %18s' "before (BASE)"
	printf '   %s\n' "CPU: native, ratio(s)"
	return 0
}
# row LABEL NAME - wall seconds of native and iotape (and base) of bench
# NAME, then CPU seconds: a pinned recorder on a loaded machine waits
# for its CPU, so both are shown
row() {
	printf '%-34s %9.3f %9.3f (%5.2fx)' "$1" "$(med "$2.native")" "$(med "$2.iotape")" \
		"$(ratio "$(med "$2.iotape")" "$(med "$2.native")")"
	[ -n "$BASE" ] && printf ' %9.3f (%5.2fx)' "$(med "$2.base")" \
		"$(ratio "$(med "$2.base")" "$(med "$2.native")")"
	printf '   %6.3f %5.2fx' "$(med "$2.native.cpu")" \
		"$(ratio "$(med "$2.iotape.cpu")" "$(med "$2.native.cpu")")"
	[ -n "$BASE" ] && printf ' %5.2fx' "$(ratio "$(med "$2.base.cpu")" "$(med "$2.native.cpu")")"
	echo
}
# modes of a bench: iotape's command line, once per build
with_base() {	# NAME CMD-with-@IOTAPE@
	echo "iotape:${2//@IOTAPE@/$IOTAPE}"
	[ -n "$BASE" ] && echo "base:${2//@IOTAPE@/$BASE}"
}

echo "deep bench: medians of $RUNS alternating runs, seconds (ratio); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

case " $CASES " in *" find "*)
	n=$(find "$TREE" -xdev 2>/dev/null | wc -l)
	find "$TREE" -xdev >/dev/null 2>&1; du -s "$TREE" >/dev/null 2>&1	# hot cache
	work="find '$TREE' -xdev >/dev/null 2>&1; du -s '$TREE' >/dev/null 2>&1"
	mapfile -t modes < <(with_base find "'@IOTAPE@' record -q -o '$W/f.iotape' -- sh -c \"$work\"")
	bench find : "native:$work" "${modes[@]}"
	head_row "find + du -s" native "iotape record"
	row "$TREE ($n entries)" find
	echo ;;
esac

# mktree DIR DEPTH FILES - FILES small files in 20 directories at the end
# of a chain of DEPTH-1 directories below DIR
mktree() {
	local d=$1/src i
	for i in $(seq 2 "$2"); do d=$d/level-$(printf %02d "$i"); done
	mkdir -p "$d"
	for i in $(seq 0 19); do mkdir "$d/leaf-$i"; done
	(cd "$d" && for i in $(seq 0 $(($3 - 1))); do echo "leaf-$((i % 20))/file-$i.c"; done |
		xargs sh -c 'for f; do echo "int x_$RANDOM;" >"$f"; done' sh)
}

case " $CASES " in *" cp "*)
	head_row "cp -a of 20,000 files" native "iotape record"
	for depth in 3 30; do
		mkdir -p "$T/d$depth" && mktree "$T/d$depth" "$depth" 20000
		cd "$T/d$depth" || exit 1
		mapfile -t modes < <(with_base cp "'@IOTAPE@' record -q -o '$W/c.iotape' -- cp -a src copy")
		bench "cp$depth" "rm -rf '$T/d$depth/copy'" "native:cp -a src copy" "${modes[@]}"
		cd - >/dev/null || exit 1
		rm -rf "$T/d$depth"
		row "  $depth directories deep" "cp$depth"
	done
	r3=$(ratio "$(med cp3.iotape)" "$(med cp3.native)")
	r30=$(ratio "$(med cp30.iotape)" "$(med cp30.native)")
	printf '%-34s %9s %9.2f' "  ratio at 30 / ratio at 3" "" "$(ratio "$r30" "$r3")"
	[ -n "$BASE" ] && printf ' %18.2f' "$(ratio "$(ratio "$(med cp30.base)" "$(med cp30.native)")" \
		"$(ratio "$(med cp3.base)" "$(med cp3.native)")")"
	printf '   %6s %5.2fx' "" "$(ratio "$(ratio "$(med cp30.iotape.cpu)" "$(med cp30.native.cpu)")" \
		"$(ratio "$(med cp3.iotape.cpu)" "$(med cp3.native.cpu)")")"
	[ -n "$BASE" ] && printf ' %5.2fx' "$(ratio "$(ratio "$(med cp30.base.cpu)" "$(med cp30.native.cpu)")" \
		"$(ratio "$(med cp3.base.cpu)" "$(med cp3.native.cpu)")")"
	echo
	echo ;;
esac

# a skeleton of ENTRIES entries: directories of 100 files, 3 levels of
# directories below a chain of 4
mkskel() {
	local top=$1/skel/usr/share/project/src nd=$((ENTRIES / 101)) i
	mkdir -p "$top"
	(cd "$top" && for i in $(seq 0 $((nd - 1))); do
		echo "m-$((i / 100))/d-$((i / 10 % 10))/leaf-$i"; done | xargs mkdir -p)
	(cd "$top" && for i in $(seq 0 $((nd - 1))); do
		d="m-$((i / 100))/d-$((i / 10 % 10))/leaf-$i"
		for j in $(seq -w 0 99); do echo "$d/f$j.txt"; done; done | xargs touch)
}

# prep_on LABEL DIR - both ways of making the tree on the filesystem at DIR
prep_on() {
	local label=$1 dir=$2
	mapfile -t modes < <(with_base prep "'@IOTAPE@' replay -q '$W/p.iotape' --root '$dir/a' --prepare-only")
	bench "prep.$label" "rm -rf '$dir/a' '$dir/b'; mkdir '$dir/a'" \
		"native:cp -a --attributes-only '$T/skel' '$dir/b'" "${modes[@]}"
	rm -rf "${dir:?}/a" "${dir:?}/b"
	row "  on $label" "prep.$label"
}

case " $CASES " in *" prepare "*)
	mkskel "$T"
	"$IOTAPE" record -q -o "$W/p.iotape" -- find "$T/skel" >/dev/null || exit 1
	states=$("$IOTAPE" dump -s "$W/p.iotape" | grep -c '^# .* state ')
	head_row "starting tree of $states states" "cp --attr" "--prepare-only"
	mkdir -p "$W/x" && prep_on tmpfs "$W/x"
	if command -v mkfs.ext4 >/dev/null && truncate -s 4G "$W/ext4.img" &&
	   mkfs.ext4 -q -F "$W/ext4.img" && LOOP=$(losetup -f --show "$W/ext4.img"); then
		MNT=$W/m && mkdir -p "$MNT" && mount "$LOOP" "$MNT" && prep_on "ext4 (loop)" "$MNT"
	else
		echo "  ext4: no loop device here; skipped"
	fi
	echo ;;
esac
