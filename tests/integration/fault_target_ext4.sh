#!/bin/bash
# ENOSPC mid-replay on a small loop ext4 (16 MiB, 30 MiB written): the
# replay stops at the first, says which call, path and error at which
# point of the trace, exits 5; its profile is accepted by check and
# marked failed by check and report; the image unmounts and its loop
# device detaches.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root_loop
need_cmd mkfs.ext4
need_iotape_cmd record
. "$SRCDIR/tests/integration/fault_target_lib.sh"

mk_writes full 30 1048576 0
truncate -s 16M "$T/ext4.img"
mkfs.ext4 -F -q "$T/ext4.img" || fail "mkfs.ext4 failed"
LOOPDEV=$(losetup --find --show "$T/ext4.img") || skip "no free loop device"
M=$T/ext4
mkdir "$M"
mount "$LOOPDEV" "$M" || fail "cannot mount $LOOPDEV"
MOUNTS="$M"
replay_to p1 5 "$T/full.iotape" --root "$M"
grep -Eq 'the filesystem under test failed: ENOSPC at [0-9]+ % \([a-z0-9_]+ [^ ]*/w/f[0-9]+ at [0-9.]+ s\): No space left on device' \
	"$T/p1.out" || fail "no message naming the ENOSPC call"
failed_profile "$T/p1.iotape" 'ENOSPC at [0-9]+ %'
"$IOTAPE" check "$T/p1.iotape" | grep -q 'target  *ext4' || fail "the profile does not name ext4"
umount_now "$M"
losetup -d "$LOOPDEV" || fail "cannot detach $LOOPDEV"
LOOPDEV=""
# this test's image only: other tests hold loop devices meanwhile
losetup -a | grep -q "$T/" && fail "a loop device is left: $(losetup -a | grep "$T/")"
echo "ok"
