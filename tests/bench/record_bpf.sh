#!/bin/bash
# record_bpf.sh - what each recording backend costs, side by side: the
# program alone, `iotape record --backend bpf`, `--backend mixed` (BPF
# and the in-process fast path), `--backend ptrace` (ptrace + seccomp +
# the fast path) and `strace -f -ttt -T -o FILE`, median of RUNS runs,
# every mode's run i
# before any mode's run i+1 (a slow spell of the machine falls on all
# columns).  Cases:
#   make    make -j2 of a 40-file C project
#   spawn   400 program starts: sh -c 'for i in $(seq 400); do /bin/true; done'
#   bbcp    a statically linked busybox cp -a of a 3,500-entry tree
#   cp      cp -a of the same tree        tar   tar cf of it
#   calls   200,000 fstatat() of one file by one dynamically linked
#           program: the cost per call of BPF against the in-process fast
#           path (--backend ptrace logs every one of them in-process)
#   fdcalls 200,000 lseek() of one descriptor: the same for a call that
#           names no path (the fast path lstat()s no path for it)
#   mapread 64 rounds of a program mapping a 32 MiB file (on /var/tmp:
#           ext4, where faults go through the page cache's tracepoints;
#           cached) and touching each page: ~32,800 page faults (each
#           maps 16 pages: fault-around), what the bpf backend's
#           mapped-page programs cost per fault
#   fioaio  fio ioengine=libaio, 16 MiB of random 4 KiB writes at iodepth
#           8 (4,096 requests: io_submit and io_getevents stop under
#           ptrace, with or without the fast path; bpf reads their iocbs
#           and io_events with no stop)
#   postmark  the fidelity suite's postmark (tests/validate/postmark.sh:
#           4,000 files, 40,000 create/delete/read/append transactions,
#           ~340,000 small calls of one thread, 48,000 of them unlink or
#           open(O_TRUNC), which the bpf backend's guard stops)
# All on tmpfs (/dev/shm), hot cache.  Each case gives two rows: wall
# time, and CPU time (user + system of everything: program, recorder,
# strace), which a machine loaded by others disturbs less.  Skipped with
# the reason when the bpf backend does not load here.
#   RUNS=5  CASES="make spawn bbcp cp tar calls fdcalls mapread fioaio postmark"  MODES="native bpf mixed ptrace strace"
#   (and auto: the default, bpf where it loads, its BPF programs loaded
#   before the program starts rather than beside its start)
# Against another build: IOTAPE_BASE=PATH/iotape and modes ending in .base
# (bpf.base, mixed.base, ptrace.base) record with it, in the same rounds:
#   IOTAPE_BASE=../old/build/iotape MODES="native bpf.base bpf mixed.base mixed"
set -u
cd "$(dirname "$0")/../.."
SRC=$PWD
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$SRC/$BUILD/iotape}
RUNS=${RUNS:-5}
CASES=${CASES:-make spawn bbcp cp tar calls fdcalls mapread fioaio postmark}
TMPW=${TMPW:-/dev/shm}
export LC_ALL=C

[ -x "$IOTAPE" ] || { echo "record_bpf bench: $IOTAPE not built"; exit 1; }
for c in strace busybox bc postmark; do
	command -v $c >/dev/null || { echo "record_bpf bench: $c not installed; skipped"; exit 0; }
done
W=$(mktemp -d "$TMPW/iotape-bpfbench.XXXXXX")
MW=$(mktemp -d /var/tmp/iotape-bpfbench.XXXXXX)
trap 'rm -rf "$W" "$MW"' EXIT
"$IOTAPE" record -q --backend bpf -o "$W/probe.iotape" -- true 2>"$W/probe.err" ||
	{ echo "record_bpf bench: skipped: $(cat "$W/probe.err")"; exit 0; }

# the tree: 100 directories of 34 files (0-8 KiB) and a symlink each
mkdir "$W/tree"
for i in $(seq 100); do
	mkdir "$W/tree/d$i"
	for j in $(seq 34); do
		head -c $(( (i * 131 + j * 977) % 8192 )) /dev/zero >"$W/tree/d$i/f$j"
	done
	ln -s f1 "$W/tree/d$i/l"
done
# the project: 40 small C files
mkdir "$W/proj"
for i in $(seq 40); do
	printf '#include <stdio.h>\n#include <string.h>\nint f%d(const char *s) { return (int)strlen(s) + %d; }\n' \
		"$i" "$i" >"$W/proj/f$i.c"
done
printf 'int main(void) { return 0; }\n' >"$W/proj/main.c"
printf 'OBJ := $(patsubst %%.c,%%.o,$(wildcard *.c))\nprog: $(OBJ)\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n' \
	>"$W/proj/Makefile"
printf '#include <fcntl.h>\n#include <stdlib.h>\n#include <sys/stat.h>\nint main(int c, char **v) { struct stat sb; for (int i = atoi(v[1]); i > 0; i--) fstatat(AT_FDCWD, v[2], &sb, 0); return 0; }\n' \
	>"$W/calls.c" && cc -O2 -o "$W/calls" "$W/calls.c" || { echo "record_bpf bench: cc failed"; exit 1; }
printf '#include <fcntl.h>\n#include <stdlib.h>\n#include <unistd.h>\nint main(int c, char **v) { int fd = open(v[2], O_RDONLY); for (int i = atoi(v[1]); i > 0; i--) lseek(fd, 0, SEEK_SET); return 0; }\n' \
	>"$W/fdcalls.c" && cc -O2 -o "$W/fdcalls" "$W/fdcalls.c" || { echo "record_bpf bench: cc failed"; exit 1; }
printf '#include <fcntl.h>\n#include <stdlib.h>\n#include <sys/mman.h>\n#include <unistd.h>\nint main(int c, char **v) { int fd = open(v[2], O_RDONLY); off_t n = lseek(fd, 0, SEEK_END); long s = 0; for (int r = atoi(v[1]); r > 0; r--) { volatile char *m = mmap(0, n, PROT_READ, MAP_SHARED, fd, 0); if (m == MAP_FAILED) return 1; for (off_t i = 0; i < n; i += 4096) s += m[i]; munmap((void *)m, n); } return s == 1; }\n' \
	>"$W/mapread.c" && cc -O2 -o "$W/mapread" "$W/mapread.c" || { echo "record_bpf bench: cc failed"; exit 1; }
head -c 32M /dev/urandom >"$MW/map"
BB=$(command -v busybox)
file -L "$BB" 2>/dev/null | grep -q 'statically linked' || echo "note: $BB is not statically linked"

# time_one CMD... - "wall cpu" seconds of one run, to the millisecond
# (/usr/bin/time gives hundredths: tar's 0.02 s of CPU was 2 or 3 of them)
time_one() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$( { time "$@" >/dev/null 2>"$W/err"; } 2>&1) ||
		echo "FAILED: $* ($(tail -1 "$W/err"))" >&2
	echo "$t" | awk '{ printf "%s %.3f\n", $1, $2 + $3 }'
}

. "$SRC/tests/bench/lib.sh"	# median

MODES=${MODES:-native bpf mixed ptrace strace}
bench() {
	local name=$1 prep=$2 work=$3 mode i t
	for mode in $MODES; do : >"$W/$name.$mode.all"; done
	for i in $(seq 1 "$RUNS"); do
		for mode in $MODES; do
			(cd "$W" && eval "$prep") >/dev/null 2>&1
			case $mode in
			native) t=$(cd "$W" && time_one sh -c "$work") ;;
			bpf|mixed|ptrace|auto) t=$(cd "$W" && time_one "$IOTAPE" record -q --backend $mode \
				-o "$W/t.iotape" -- sh -c "$work") ;;
			*.base) t=$(cd "$W" && time_one "$IOTAPE_BASE" record -q --backend ${mode%.base} \
				-o "$W/t.iotape" -- sh -c "$work") ;;
			strace) t=$(cd "$W" && time_one strace -f -ttt -T -o "$W/t.strace" sh -c "$work") ;;
			esac
			echo "$t" >>"$W/$name.$mode.all"
		done
	done
	for mode in $MODES; do
		cut -d' ' -f1 "$W/$name.$mode.all" | median >"$W/$name.$mode"
		cut -d' ' -f2 "$W/$name.$mode.all" | median >"$W/$name.$mode.cpu"
	done
	row "$name" ""
	row "$name" .cpu
}

# row NAME SUFFIX - one line of medians and ratios to native
row() {
	local n=$1 x=$2 mode
	printf '%-10s %8.3f' "$n${x:+ cpu}" "$(cat "$W/$n.native$x")"
	for mode in $MODES; do
		[ $mode = native ] && continue
		printf ' %8.3f (%5.2fx)' "$(cat "$W/$n.$mode$x")" \
			"$(awk -v m="$(cat "$W/$n.$mode$x")" -v b="$(cat "$W/$n.native$x")" \
				'BEGIN { print (b > 0 ? m / b : 0) }')"
	done
	echo
}

echo "record_bpf bench: median of $RUNS runs, seconds (ratio to native); $(nproc) CPUs," \
	"$(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %8s' case native
for m in $MODES; do [ $m = native ] || printf ' %17s' "$m"; done
echo
for c in $CASES; do
	case $c in
	make)  bench make "make -s -C proj clean 2>/dev/null; rm -f proj/*.o proj/prog" "make -s -C proj -j2" ;;
	spawn) bench spawn true 'for i in $(seq 400); do /bin/true; done' ;;
	bbcp)  bench bbcp "rm -rf copy" "$BB cp -a tree copy" ;;
	cp)    bench cp "rm -rf copy" "cp -a tree copy" ;;
	tar)   bench tar "rm -f out.tar" "tar cf out.tar tree" ;;
	calls) bench calls true "./calls 200000 tree/d1/f1" ;;
	fdcalls) bench fdcalls true "./fdcalls 200000 tree/d1/f1" ;;
	mapread) bench mapread true "./mapread 64 $MW/map" ;;
	fioaio) command -v fio >/dev/null || { echo "fioaio: fio not installed; skipped"; continue; }
		bench fioaio "rm -f fio.dat" "fio --name=t --filename=fio.dat --rw=randwrite --size=16m \
			--bs=4k --iodepth=8 --ioengine=libaio --output=/dev/null" ;;
	postmark) bench postmark "rm -rf pm; mkdir pm" \
		"printf 'set location pm\\nset number 4000\\nset transactions 40000\\nset size 500 9000\\nset subdirectories 10\\nset seed 42\\nrun\\nquit\\n' | postmark" ;;
	esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
