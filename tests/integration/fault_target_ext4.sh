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
M=$T/ext4
loop_fs ext4 16M "$M"
replay_to p1 5 "$T/full.iotape" --root "$M"
grep -Eq 'the filesystem under test failed: ENOSPC at [0-9]+ % \([a-z0-9_]+ [^ ]*/w/f[0-9]+ at [0-9.]+ s\): No space left on device' \
	"$T/p1.out" || fail "no message naming the ENOSPC call"
failed_profile "$T/p1.iotape" 'ENOSPC at [0-9]+ %'
"$IOTAPE" check "$T/p1.iotape" | grep -q 'target  *ext4' || fail "the profile does not name ext4"
loop_fs_drop "$M"
not_mounted "$M"
echo "ok"
