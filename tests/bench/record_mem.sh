#!/bin/sh
# record_mem.sh - the recorder's peak resident memory (/usr/bin/time %M)
# against the number of distinct paths a program names: tests/progs/
# rec_paths stat()s N new names under 1,000 directories (every 100th also
# created; mode "stat"), or makes N files there, opening each, keeping the
# last 64 descriptors open (mode "open"), recorded with each backend in
# BACKENDS; then a long run on few paths (N calls on 1,000 names), which
# must stay flat.  "B/path" is the growth from the previous row over the
# paths added: what the recorder keeps per path.  "trace" is the trace's
# size, "again" the states taken again of paths the set had forgotten
# (its cap, --path-set-mb, default 64 MiB), "us/call" the CPU time of the
# recording (recorder and program) per call.  BASE (another iotape
# binary, e.g. main's) is measured too, alternately, in rows of its own.
# Env: IOTAPE, BUILD (from tests/bench/run.sh); PATHS (default
# "100000 1000000 5000000": past the default cap's ~3 M paths at the last;
# 5 M takes a minute or two a row, more takes longer); MODES (default
# "stat open"); OPEN_MAX (default 1000000: the open mode's largest N, a
# file made per path); FEW (default 1000000 calls); BACKENDS (default "ptrace
# bpf"; bpf needs root and BTF: skipped where it does not load);
# SCALE_DIR (default /var/tmp/iotape-bench); ARGS (more record options).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$PWD/$BUILD/iotape}
PROG=$PWD/$BUILD/tests/progs/rec_paths
PATHS=${PATHS:-"100000 1000000 5000000"}
OPEN_MAX=${OPEN_MAX:-1000000}
MODES=${MODES:-"stat open"}
FEW=${FEW:-1000000}
BACKENDS=${BACKENDS:-"ptrace bpf"}
SCALE_DIR=${SCALE_DIR:-/var/tmp/iotape-bench}
BASE=${BASE:-}
ARGS=${ARGS:-}
[ -x "$IOTAPE" ] || { echo "record_mem bench: $IOTAPE not built"; exit 1; }
[ -x "$PROG" ] || make --no-print-directory BUILD="$BUILD" "$PROG" >/dev/null || exit 1
[ -x /usr/bin/time ] || { echo "record_mem bench: /usr/bin/time missing (apt-get install time)"; exit 1; }
mkdir -p "$SCALE_DIR" || exit 1
W=$(mktemp -d "$SCALE_DIR/recmem.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

# run BIN BACKEND CALLS DISTINCT MODE - sets kib, cpu, rc, calls, size,
# again of one recording
run() {
	rm -rf "$W/t" "$W/x.iotape" && mkdir "$W/t"
	/usr/bin/time -o "$W/time" -f '%M %U %S' "$1" record --backend "$2" $ARGS \
		-o "$W/x.iotape" -- "$PROG" "$W/t" "$3" "$4" "$5" >"$W/out" 2>"$W/err"
	rc=$?
	set -- $(tail -n 1 "$W/time")
	kib=$1 cpu=$(echo "$2 + $3" | bc -l)
	calls=$(tail -n 1 "$W/out")
	size=$(stat -c %s "$W/x.iotape" 2>/dev/null || echo 0)
	again=$(sed -n -e 's/.* \([0-9]*\) states were taken again.*/\1/p' \
		-e 's/.* \([0-9]*\) states were taken of paths it could not keep.*/\1/p' "$W/err")
	again=${again:-0}
}

# row NAME BACKEND MODE PATHS PREV_KIB PREV_N
row() {
	bpp=-
	[ "$6" = 0 ] || bpp=$(( (kib - $5) * 1024 / ($4 - $6) ))
	printf '%-5s %-6s %-5s %10s %9s %7s %7s %8.1f %8s %8.2f\n' "$1" "$2" "$3" "$calls" "$4" \
		$((kib / 1024)) "$bpp" "$(echo "$size / 1048576" | bc -l)" "$again" \
		"$(echo "$cpu * 1000000 / $calls" | bc -l)"
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) (other work shares it)"
printf '%-5s %-6s %-5s %10s %9s %7s %7s %8s %8s %8s\n' binary backend mode calls paths \
	"RSS MiB" B/path "trace MiB" again us/call
for be in $BACKENDS; do
	if [ "$be" = bpf ]; then
		run "$IOTAPE" bpf 10 10 stat
		[ $rc = 0 ] || { echo "bpf: does not load here ($(head -c 200 "$W/err")); skipped"; continue; }
	fi
	for mode in $MODES; do
		prev_base=0 prev_new=0 prev_n=0
		for n in $PATHS; do
			[ $mode = open ] && [ $n -gt $OPEN_MAX ] && continue
			for bin in $BASE "$IOTAPE"; do
				name=new
				[ "$bin" = "$IOTAPE" ] || name=base
				run "$bin" "$be" "$n" "$n" "$mode"
				[ $rc = 0 ] || { echo "$name $be $mode $n: record failed ($rc): $(head -c 300 "$W/err")"; continue; }
				if [ $name = base ]; then
					row $name $be $mode $n $prev_base $prev_n
					prev_base=$kib
				else
					row $name $be $mode $n $prev_new $prev_n
					prev_new=$kib
				fi
			done
			prev_n=$n
		done
	done
	for c in 10000 $FEW; do
		for bin in $BASE "$IOTAPE"; do
			name=new
			[ "$bin" = "$IOTAPE" ] || name=base
			run "$bin" "$be" "$c" 1000 stat
			[ $rc = 0 ] || { echo "$name $be few: record failed ($rc)"; continue; }
			row $name $be few 1000 0 0
		done
	done
done
