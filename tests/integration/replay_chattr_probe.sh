#!/bin/bash
# replay_chattr_probe.sh - chattr +C (FS_IOC_SETFLAGS with FS_NOCOW_FL)
# recorded on btrfs and replayed on tmpfs, which has no such flag and
# refuses it (EOPNOTSUPP).  Whether a filesystem has a flag is its
# capability, as whether it clones or collapses a range: a capability
# probe, not a mismatch (it was one, 1 a replay, 3 in a recording of
# btrfs defragment with three chattr +C).  chattr +a, which tmpfs has,
# still replays and still counts if it differs.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd chattr
need_root_loop
tmp_dir /var/tmp/iotape-test
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
loop_fs btrfs 320M "$T/cow"
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || skip "cannot mount tmpfs"
mkdir "$T/tmpfs/nocow" && chattr +C "$T/tmpfs/nocow" 2>/dev/null &&
	skip "this tmpfs has chattr +C"
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 2
mkdir d && chattr +C d || exit 1
echo x >d/f && echo y >log || exit 1
chattr +a log && echo z >>log && chattr -a log && rm log
SH
(cd "$T/cow" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh "$T/cmd.sh" "$T/cow") ||
	fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" | grep -qE 'FS_IOC_SETFLAGS, \[0x8[0-9a-f]{5}\]\) = 0' ||
	fail "the trace does not hold chattr +C's FS_NOCOW_FL"
mkdir "$T/tmpfs/root"
WHY="FS_IOC_SETFLAGS refused as the filesystem has no such flag" \
	replay_clean "btrfs -> tmpfs" "$T/t.iotape" "$T/tmpfs/root" "$T/out" --timing afap
grep -qE 'capability probes differing.*: 1 \(ioctl 1 of' "$T/out" ||
	{ cat "$T/out"; fail "chattr +C refused by tmpfs is not counted as a capability probe"; }
echo "ok: chattr +C recorded on btrfs, refused on tmpfs: a capability probe, 0 mismatches"
