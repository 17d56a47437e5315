#!/bin/bash
# replay_xdev.sh - a copy between two filesystems when recorded: the
# program (tests/progs/xdev_copy, as cat and cp do) asks copy_file_range,
# gets EXDEV, and copies with read and write.  Under the replay's root
# both files are on one filesystem, where the copy would work: made, it
# moved both offsets, the reads that follow returned 0 (mismatches) and
# the writes doubled the file.  The replay must not make it (skipped,
# "copy across filesystems when recorded"), and leave the file as long as
# the source, with no mismatch.  Needs root (a tmpfs mounted for the
# recording, apart from /var/tmp's filesystem).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_root
T=$(mktemp -d /var/tmp/iotape-xdev.XXXXXX)
S=$T/shm
mkdir "$S"
trap 'umount "$S" 2>/dev/null; rm -rf "$T"' EXIT
mount -t tmpfs -o size=16m tmpfs "$S" || fail "cannot mount a tmpfs on $S"
[ "$(stat -c %d "$T")" != "$(stat -c %d "$S")" ] || fail "$S is not a filesystem of its own"
head -c 70000 /dev/urandom >"$T/src"
out=$(cd "$S" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PROGS/xdev_copy" "$T/src" dst) ||
	fail "record: exit $?"
[ "$out" = "read and write" ] || fail "the program copied with $out, not read and write after EXDEV"
"$IOTAPE" dump "$T/t.iotape" | grep -q 'copy_file_range(.*= -1 EXDEV' ||
	fail "the trace has no copy_file_range that failed with EXDEV"
mkdir "$T/root"
"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap --verify >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$T/out"; fail "replay --verify: exit $rc (4: results differ)"; }
grep -q 'copy across filesystems when recorded 1)' "$T/out" ||
	{ cat "$T/out"; fail "the summary does not count the copy not made"; }
size=$(stat -c %s "$T/root$S/dst") || fail "the replay made no $S/dst"
[ "$size" = 70000 ] || fail "$S/dst is $size bytes after the replay, the source 70000"
echo "ok: the copy that failed across filesystems was not made; dst 70000 bytes, 0 mismatches"
