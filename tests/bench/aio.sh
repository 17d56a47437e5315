#!/bin/sh
# aio.sh - asynchronous I/O figures:
#  1. recording cost of one write made as an io_uring submission (one SQE,
#     waited for in the same io_uring_enter) and as libaio's io_submit +
#     io_getevents, next to a plain pwrite (tests/progs/aio_ops): native,
#     `iotape record`, `iotape record --no-fastpath`, and `--backend bpf`
#     where it loads, ns per write;
#  2. fidelity: fio random writes (libaio and io_uring, iodepth 8 and 32,
#     O_DIRECT, 16 MiB in 4 KiB blocks) natively and replayed from their
#     trace, on fresh ext4, xfs and btrfs loop images (root only).
# Every mode's run i comes before any mode's run i+1, and medians are
# taken, so a slow spell of the (shared) machine falls on all columns.
# Env: IOTAPE, BUILD (from tests/bench/run.sh); BENCH_DIR (default
# /var/tmp/iotape-bench), REPS (5 for 1, 3 for 2), FS ("ext4 xfs btrfs");
# IOTAPE_BASE: another build's iotape, whose replays of the same trace
# alternate with IOTAPE's in 2 (its errors in two more columns: before
# and after a change, side by side).
set -u
IOTAPE=${IOTAPE:-$PWD/${BUILD:-build}/iotape}
PROGS=$(dirname "$IOTAPE")/tests/progs
BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
FS=${FS:-ext4 xfs btrfs}

[ -x "$IOTAPE" ] || { echo "aio bench: $IOTAPE not built"; exit 1; }
mkdir -p "$BENCH_DIR" || exit 1
W=$(mktemp -d "$BENCH_DIR/aio.XXXXXX") || exit 1
MNT=""
LOOP=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# spread: (max - min) / median, in %
spread() { sort -n | awk '{ v[NR] = $1 } END { if (NR && v[int((NR + 1) / 2)] > 0)
	printf "%.0f\n", (v[NR] - v[1]) * 100 / v[int((NR + 1) / 2)]; else print 0 }'; }
now() { date +%s%N; }

# ---- 1. cost of one write, three ways ----
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: read ratios)"
if [ -x "$PROGS/aio_ops" ]; then
	N=${AIO_N:-4000}
	REPS1=${REPS:-5}
	bpf=0
	"$IOTAPE" record -q --backend bpf -o "$W/t.iotape" -- true 2>/dev/null && bpf=1
	: >"$W/ops"
	for i in $(seq "$REPS1"); do
		"$PROGS/aio_ops" "$W/f" "$N" | sed 's/^/native /' >>"$W/ops"
		"$IOTAPE" record -q -o "$W/t.iotape" -- "$PROGS/aio_ops" "$W/f" "$N" |
			sed 's/^/fast /' >>"$W/ops"
		"$IOTAPE" record -q --no-fastpath -o "$W/t.iotape" -- "$PROGS/aio_ops" "$W/f" "$N" |
			sed 's/^/ptrace /' >>"$W/ops"
		[ $bpf = 1 ] && "$IOTAPE" record -q --backend bpf -o "$W/t.iotape" -- \
			"$PROGS/aio_ops" "$W/f" "$N" | sed 's/^/bpf /' >>"$W/ops"
	done
	echo "one 4 KiB write ($N each, median of $REPS1 alternating runs, ns per write)"
	printf '  %-10s %10s %16s %16s %16s %14s\n' "call" "native" "iotape record" "--no-fastpath" \
		"--backend bpf" "recorded-native"
	for how in pwrite io_uring libaio; do
		n=$(awk -v h=$how '$1 == "native" && $2 == h { print $3 }' "$W/ops" | med)
		f=$(awk -v h=$how '$1 == "fast" && $2 == h { print $3 }' "$W/ops" | med)
		p=$(awk -v h=$how '$1 == "ptrace" && $2 == h { print $3 }' "$W/ops" | med)
		b=$(awk -v h=$how '$1 == "bpf" && $2 == h { print $3 }' "$W/ops" | med)
		echo "$how $n $f $p ${b:-0}" | awk '{ printf "  %-10s %10d %9d (%4.1fx) %9d (%4.1fx) ",
			$1, $2, $3, $3 / $2, $4, $4 / $2
			if ($5) printf "%9d (%4.1fx)", $5, $5 / $2; else printf "%16s", "-"
			printf " %14d\n", $3 - $2 }'
	done
	rm -f "$W/f" "$W/t.iotape"
fi

# ---- 2. fio natively and replayed ----
if [ "$(id -u)" != 0 ] || ! command -v fio >/dev/null || ! [ -e /dev/loop-control ]; then
	echo "fio replay: needs root, fio and loop devices; skipped"
	exit 0
fi
REPS2=${REPS:-3}
SIZE=${AIO_SIZE:-16m}
elapsed_of() { "$IOTAPE" dump "$1" | sed -n 's/^# replay.elapsed_ns *//p' | head -1; }
fio_job() {	# dir engine depth: its I/O time (fio's job_runtime), ns
	fio --name=b --directory="$1" --filename=data --rw=randwrite --size="$SIZE" --bs=4k \
		--direct=1 --ioengine="$2" --iodepth="$3" --randrepeat=1 --output-format=json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["jobs"][0]["job_runtime"] * 1000000)'
}
# io_of PROFILE - from the first async call's entry to the last one's exit
# or the last completion reaped, if later (at the ring's close), ns
io_of() {
	"$IOTAPE" dump "$1" | awk '$3 ~ /^io_(setup|submit|getevents|pgetevents|uring_setup|uring_enter)\(/ {
		if (first == "") first = $2
		d = $NF; gsub(/[<>]/, "", d); if ($2 + d > last) last = $2 + d }
		($3 == "io_uring" || $3 == "aio") && $4 == "complete" && $2 > last { last = $2 }
		END { if (first != "") printf "%.0f\n", (last - first) * 1e9 }'
}
echo
echo "fio randwrite, $SIZE in 4 KiB, O_DIRECT: native vs replay (original timing), median of $REPS2 alternating runs"
echo "  whole: fio's process from exec to exit vs the replay's elapsed; I/O: fio's job_runtime vs"
echo "  the replay's first async call to the last call or completion; +-: (max - min) / median;"
echo "  in flight: mean requests in flight, recorded/replayed (the replay's summary, its last run)"
printf '  %-6s %-9s %5s %13s %13s %8s %13s %13s %8s  %s  %11s\n' fs engine depth "whole" "replay" "" "I/O" "replay" "" "async replayed" "in flight"
for fs in $FS; do
	command -v "mkfs.$fs" >/dev/null || { echo "  $fs: mkfs.$fs missing, skipped"; continue; }
	truncate -s 1g "$W/img" || continue
	case $fs in
	ext4) mkfs.ext4 -q -F "$W/img" ;;
	xfs) mkfs.xfs -q -f "$W/img" ;;
	btrfs) mkfs.btrfs -q -f "$W/img" >/dev/null ;;
	esac || { echo "  $fs: mkfs failed"; rm -f "$W/img"; continue; }
	LOOP=$(losetup -f --show "$W/img") || { rm -f "$W/img"; continue; }
	MNT=$W/mnt
	mkdir -p "$MNT"
	mount "$LOOP" "$MNT" || { losetup -d "$LOOP"; LOOP=""; MNT=""; continue; }
	for engine in libaio io_uring; do
		for depth in 8 32; do
			mkdir -p "$MNT/rec"
			"$IOTAPE" record -q -o "$W/fio.iotape" -- sh -c \
				"$(command -v fio) --name=b --directory=$MNT/rec --filename=data \
				--rw=randwrite --size=$SIZE --bs=4k --direct=1 --ioengine=$engine \
				--iodepth=$depth --randrepeat=1 --output=/dev/null" 2>/dev/null
			rm -rf "$MNT/rec"
			: >"$W/t"
			for i in $(seq "$REPS2"); do
				mkdir -p "$MNT/nat"
				sync
				t0=$(now)
				io=$(fio_job "$MNT/nat" "$engine" "$depth" 2>/dev/null)
				echo "native $(( $(now) - t0 ))" >>"$W/t"
				echo "nio $io" >>"$W/t"
				rm -rf "$MNT/nat" "$MNT/root"
				mkdir -p "$MNT/root"
				sync
				"$IOTAPE" replay "$W/fio.iotape" --root "$MNT/root" -o "$W/p.iotape" \
					>"$W/rep.out" 2>&1
				echo "replay $(elapsed_of "$W/p.iotape")" >>"$W/t"
				echo "rio $(io_of "$W/p.iotape")" >>"$W/t"
				rm -rf "$MNT/root"
				[ -n "${IOTAPE_BASE:-}" ] || continue
				mkdir -p "$MNT/root"
				sync
				"$IOTAPE_BASE" replay "$W/fio.iotape" --root "$MNT/root" -o "$W/p.iotape" \
					>/dev/null 2>&1
				echo "breplay $(elapsed_of "$W/p.iotape")" >>"$W/t"
				echo "brio $(io_of "$W/p.iotape")" >>"$W/t"
				rm -rf "$MNT/root"
			done
			n=$(awk '$1 == "native" { print $2 }' "$W/t" | med)
			r=$(awk '$1 == "replay" { print $2 }' "$W/t" | med)
			ni=$(awk '$1 == "nio" { print $2 }' "$W/t" | med)
			ri=$(awk '$1 == "rio" { print $2 }' "$W/t" | med)
			sn=$(awk '$1 == "native" { print $2 }' "$W/t" | spread)
			sr=$(awk '$1 == "replay" { print $2 }' "$W/t" | spread)
			sni=$(awk '$1 == "nio" { print $2 }' "$W/t" | spread)
			sri=$(awk '$1 == "rio" { print $2 }' "$W/t" | spread)
			base=""
			if [ -n "${IOTAPE_BASE:-}" ]; then
				br=$(awk '$1 == "breplay" { print $2 }' "$W/t" | med)
				bri=$(awk '$1 == "brio" { print $2 }' "$W/t" | med)
				base=$(echo "$n $br $ni $bri" | awk '{ printf "base: whole %+.1f%%, I/O %+.1f%%",
					($2 / $1 - 1) * 100, ($4 / $3 - 1) * 100 }')
			fi
			a=$(sed -n 's/^  async I\/O *\([0-9]* of [0-9]*\) requests replayed.*/\1/p' "$W/rep.out")
			# requests in flight, recorded/replayed (the last replay's summary)
			f=$(sed -n 's/^  in flight *\([0-9.]*\) requests recorded, \([0-9.]*\) replayed.*/\1\/\2/p' "$W/rep.out")
			echo "$fs $engine $depth $n $r $ni $ri $sn $sr $sni $sri" | awk -v a="$a" -v b="$base" -v f="${f:--}" '{
				printf "  %-6s %-9s %5d %6.3fs+-%3d%% %6.3fs+-%3d%% %+7.1f%% %6.3fs+-%3d%% %6.3fs+-%3d%% %+7.1f%%  %s  %11s  %s\n",
				$1, $2, $3, $4 / 1e9, $8, $5 / 1e9, $9, ($5 / $4 - 1) * 100,
				$6 / 1e9, $10, $7 / 1e9, $11, ($7 / $6 - 1) * 100, a, f, b }'
		done
	done
	umount "$MNT"
	MNT=""
	losetup -d "$LOOP"
	LOOP=""
	rm -f "$W/img"
done
