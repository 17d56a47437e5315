#!/bin/bash
# Faults of the filesystem under test, on a small tmpfs:
# - ENOSPC mid-replay: the replay stops at the first one (every thread
#   finishes its call), says which call, path and error at which point of
#   the trace, exits 5, and leaves a profile that check accepts and that
#   check and report mark failed; --on-error continue goes on, counts the
#   calls that failed so, and exits 0;
# - a starting tree that does not fit is an error (size needed and free,
#   exit 5), unless --sparse-prepare asks for sparse files;
# - mismatches that are no target faults above 1 % of the calls make the
#   summary say the timing may not be representative.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
need_iotape_cmd record
. "$SRCDIR/tests/integration/fault_target_lib.sh"

# 30 files of 1 MiB into an 8 MiB tmpfs
mk_writes full 30 1048576 0
M=$T/m8
mount_tmpfs "$M" 8m
replay_to p1 5 "$T/full.iotape" --root "$M"
grep -Eq 'the filesystem under test failed: ENOSPC at [0-9]+ % \((write|openat|close) [^ ]*/w/f[0-9]+ at [0-9.]+ s\): No space left on device' \
	"$T/p1.out" || fail "no message naming the call, path, errno and point of the trace"
grep -q 'every thread finished its call and stopped' "$T/p1.out" || fail "no word on the threads"
grep -q 'holds them, marked failed' "$T/p1.out" || fail "no word on the profile"
grep -q 'target faults 1' "$T/p1.out" || grep -q 'target faults [0-9]* (ENOSPC' "$T/p1.out" ||
	fail "the summary does not count the target faults"
failed_profile "$T/p1.iotape" 'ENOSPC at [0-9]+ %'
n_full=$("$IOTAPE" dump "$T/full.iotape" | grep -c ' = ')
n_p1=$("$IOTAPE" dump "$T/p1.iotape" | grep -c ' = ')
[ "$n_p1" -lt "$n_full" ] || fail "the profile holds all $n_full calls: it did not stop"

# the same with --on-error continue: counted, not stopped
umount_now "$M"; mount_tmpfs "$M" 8m
replay_to p2 0 "$T/full.iotape" --root "$M" --on-error continue
grep -Eq 'target faults [0-9]+ \(ENOSPC [0-9]+\): calls that failed .*\(--on-error continue\)' "$T/p2.out" ||
	fail "--on-error continue does not count the target faults in the summary"
"$IOTAPE" check "$T/p2.iotape" | grep -q 'target faults [0-9]* (ENOSPC' ||
	fail "check does not show the target faults of a continued replay"
"$IOTAPE" check "$T/p2.iotape" | grep -q 'FAILED' && fail "a continued replay is marked failed"
"$IOTAPE" report "$T/p2.iotape" | grep -q 'target faults: [0-9]* (ENOSPC' ||
	fail "report does not show the target faults"
umount_now "$M"

# a starting tree of 6 MiB onto a 4 MiB tmpfs: an error, or sparse on request
mkdir -p "$T/src"
head -c 6291456 /dev/urandom >"$T/src/big"
"$IOTAPE" record -q -o "$T/read.iotape" -- cat "$T/src/big" >/dev/null || fail "record cat failed"
M4=$T/m4
mount_tmpfs "$M4" 4m
replay_to p3 5 "$T/read.iotape" --root "$M4"
grep -Eq 'the starting tree of .* holds [0-9.]+ MiB of file data, the root has [0-9.]+ [KM]iB free .*--sparse-prepare' \
	"$T/p3.out" || fail "no message on a starting tree that does not fit"
[ -e "$T/p3.iotape" ] && fail "a profile was written although nothing was replayed"
replay_to p4 0 "$T/read.iotape" --root "$M4" --force --sparse-prepare
grep -q 'sparse .*--sparse-prepare' "$T/p4.out" || fail "the summary does not say the tree is sparse"
umount_now "$M4"

# mismatches that are no target faults: a replay without its starting tree
mkdir "$T/empty"
replay_to p5 0 "$T/read.iotape" --root "$T/empty" --no-prepare
grep -q 'timing may not be representative' "$T/p5.out" ||
	fail "a replay with many mismatches does not say its timing may not be representative"
replay_to p6 4 "$T/read.iotape" --root "$T/empty" --no-prepare --verify
not_mounted "$M"; not_mounted "$M4"
echo "ok"
