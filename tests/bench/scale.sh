#!/bin/sh
# scale.sh - how iotape's commands grow with the length of a trace: traces
# of LENGTHS events made by tests/bench/longtrace from a recorded one (SRC,
# repeated with shifted times, pids and paths), and for each length the
# peak resident memory (/usr/bin/time %M) and the wall time of
# 'replay --timing afap' (with its time to the first call and its ops/s),
# 'report', 'dump', 'check', 'diff' (trace against profile) and 'export',
# then the format's bytes/event and decode speed (one core).
# Printed as one row per length: a flat column is what streaming means.
# "plan M ev/s" is the events over the time to the first call less the
# time preparing the tree took (reading and planning).
# Env: IOTAPE, BUILD (from tests/bench/run.sh); BASE (another iotape
# binary, e.g. main's: its replay is measured too, on the same traces,
# alternately with IOTAPE's, in a row of its own); SRC (default
# traces/mongo.iotape); LENGTHS (default "1000000 10000000": 100 M and 300 M
# take hours of replay on a 2-CPU machine, set them when you have them);
# SCALE_DIR (default /var/tmp/iotape-bench: traces and replay roots go
# there; each length needs about 120 bytes/event of disk while it runs);
# NO_REPLAY=1: no replay (its columns print "-", diff compares the trace
# with itself), so 100 M and 300 M take minutes, and ~6 bytes/event of
# disk.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$PWD/$BUILD/iotape}
GEN=$BUILD/tests/bench/longtrace
SRC=${SRC:-traces/mongo.iotape}
LENGTHS=${LENGTHS:-"1000000 10000000"}
SCALE_DIR=${SCALE_DIR:-/var/tmp/iotape-bench}
BASE=${BASE:-}
NO_REPLAY=${NO_REPLAY:-}
[ -x "$IOTAPE" ] || { echo "scale bench: $IOTAPE not built"; exit 1; }
[ -x "$GEN" ] || make --no-print-directory BUILD="$BUILD" "$GEN" >/dev/null || exit 1
[ -x /usr/bin/time ] || { echo "scale bench: /usr/bin/time missing (apt-get install time)"; exit 1; }
mkdir -p "$SCALE_DIR" || exit 1
W=$(mktemp -d "$SCALE_DIR/scale.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

# measure NAME CMD... - run CMD, keep its peak RSS (MiB) and wall seconds
measure() {
	name=$1; shift
	/usr/bin/time -o "$W/time" -f '%M %e' "$@" >/dev/null 2>"$W/$name.err"
	rc=$?
	set -- $(tail -n 1 "$W/time")
	eval "${name}_mib=\$(( \$1 / 1024 ))"
	eval "${name}_s=\$2"
	[ $rc = 0 ] || [ $rc = 4 ] || eval "${name}_mib=fail${rc}"
}
hdr() { "$IOTAPE" dump "$1" 2>/dev/null | sed -n "s/^# $2 *//p" | head -1; }

echo "source: $SRC, repeated (tests/bench/longtrace); replay root: $SCALE_DIR"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) (other work shares it)"
[ -z "$BASE" ] || echo "rows 'base': $BASE, replay only"
[ -z "$NO_REPLAY" ] || echo "NO_REPLAY: replay not run (its columns -, 0); diff: the trace with itself"
printf '%-6s | %-40s | %-11s | %-11s | %-11s | %-11s | %-11s | %-12s\n' "" \
	"replay afap" "report" "dump" "check" "diff" "export" "format"
printf '%-6s | %6s %6s %8s %8s %8s | %5s %5s | %5s %5s | %5s %5s | %5s %5s | %5s %5s | %5s %6s\n' \
	events MiB s "1st s" "plan M/s" "M ops/s" MiB s MiB s MiB s MiB s MiB s B/ev "M ev/s"
# replay_row BIN - replay $t with BIN; sets replay_mib, replay_s and the
# columns from its profile's header
replay_row() {
	rm -rf "$W/root" && mkdir "$W/root"
	measure replay "$1" replay "$t" --root "$W/root" --timing afap -q -o "$W/p.iotape"
	first=$(hdr "$W/p.iotape" replay.first_call_ns)
	prep=$(hdr "$W/p.iotape" replay.prepare_ns)
	el=$(hdr "$W/p.iotape" replay.elapsed_ns)
	rm -rf "$W/root"
	plan=$(echo "$n / ((${first:-0} - ${prep:-0}) / 1000) " | bc -l 2>/dev/null || echo 0)
}
label() { echo "$1" | awk '{ printf($1 >= 1e6 ? "%gM" : "%gk", $1 >= 1e6 ? $1 / 1e6 : $1 / 1e3) }'; }
for n in $LENGTHS; do
	t=$W/t.iotape
	"$GEN" -n "$n" "$SRC" "$t" || { echo "$n: longtrace failed"; continue; }
	if [ -n "$BASE" ] && [ -z "$NO_REPLAY" ]; then
		replay_row "$BASE"
		printf '%-6s | %6s %6s %8.2f %8.2f %8.3f | base\n' "$(label "$n")" "$replay_mib" \
			"$replay_s" "$(echo "${first:-0} / 1000000000" | bc -l)" "$plan" \
			"$(echo "$n / (${el:-1} / 1000) " | bc -l)"
		rm -f "$W/p.iotape"
	fi
	if [ -z "$NO_REPLAY" ]; then
		replay_row "$IOTAPE"
		prof=$W/p.iotape
		first_s=$(echo "${first:-0} / 1000000000" | bc -l)
		ops=$(echo "$n / (${el:-1} / 1000) " | bc -l)
	else
		replay_mib=- replay_s=- first_s=0 plan=0 ops=0 prof=$t
	fi
	measure report "$IOTAPE" report "$t"
	measure dump "$IOTAPE" dump "$t"
	measure check "$IOTAPE" check "$t"
	measure diff "$IOTAPE" diff "$t" "$prof"
	measure export "$IOTAPE" export "$t" --format chrome -o /dev/null
	fmt=$("$GEN" -d "$t")
	bpe=$(echo "$fmt" | sed -n 's/.*bytes_per_event=\([0-9.]*\).*/\1/p')
	dec=$(echo "$fmt" | sed -n 's/.*decode_events_per_s=\([0-9]*\).*/\1/p')
	printf '%-6s | %6s %6s %8.2f %8.2f %8.3f | %5s %5s | %5s %5s | %5s %5s | %5s %5s | %5s %5s | %5s %6.1f\n' \
		"$(label "$n")" \
		"$replay_mib" "$replay_s" "$first_s" "$plan" "$ops" \
		"$report_mib" "$report_s" "$dump_mib" "$dump_s" "$check_mib" "$check_s" \
		"$diff_mib" "$diff_s" "$export_mib" "$export_s" \
		"$bpe" "$(echo "${dec:-0} / 1000000" | bc -l)"
	rm -f "$t" "$W/p.iotape"
done
