#!/bin/sh
# bench.sh - time cp -a and tar cf of a source tree natively, through the
# fast path, through plain seccomp+ptrace, and under strace; print medians.
#   record/fastpath/bench.sh [SRC [RUNS]]
# Needs `make -C record/fastpath` first.  Works in a tmpfs (/dev/shm) so the
# cache is hot and the disk plays no part.  Every traced variant runs with
# tracer and tracee pinned to CPU 0 (taskset), where a ptrace stop is
# cheapest.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=${BUILD:-$HERE/../../build-fp}/fastpath
SRC=${1:-/var/tmp/iotape-src/linux-source-6.1/fs}
RUNS=${2:-5}
W=${WORK:-/dev/shm/iotape-fp-bench}
[ -x "$B/fptrace" ] || { echo "bench.sh: $B/fptrace missing; run make -C $HERE" >&2; exit 1; }
[ -d "$SRC" ] || { echo "bench.sh: $SRC: no such directory" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W"
cp -a "$SRC" "$W/src"
PIN="taskset -c 0"

now() { date +%s%N; }

# run_one VARIANT WORKLOAD -> prints elapsed ns
run_one() {
	case $1 in
	native)	pre="" ;;
	fast)	pre="$PIN $B/fptrace -s $W/stats.$2 --" ;;
	ptrace)	pre="$PIN $B/fptrace -n -s $W/stats-n.$2 --" ;;
	strace)	pre="$PIN strace -f -ttt -T -o /dev/null" ;;
	esac
	rm -rf "$W/dst" "$W/t.tar"
	t0=$(now)
	case $2 in
	cp)	$pre cp -a "$W/src" "$W/dst" ;;
	tar)	$pre tar cf "$W/t.tar" -C "$W" src ;;
	esac
	t1=$(now)
	echo $((t1 - t0))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-7s %10s %8s\n' workload variant median_ms x_native
for w in cp tar; do
	base=""
	for v in native fast ptrace strace; do
		run_one $v $w >/dev/null	# warm-up
		i=0; : >"$W/times"
		while [ $i -lt "$RUNS" ]; do run_one $v $w >>"$W/times"; i=$((i + 1)); done
		m=$(median <"$W/times")
		[ -n "$base" ] || base=$m
		awk -v w=$w -v v=$v -v m=$m -v b=$base \
			'BEGIN {printf "%-8s %-7s %10.1f %8.2f\n", w, v, m / 1e6, m / b}'
	done
done
for w in cp tar; do
	echo "coverage $w (fast path on): $(head -1 "$W/stats.$w")"
	echo "coverage $w (no preload):   $(head -1 "$W/stats-n.$w")"
done
cp "$W"/stats.* "$W"/stats-n.* "$B/" 2>/dev/null || true
rm -rf "$W"
