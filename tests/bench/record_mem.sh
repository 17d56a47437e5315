#!/bin/sh
# record_mem.sh - the recorder's peak resident memory (/usr/bin/time %M)
# against the number of distinct paths a program names: tests/progs/
# rec_paths stat()s N new names under 1,000 directories (every 100th also
# created), recorded with each backend in BACKENDS; then a long run on few
# paths (N calls on 1,000 names), which must stay flat.  "B/path" is the
# growth from the previous row over the paths added: what the recorder
# keeps per path.  BASE (another iotape binary, e.g. main's) is measured
# too, alternately, in rows of its own.
# Env: IOTAPE, BUILD (from tests/bench/run.sh); PATHS (default
# "100000 1000000"; 5000000 and more take minutes each); FEW (default
# 1000000 calls); BACKENDS (default "ptrace bpf"; bpf needs root and BTF:
# skipped where it does not load); SCALE_DIR (default /var/tmp/iotape-bench).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$PWD/$BUILD/iotape}
PROG=$PWD/$BUILD/tests/progs/rec_paths
PATHS=${PATHS:-"100000 1000000"}
FEW=${FEW:-1000000}
BACKENDS=${BACKENDS:-"ptrace bpf"}
SCALE_DIR=${SCALE_DIR:-/var/tmp/iotape-bench}
BASE=${BASE:-}
[ -x "$IOTAPE" ] || { echo "record_mem bench: $IOTAPE not built"; exit 1; }
[ -x "$PROG" ] || make --no-print-directory BUILD="$BUILD" "$PROG" >/dev/null || exit 1
[ -x /usr/bin/time ] || { echo "record_mem bench: /usr/bin/time missing (apt-get install time)"; exit 1; }
mkdir -p "$SCALE_DIR" || exit 1
W=$(mktemp -d "$SCALE_DIR/recmem.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

# run BIN BACKEND CALLS DISTINCT - sets kib, secs, rc of one recording
run() {
	rm -rf "$W/t" "$W/x.iotape" && mkdir "$W/t"
	/usr/bin/time -o "$W/time" -f '%M %e' "$1" record -q --backend "$2" -o "$W/x.iotape" \
		-- "$PROG" "$W/t" "$3" "$4" >/dev/null 2>"$W/err"
	rc=$?
	set -- $(tail -n 1 "$W/time")
	kib=$1 secs=$2
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) (other work shares it)"
printf '%-7s %-6s %10s %10s %8s %8s %9s\n' binary backend calls paths MiB B/path "k calls/s"
for be in $BACKENDS; do
	if [ "$be" = bpf ]; then
		run "$IOTAPE" bpf 10 10
		[ $rc = 0 ] || { echo "bpf: does not load here ($(head -c 200 "$W/err")); skipped"; continue; }
	fi
	for bin in $BASE "$IOTAPE"; do
		name=new
		[ "$bin" = "$IOTAPE" ] || name=base
		prev_kib=0 prev_n=0
		for n in $PATHS; do
			run "$bin" "$be" "$n" "$n"
			[ $rc = 0 ] || { echo "$name $be $n: record failed ($rc): $(head -c 300 "$W/err")"; continue; }
			calls=$(( n + n / 100 * 2 ))
			bpp=-
			[ $prev_n = 0 ] || bpp=$(( (kib - prev_kib) * 1024 / (n - prev_n) ))
			printf '%-7s %-6s %10s %10s %8s %8s %9.0f\n' $name $be $calls $n $((kib / 1024)) \
				$bpp "$(echo "$calls / $secs / 1000" | bc -l)"
			prev_kib=$kib prev_n=$n
		done
		for c in 10000 $FEW; do
			run "$bin" "$be" "$c" 1000
			[ $rc = 0 ] || { echo "$name $be few: record failed ($rc)"; continue; }
			printf '%-7s %-6s %10s %10s %8s %8s %9.0f\n' $name $be $c 1000 $((kib / 1024)) - \
				"$(echo "$c / $secs / 1000" | bc -l)"
		done
	done
done
