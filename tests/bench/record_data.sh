#!/bin/bash
# record_data.sh - what `record --data` costs: the median of RUNS runs
# each of the program alone, under `iotape record`, `record --data`,
# `record --no-fastpath` and `record --data --no-fastpath`, alternated
# run by run, for (a) cp -a of linux-6.1 fs/ (hot cache, tmpfs: cp
# copies with copy_file_range, so few writes move bytes through memory)
# and (b) tar cf of it (10 KiB writes of the archive, every byte through
# write(2)); and the traces' sizes.  Prints a table with ratios.
#   RUNS=5  CASES="cp tar"
set -u
cd "$(dirname "$0")/../.."
SRC=$PWD
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$SRC/$BUILD/iotape}
RUNS=${RUNS:-5}
CASES=${CASES:-cp tar}
CACHE=/var/tmp/iotape-bench
TMPW=${TMPW:-/dev/shm}
TARBALL=/usr/src/linux-source-6.1.tar.xz
export LC_ALL=C

[ -x "$IOTAPE" ] || { echo "record_data bench: $IOTAPE not built"; exit 1; }
mkdir -p "$CACHE"
if [ ! -d "$CACHE/linux-source-6.1/fs" ]; then
	[ -f "$TARBALL" ] || { echo "record_data bench: $TARBALL missing (apt-get install linux-source-6.1)"; exit 0; }
	echo "extracting linux-source-6.1/fs once into $CACHE ..."
	tar xf "$TARBALL" -C "$CACHE" linux-source-6.1/fs || exit 1
fi
W=$(mktemp -d "$TMPW/iotape-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp -a "$CACHE/linux-source-6.1/fs" "$W/fs"
FS=$W/fs

. "$SRC/tests/bench/lib.sh"
MODES="native plain data plain-nofp data-nofp"
flags() {
	case $1 in
	plain) ;; data) echo --data ;; plain-nofp) echo --no-fastpath ;;
	data-nofp) echo --data --no-fastpath ;;
	esac
}

# bench NAME PREP WORK
bench() {
	local name=$1 prep=$2 work=$3 mode i t
	for mode in $MODES; do : >"$W/$name.$mode.all"; done
	for i in $(seq 1 "$RUNS"); do
		for mode in $MODES; do
			(cd "$W" && eval "$prep") >/dev/null 2>&1
			if [ $mode = native ]; then
				t=$(cd "$W" && time_wall sh -c "$work")
			else
				# shellcheck disable=SC2046
				t=$(cd "$W" && time_wall "$IOTAPE" record -q $(flags $mode) \
					-o "$W/$name.$mode.iotape" -- sh -c "$work")
			fi
			echo "$t" >>"$W/$name.$mode.all"
		done
	done
	for mode in $MODES; do median <"$W/$name.$mode.all" >"$W/$name.$mode"; done
	printf '%-6s %8.3f' "$name" "$(cat "$W/$name.native")"
	for mode in plain data plain-nofp data-nofp; do
		printf ' %8.3f (%5.2fx)' "$(cat "$W/$name.$mode")" \
			"$(echo "$(cat "$W/$name.$mode") / $(cat "$W/$name.native")" | bc -l)"
	done
	printf '   %5.2fx %5.2fx\n' \
		"$(echo "$(cat "$W/$name.data") / $(cat "$W/$name.plain")" | bc -l)" \
		"$(echo "$(cat "$W/$name.data-nofp") / $(cat "$W/$name.plain-nofp")" | bc -l)"
	printf '       trace bytes: plain %s, --data %s; kept: %s\n' \
		"$(stat -c %s "$W/$name.plain.iotape")" "$(stat -c %s "$W/$name.data.iotape")" \
		"$("$IOTAPE" check "$W/$name.data.iotape" | sed -n 's/^  data *//p' | head -1 |
			grep . || echo "no write moved bytes through memory")"
}

echo "record_data bench: median of $RUNS runs, alternated, seconds (ratio to native); $(nproc) CPUs, $(uname -r)"
printf '%-6s %8s %17s %17s %17s %17s   %s\n' case native record "--data" "--no-fastpath" \
	"--data --no-fp" "data/record (fast, nofp)"
case " $CASES " in *" cp "*) bench cp "rm -rf copy" "cp -a '$FS' copy" ;; esac
case " $CASES " in *" tar "*) bench tar "rm -f out.tar" "tar cf out.tar -C '$FS/..' fs" ;; esac
