#!/bin/bash
# replay_bad_calls.sh - calls that failed on their arguments or were cut
# short by a signal (tests/progs/bad_calls.c; stress-ng's stressors make
# thousands) get the recorded answers when replayed.  Before:
# - an open of a FIFO and a lock's wait, interrupted by SIGALRM (EINTR;
#   ERESTARTSYS to the recorder), were made again, uninterrupted: the
#   open succeeded (a descriptor the program never had), and the lock was
#   granted or refused;
# - calls relative to a descriptor that was not open ("/?/NAME" in the
#   trace) failed with ENOENT, not EBADF;
# - F_DUPFD past the program's limit, utimensat with a bad flag or
#   nanoseconds, close_range(5, 2) succeeded; a setxattr of 65537 bytes
#   was made with 65536, which the kernel takes; an open refused by a
#   lease and a write and a fallocate past RLIMIT_FSIZE succeeded;
# - rmdir and link of the root, mkdir and rmdir of "sub/..", which name no
#   entry of a parent, failed with EINVAL (the replay's own refusal);
# - F_GETPIPE_SZ and F_SETPIPE_SZ were left out as unsupported;
# - openat2 with O_CREAT and unknown resolve bits (EINVAL) or a longer
#   struct open_how (E2BIG), whose trace keeps only its flags and mode,
#   succeeded: a file and a descriptor the program never had;
# - (2026-12-06, late night) access with a mode and faccessat2 with a
#   flag the kernel does not take, and an eventfd's write of ~0 (EINVAL),
#   succeeded; an open refused by RLIMIT_NOFILE (EMFILE) was made, and
#   succeeded, in the replay's one process that has no limit per
#   recorded process.
# Recorded with ptrace (fast path and not) and bpf where it loads: 0
# mismatches, the two interrupted calls counted as such and not made,
# and no fcntl left out but the two F_SETLEASE.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/bad_calls" ] || fail "$PROGS/bad_calls is not built (make tests)"
record_tmp badcalls

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/bad_calls" "$T/w" \
		>/dev/null 2>"$T/err" || fail "$b: recording bad_calls failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	cut=$(grep -cE ' = -1 (EINTR|ERESTART)' "$T/dump")
	[ "$cut" -ge 2 ] || fail "$b: $cut interrupted calls in the trace, not 2 or more (a wait4 too under ptrace, by the lease's SIGIO): $(grep -E 'EINTR|ERESTART' "$T/dump")"
	grep -q 'renameat(20001, "/?/a"' "$T/dump" || fail "$b: no renameat under the bad descriptor"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	grep -q 'interrupted by a signal when recorded (their time waited) 2[,)]' "$T/out" ||
		fail "$b: the two interrupted calls are not counted: $(grep '^  ops' "$T/out")"
	grep -q 'failed under a directory descriptor the recording did not know 3[,)]' "$T/out" ||
		fail "$b: the three calls under a bad descriptor are not counted: $(grep '^  ops' "$T/out")"
	# only the two F_SETLEASE: leases are not taken (their breaks would
	# signal the replayer)
	! grep '^  ops' "$T/out" | grep -v 'unsupported 2[,)]' | grep -q unsupported ||
		fail "$b: calls left out as unsupported: $(grep '^  ops' "$T/out")"
	# and the summary names them by call: what a user looks up
	grep -q '^  unsupported  2 calls the replay does not make.*: fcntl 2$' "$T/out" ||
		fail "$b: the calls left out are not named: $(grep '^  unsupported' "$T/out")"
	[ "$(grep -c 'F_SETLEASE' "$T/dump")" = 2 ] || fail "$b: not two F_SETLEASE in the trace"
	grep -q 'refused when recorded by a lease, a cached lookup, a file size or descriptor limit 4[,)]' "$T/out" ||
		fail "$b: the four refused calls are not counted: $(grep '^  ops' "$T/out")"
	echo "$b: 2 interrupted calls not made, 3 under a bad descriptor, 4 refused, 0 mismatches"
done
echo "ok: calls that failed on their arguments or by a signal replay with their answers"
