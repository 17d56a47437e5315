#!/bin/sh
# clients.sh - many clients:
#  1. the client series: the bundled Mozilla-tree and mongo traces at
#     COUNTS clients (bench --clients) on CLIENTS_FS: calls/s, bytes/s and
#     p50/p99 per class against the number of clients;
#  2. the replayer's own cost: N clients of the Mozilla-tree trace
#     replayed on a tmpfs against N native copies of its workload
#     (traces/mozilla-workload.sh on the trace's starting tree) run side by
#     side on the same tmpfs, alternately, RUNS times each, medians: wall
#     time from the start to the last client's end, and the CPU time of
#     all (the replay's own cost per client = its CPU time less the
#     native one's, over N).
# Env: IOTAPE, BUILD (tests/bench/run.sh); BENCH_DIR (/var/tmp/iotape-bench),
# RUNS (3), COUNTS (1,2,4,8), CLIENTS_FS (tmpfs,ext4), SIDE (1 8; "" for none: the
# client counts of part 2), SERIES (mozilla mongo; "" for none), MONGO_RUNS (1) and
# MONGO_FS (tmpfs): the mongo trace is 7x the Mozilla one.
set -u
IOTAPE=${IOTAPE:-$PWD/${BUILD:-build}/iotape}
BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
RUNS=${RUNS:-3}
COUNTS=${COUNTS:-1,2,4,8}
CLIENTS_FS=${CLIENTS_FS:-tmpfs,ext4}
SIDE=${SIDE-1 8}
SERIES=${SERIES-mozilla mongo}
MONGO_RUNS=${MONGO_RUNS:-1}
MONGO_FS=${MONGO_FS:-tmpfs}
TRACES=$(cd "$(dirname "$0")/../../traces" && pwd)

[ -x "$IOTAPE" ] || { echo "clients bench: $IOTAPE not built"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "clients bench: needs root (tmpfs and loop mounts); skipped"; exit 0; }
mkdir -p "$BENCH_DIR" && W=$(mktemp -d "$BENCH_DIR/clients.XXXXXX") || exit 1
M=$W/m
cleanup() {
	mountpoint -q "$M" && umount "$M"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "machine: $(nproc) CPUs, shared with other work while this runs: figures are medians" \
	"of alternating runs, compare within a table only"

# ---- 1. the client series ----
for t in $SERIES; do
	runs=$RUNS fs=$CLIENTS_FS
	[ "$t" = mongo ] && runs=$MONGO_RUNS fs=$MONGO_FS
	printf '\n%s.iotape: bench --fs %s --clients %s --runs %s (recorded timing)\n' "$t" \
		"$fs" "$COUNTS" "$runs"
	"$IOTAPE" bench "$TRACES/$t.iotape" --fs "$fs" --clients "$COUNTS" --runs "$runs" \
		-o "$W/$t-out" --scratch "$W" -q >"$W/$t.diff" 2>"$W/$t.err" ||
		{ echo "  bench failed:"; tail -5 "$W/$t.err"; }
	sed -n '/^clients /,$p' "$W/$t.diff" | sed 's/^/  /'
	rm -rf "$W/$t-out"
done

# ---- 2. N clients replayed against N native copies ----
# The workload's input: the trace's own starting tree (fs/ of
# linux-source-6.1 as recorded: every entry, its size, in incompressible
# bytes), so the native copies and the replay start from the same tree.
echo
mkdir "$W/src"
"$IOTAPE" replay "$TRACES/mozilla.iotape" --root "$W/src" --prepare-only -q ||
	{ echo "side by side: cannot make the input tree"; exit 1; }
SRC=$W/src$("$IOTAPE" dump "$TRACES/mozilla.iotape" |
	sed -n 's/^# command *\[.*, "\(\/[^"]*\)", ".*/\1/p')
[ -d "$SRC" ] || { echo "side by side: no input tree at $SRC"; exit 1; }
mkdir "$M"
mount -t tmpfs -o size=20g tmpfs "$M" || { echo "side by side: cannot mount a tmpfs"; exit 1; }
med() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# native N - N copies of the workload side by side; "wall_s cpu_s"
native() {
	n=$1
	rm -rf "${M:?}"/*
	for i in $(seq "$n"); do cp -a "$SRC" "$M/src$i"; done
	sync
	/usr/bin/time -f '%e %U %S' -o "$W/time" sh -c '
		n=$1 m=$2 w=$3
		for i in $(seq "$n"); do sh "$w" "$m/src$i" "$m/work$i" & done
		wait' sh "$n" "$M" "$TRACES/mozilla-workload.sh" >/dev/null 2>&1
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$W/time"
}

# replayed N - N clients, trees made first; "wall_s cpu_s elapsed_s"
replayed() {
	n=$1
	rm -rf "${M:?}"/*
	mkdir "$M/r"
	"$IOTAPE" replay "$TRACES/mozilla.iotape" --root "$M/r" --clients "$n" --prepare-only -q ||
		return 1
	sync
	/usr/bin/time -f '%e %U %S' -o "$W/time" "$IOTAPE" replay "$TRACES/mozilla.iotape" \
		--root "$M/r" --clients "$n" --no-prepare -q -o "$W/side.prof" || return 1
	el=$("$IOTAPE" dump "$W/side.prof" | sed -n 's/^# replay.elapsed_ns *//p' | head -1)
	awk -v el="$el" '{ printf "%s %.2f %.3f\n", $1, $2 + $3, el / 1e9 }' "$W/time"
}

printf 'Mozilla-tree workload, N native copies vs N clients replayed, tmpfs, %s runs each, alternating\n' "$RUNS"
printf '  %2s %9s %9s %11s %9s %9s %8s %8s %10s\n' N "native s" "replay s" "(from start)" \
	"nat cpu" "rep cpu" "ratio" "cmd" "own cpu/cl"
for n in $SIDE; do
	: >"$W/nat" && : >"$W/rep"
	for r in $(seq "$RUNS"); do
		native "$n" >>"$W/nat"
		replayed "$n" >>"$W/rep" || echo "  replay --clients $n failed"
	done
	nw=$(awk '{ print $1 }' "$W/nat" | med) nc=$(awk '{ print $2 }' "$W/nat" | med)
	rw=$(awk '{ print $1 }' "$W/rep" | med) rc=$(awk '{ print $2 }' "$W/rep" | med)
	re=$(awk '{ print $3 }' "$W/rep" | med)
	echo "$n $nw $rw $re $nc $rc" | awk '{
		printf "  %2d %9.2f %9.2f %11.2f %9.2f %9.2f %7.0f%% %7.0f%% %10.3f\n", $1, $2, $3, $4,
			$5, $6, 100 * $2 / $4, 100 * $2 / $3, ($6 - $5) / $1 }'
	echo "     runs: native $(awk '{ printf "%s ", $1 }' "$W/nat")| replay $(awk '{ printf "%s ", $3 }' "$W/rep")"
done
echo "  ratio: native wall time / replay time from the clients' start (same calls: the"
echo "  replay's throughput as a share of the native one); cmd: the same for the whole"
echo "  command (replay s: planning the trace once, the clients' start, merging the"
echo "  profiles); own cpu/cl: (replay - native) CPU seconds per client"
