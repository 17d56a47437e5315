#!/bin/bash
# record_close_race.sh - a descriptor's number taken by another thread's
# open while the close that freed it has not returned.  The kernel frees
# the number early in close(); tests/progs/close_race's second thread
# opens a directory 20,000 times and stats a file through it while the
# first opens and closes a file as often.  The ptrace recorder forgot a
# closed descriptor's file at the close's exit stop, which can come after
# the open's, and so forgot the directory the open had just given the
# number: 274 stats of 20,000 recorded under no directory ("/?/g"), and
# replayed as ENOENT, until 2026-12-07 (a Go test's unlinkat()s through
# such a descriptor, 6 mismatches and 3 after them).  Go and static
# programs make their calls without libc, so ptrace without the fast path
# records them: recorded so, and replayed (the close ordered from its
# entry where threads share the table: 1 EBADF before).  bpf and the fast
# path (mixed) take the threads' calls in the order they ended or began,
# not in the order they changed the table: a stat taken after the other
# thread's open of its number was recorded under that open's file, or
# under none (mixed: 0-7 of 20,000 a recording, bpf 0-2); each number now
# keeps the files it had with their times (record/proc.c,
# rec_fd_path_at()).  Run with all three, bpf's where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
[ -x "$PROGS/close_race" ] || fail "$PROGS/close_race is not built (make tests)"
tmp_dir /var/tmp/iotape-test
N=20000
backends="ptrace"
! bpf_loads "$T" || backends="ptrace bpf mixed"
for n in $backends; do
	b=$n
	[ "$n" = ptrace ] && b="ptrace --no-fastpath"
	mkdir -p "$T/$n/w/d" "$T/$n/r"
	touch "$T/$n/w/f" "$T/$n/w/d/g"
	# shellcheck disable=SC2086
	# (a 64 MiB BPF ring: a sanitizer build's recorder under a check's
	# load fell 35,044 events behind the two threads in the 8 MiB one,
	# counted and said; the opens lost left stats under no directory)
	"$IOTAPE" record -q --bpf-ring-mb 64 --backend $b -o "$T/$n/t.iotape" -- \
		"$PROGS/close_race" "$T/$n/w" $N 2>"$T/$n/err" || fail "$b: record: exit $?"
	! grep -q dropped "$T/$n/err" || fail "$b: $(cat "$T/$n/err")"
	"$IOTAPE" dump "$T/$n/t.iotape" >"$T/$n/dump"
	lost=$(grep -c '/?/' "$T/$n/dump")
	ok=$(grep -cE "fstatat\([0-9]+, \"$T/$n/w/d/g\", .*\) = 0" "$T/$n/dump")
	[ "$lost" = 0 ] || { grep '/?/' "$T/$n/dump" | head -5; fail "$b: $lost calls recorded under no directory"; }
	[ "$ok" = $N ] || fail "$b: $ok stats of d/g through the directory's descriptor recorded, not $N"
	echo "ok ($b): $N stats through a directory whose number a close had freed, each under its directory"
	replay_clean "$b" "$T/$n/t.iotape" "$T/$n/r" "$T/$n/out" --timing afap
	echo "ok ($b): replayed with 0 mismatches"
done
