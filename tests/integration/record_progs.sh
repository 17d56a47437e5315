#!/bin/bash
# record_progs.sh - record the tiny programs of tests/progs/rec_*.c and
# compare what `iotape dump` prints with tests/data/record/*.expected
# (pids, times and the temp dir masked), or with the program's own count
# of what it did.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
in_scratch /tmp/iotape-rec
LC_ALL=C; export LC_ALL

# 1. descriptors and paths, line by line
mkdir fileops && cd fileops
timeout 30 "$IOTAPE" record -q -o ../fileops.iotape -- "$PROGS/rec_fileops" || fail "rec_fileops exit $?"
cd ..
events_from_dir fileops.iotape "$d/fileops" |
	sed 's/^\(getdents64(.*\)) = [0-9]*$/\1) = N/' >fileops.out
diff -u "$DATA/record/rec_fileops.expected" fileops.out || fail "rec_fileops: dump differs"
"$IOTAPE" dump fileops.iotape | grep -q -- '--- phase "done" ---' || fail "no phase mark"
# replayed: no mismatch, and the readahead made (not skipped)
mkdir fileops.root
replay_clean rec_fileops fileops.iotape "$d/fileops.root" fileops.replay -o fileops.prof
"$IOTAPE" dump fileops.prof | grep -E '^[0-9]+ +[0-9.]+ readahead\(5, 0, 4096\) = 0 <' |
	grep -vq "not replayed" || fail "rec_fileops: the readahead was not replayed"

# 2. fork, vfork, fork+exec, threads (order between processes varies: sorted)
mkdir procs && cd procs
timeout 30 "$IOTAPE" record -q -o ../procs.iotape -- "$PROGS/rec_procs" || fail "rec_procs exit $?"
cd ..
mask_dump procs.iotape "$d/procs" | sed "s|$PROGS|@PROGS@|g" | sort >procs.out
diff -u "$DATA/record/rec_procs.expected" procs.out || fail "rec_procs: dump differs"

# 3. a signal interrupts a blocking read; the handler still runs
timeout 30 "$IOTAPE" record -q -o sig.iotape -- "$PROGS/rec_sigread" || fail "rec_sigread exit $? (signal lost?)"
"$IOTAPE" dump sig.iotape | grep -Eq 'read\(3, \.\.\., 1\) = -1 (EINTR|ERESTARTSYS)' ||
	fail "no interrupted read in the trace"

# 4. execve from a non-leader thread while siblings write
mkdir te && cd te
# (a 64 MiB BPF ring, as record_bpf.sh: three threads write as fast as
# they can; a loss is said even with -q)
n=$(timeout 60 "$IOTAPE" record -q --bpf-ring-mb 64 -o ../te.iotape -- "$PROGS/rec_thread_exec" 3 2>../te.err) ||
	fail "rec_thread_exec exit $?"
cd ..
! grep -q dropped te.err || fail "rec_thread_exec: $(cat te.err)"
w=$("$IOTAPE" dump te.iotape | grep -c 'write(3, \.\.\., 1) = 1')
[ "$w" -le "$n" ] && [ "$n" -le $((w + 3)) ] || fail "thread exec: $w writes recorded, $n done"
"$IOTAPE" dump te.iotape | grep -q -- '--- exec .*"--after"\] (from thread [0-9]*) ---' ||
	fail "thread exec: no exec record with its old tid"

# 5. a fork storm of 200 processes
n=$(timeout 120 "$IOTAPE" record -q -o storm.iotape -- "$PROGS/rec_storm" 200) || fail "rec_storm exit $?"
p=$("$IOTAPE" dump storm.iotape | grep -c 'openat(AT_FDCWD, ".*/storm-probe", O_RDONLY) = -1 ENOENT')
e=$("$IOTAPE" dump storm.iotape | grep -c '+++ exited with 0 +++')
[ "$p" = "$n" ] || fail "storm: $p probes recorded, $n made"
[ "$e" = $((n + 1)) ] || fail "storm: $e exits recorded, $((n + 1)) expected"
echo "ok: fileops, procs, signal, thread exec ($w writes), storm ($n processes)"
