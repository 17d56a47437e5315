#!/bin/bash
# EROFS and a lazy unmount under a running replay, on a tmpfs:
# - 'mount -o remount,ro' while a replay writes files one by one: the next
#   create gets EROFS; the replay stops there, says so, exits 5, and its
#   profile is accepted by check and marked failed by check and report;
# - 'umount -l' of the root's mount while a replay runs: no call fails
#   (the open root keeps the detached filesystem alive, and its calls
#   succeed on a tree nobody can see), so the replay watches what --root
#   leads to, stops when it leads elsewhere, says the root was unmounted,
#   exits 5 and marks its profile failed.  Nothing stays mounted.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
need_iotape_cmd record
. "$SRCDIR/tests/integration/fault_target_lib.sh"

# 40 small files, 0.1 s apart: replayed with -t raw (the recorded gaps),
# about 4 s, and no file is open for writing between two (a remount to
# read-only needs that)
mk_writes slow 40 100 0.1

# --- EROFS --------------------------------------------------------------
M=$T/ro
mount_tmpfs "$M" 16m
# once the replay has written its first files, make the mount read-only
replay_bg p1 "$M"
ro=0
for i in $(seq 1 100); do
	mount -o remount,ro "$M" 2>/dev/null && { ro=1; break; }
	sleep 0.02
done
[ $ro = 1 ] || fail "could not remount $M read-only"
replay_wait p1 5 "the remount to read-only"
grep -Eq 'the filesystem under test failed: EROFS at [0-9]+ % \([a-z0-9]+ [^ ]*/w/f[0-9]+ at [0-9.]+ s\): Read-only file system' \
	"$T/p1.out" || fail "no message naming the EROFS call"
grep -q 'became read-only' "$T/p1.out" || fail "no word on what EROFS means"
failed_profile "$T/p1.iotape" 'EROFS at [0-9]+ %'
umount_now "$M"

# --- umount -l ----------------------------------------------------------
M=$T/lazy
mount_tmpfs "$M" 16m
replay_bg p2 "$M"
umount -l "$M" || fail "umount -l failed"
MOUNTS=""
not_mounted "$M"
replay_wait p2 5 "umount -l"
grep -Eq 'the filesystem under test failed: unmounted at [0-9]+ % \(the root .* was detached [0-9.]+ s into the replay\)' \
	"$T/p2.out" || fail "no message saying the root was unmounted"
grep -q 'keep it mounted' "$T/p2.out" || fail "no word on what to do"
failed_profile "$T/p2.iotape" 'unmounted at [0-9]+ %'
not_mounted "$M"
echo "ok"
