#!/bin/sh
# replay.sh - replayer figures:
#  1. cost per op: a loop of cheap syscalls (tests/progs/rpl_ops) run
#     natively vs its trace replayed --timing afap (best of 3 each); and
#     a fan-out, 400 threads waiting for one (tests/progs/pipe_fanout);
#  2. fidelity: cp -a, tar c, du, rm -rf of the kernel's fs/ tree, native
#     vs replayed (original timing, and afap) on the same filesystem from
#     the same starting tree, hot cache.
# Env: IOTAPE, BUILD (from tests/bench/run.sh); BENCH_DIR (default
# /var/tmp/iotape-bench), REPS (3).
set -u
IOTAPE=${IOTAPE:-$PWD/${BUILD:-build}/iotape}
PROGS=$(dirname "$IOTAPE")/tests/progs
BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
REPS=${REPS:-3}
KSRC=/usr/src/linux-source-6.1.tar.xz
SRC=$BENCH_DIR/linux-source-6.1/fs

[ -x "$IOTAPE" ] || { echo "replay bench: $IOTAPE not built"; exit 1; }
W=$(mktemp -d "$BENCH_DIR/replay.XXXXXX" 2>/dev/null) ||
	{ mkdir -p "$BENCH_DIR" && W=$(mktemp -d "$BENCH_DIR/replay.XXXXXX"); } || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

now() { date +%s%N; }
# elapsed_of PROFILE - replay.elapsed_ns from a profile's header
elapsed_of() { "$IOTAPE" dump "$1" | sed -n 's/^# replay.elapsed_ns *//p' | head -1; }
ops_of() { "$IOTAPE" dump --count "$1" 2>/dev/null | awk '$NF == "total" { print $4 }'; }
min() { sort -n | head -1; }
ms() { echo "$1" | awk '{ printf "%.1f", $1 / 1e6 }'; }

# ---- 1. cost per op ----
if [ -x "$PROGS/rpl_ops" ]; then
	N=${OPS_ITER:-20000}
	mkdir -p "$W/ops"
	nat=$(for i in $(seq "$REPS"); do
		"$PROGS/rpl_ops" "$W/ops" "$N" 2>&1 | sed -n 's/.*, \([0-9]*\) ns per syscall/\1/p'
	done | min)
	"$IOTAPE" record -q -o "$W/ops.iotape" -- "$PROGS/rpl_ops" "$W/ops" "$N" 2>/dev/null
	nops=$((N * 6))
	rep=$(for i in $(seq "$REPS"); do
		rm -rf "$W/r" && mkdir "$W/r"
		"$IOTAPE" replay "$W/ops.iotape" --root "$W/r" --timing afap -q -o "$W/ops.prof"
		elapsed_of "$W/ops.prof"
	done | min)
	per=$(echo "$rep $nops" | awk '{ printf "%.0f", $1 / ($2 + 120) }')
	echo "cost per op ($nops syscalls: pread, fstat, stat, lseek, open, close)"
	printf '  %-28s %8s ns/op\n' "native" "$nat" "replay --timing afap" "$per"
	echo "$per $nat" | awk '{ printf "  %-28s %8.0f ns/op (%.2fx)\n", "replay overhead", $1 - $2, $1 / $2 }'
	rm -rf "$W/r" "$W/ops"
fi

# ---- 1b. many threads waiting for one: a fan-out ----
if [ -x "$PROGS/pipe_fanout" ]; then
	mkdir -p "$W/fan"
	nat=$(for i in $(seq "$REPS"); do
		s=$(now); "$PROGS/pipe_fanout" 400 20 >/dev/null; e=$(now); echo $((e - s))
	done | min)
	"$IOTAPE" record -q -o "$W/fan.iotape" -- "$PROGS/pipe_fanout" 400 20 >/dev/null 2>&1
	rep=$(for i in $(seq "$REPS"); do
		rm -rf "$W/r" && mkdir "$W/r"
		"$IOTAPE" replay "$W/fan.iotape" --root "$W/r" --timing afap -q -o "$W/fan.prof"
		elapsed_of "$W/fan.prof"
	done | min)
	echo "fan-out (400 threads each reading its pipe, one writer, 20 rounds: 8,000 waits)"
	printf '  %-28s %8s ms\n' "native" "$(ms "$nat")" "replay --timing afap" "$(ms "$rep")"
	rm -rf "$W/r" "$W/fan"
fi

# ---- 2. fidelity on a real tree ----
if [ ! -d "$SRC" ]; then
	if [ -f "$KSRC" ]; then
		echo "extracting fs/ of $KSRC into $BENCH_DIR (once)"
		tar xJf "$KSRC" -C "$BENCH_DIR" linux-source-6.1/fs || exit 1
	else
		echo "fidelity: $KSRC not installed (apt-get install linux-source-6.1); skipped"
		exit 0
	fi
fi
tar cf /dev/null "$SRC"		# hot cache

# run NAME SETUP CMD... - native time (best of REPS), then record once and
# replay with original timing and afap into fresh roots.
printf '\nfidelity: %s (%s files), same filesystem, hot cache\n' "$SRC" \
	"$(find "$SRC" -type f | wc -l)"
printf '  %-8s %10s %12s %8s %12s %8s %9s\n' workload "native ms" "replay ms" ratio \
	"afap ms" ratio "ops"
run() {
	name=$1 setup=$2; shift 2
	nat=$(for i in $(seq "$REPS"); do
		rm -rf "$W/n" && mkdir "$W/n" && (cd "$W/n" && eval "$setup")
		t0=$(now); (cd "$W/n" && "$@" >/dev/null 2>&1); t1=$(now)
		echo $((t1 - t0))
	done | min)
	rm -rf "$W/n" && mkdir "$W/n" && (cd "$W/n" && eval "$setup")
	(cd "$W/n" && "$IOTAPE" record -q -o "$W/$name.iotape" -- "$@" >/dev/null 2>&1)
	for mode in original afap; do
		rm -rf "$W/root" && mkdir "$W/root"
		"$IOTAPE" replay "$W/$name.iotape" --root "$W/root" --timing $mode -q \
			-o "$W/$name.$mode.prof" || echo "  $name: replay failed"
	done
	rm -rf "$W/root" "$W/n"
	o=$(elapsed_of "$W/$name.original.prof")
	a=$(elapsed_of "$W/$name.afap.prof")
	printf '  %-8s %10s %12s %8s %12s %8s %9s\n' "$name" "$(ms "$nat")" "$(ms "$o")" \
		"$(echo "$o $nat" | awk '{ printf "%.2f", $1 / $2 }')" "$(ms "$a")" \
		"$(echo "$a $nat" | awk '{ printf "%.2f", $1 / $2 }')" "$(ops_of "$W/$name.iotape")"
}
run cp-a true cp -a "$SRC" dst
run tar-c true tar cf out.tar -C "$SRC" .
run du true du -s "$SRC"
run rm-rf "cp -a '$SRC' victim" rm -rf victim
echo "  (replay ms: replay.elapsed_ns of the profile; ratio: replay / native)"
