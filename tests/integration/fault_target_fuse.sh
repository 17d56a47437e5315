#!/bin/bash
# Faults of the filesystem under test from a FUSE filesystem built for the
# tests (tests/progs/faultfs.c: passes calls through to a backing dir and
# fails a chosen one after N):
# - EIO: the 21st write fails with EIO; the replay stops there, says
#   which call, path and error, exits 5, and its profile is accepted by
#   check and marked failed by check and report;
# - the target's process killed: here the process behind the filesystem
#   under test, the FUSE daemon, is SIGKILLed while a replay runs (the
#   replayer makes no processes of its own: its replayed processes are
#   threads of one iotape process, and a SIGKILL of that process leaves
#   nothing that could say anything).  Every call on the mount then gets
#   ENOTCONN: the replay stops at the first, exits 5 and marks its
#   profile failed.  Nothing stays mounted, no daemon stays running.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
need_iotape_cmd record
[ -e /dev/fuse ] || skip "no /dev/fuse (FUSE unavailable)"
FFS=$PROGS/faultfs
[ -x "$FFS" ] || fail "$FFS is not built (libfuse3-dev: tools/deps.sh check)"
. "$SRCDIR/tests/integration/fault_target_lib.sh"

# start_ffs DIR ARGS... - mount faultfs on DIR over DIR.back
start_ffs() {
	local d=$1 i; shift
	mkdir -p "$d" "$d.back"
	"$FFS" "$d.back" "$d" "$@" >"$d.log" 2>&1 &
	FFS_PID=$!
	FUSE_PIDS="$FFS_PID $FUSE_PIDS"
	MOUNTS="$d $MOUNTS"
	for i in $(seq 1 100); do
		grep -q " $d .* fuse.faultfs" /proc/self/mountinfo && return 0
		sleep 0.05
	done
	cat "$d.log"
	fail "faultfs did not mount on $d"
}

stop_ffs() {
	local d=$1
	umount "$d" 2>/dev/null || umount -l "$d"
	MOUNTS=""
	wait "$FFS_PID" 2>/dev/null
	not_mounted "$d"
	kill -0 "$FFS_PID" 2>/dev/null && fail "faultfs is still running"
	return 0
}

# --- EIO after 20 writes ------------------------------------------------
mk_writes w 30 8192 0
start_ffs "$T/eio" --fail write --after 20
replay_to p1 5 "$T/w.iotape" --root "$T/eio"
grep -Eq 'the filesystem under test failed: EIO at [0-9]+ % \(write [^ ]*/w/f[0-9]+ at [0-9.]+ s\): Input/output error' \
	"$T/p1.out" || fail "no message naming the write that got EIO"
grep -q "see 'dmesg'" "$T/p1.out" || fail "no word on what to do about EIO"
failed_profile "$T/p1.iotape" 'EIO at [0-9]+ %'
stop_ffs "$T/eio"

# --- the FUSE daemon killed ---------------------------------------------
mk_writes slow 40 100 0.1
start_ffs "$T/dead"
replay_bg p2 "$T/dead" "$T/dead.back$T/w"
kill -9 "$FFS_PID"
replay_wait p2 5 "the FUSE daemon died"
grep -Eq 'the filesystem under test failed: ENOTCONN at [0-9]+ % \([a-z0-9]+ [^ ]+ at [0-9.]+ s\): Transport endpoint is not connected' \
	"$T/p2.out" || fail "no message naming the ENOTCONN call"
grep -q 'FUSE daemon gone' "$T/p2.out" || fail "no word on what ENOTCONN means"
failed_profile "$T/p2.iotape" 'ENOTCONN at [0-9]+ %'
stop_ffs "$T/dead"
echo "ok"
