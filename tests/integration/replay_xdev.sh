#!/bin/bash
# replay_xdev.sh - a copy between two filesystems when recorded: the
# program (tests/progs/xdev_copy, as cat and cp do) asks copy_file_range,
# gets EXDEV, and copies with read and write.  Under the replay's root
# both files are on one filesystem, where the copy would work: made, it
# moved both offsets, the reads that follow returned 0 (mismatches) and
# the writes doubled the file.  The replay must not make it (skipped,
# "copy across filesystems when recorded"), and leave the file as long as
# the source, with no mismatch.  The same for a rename: 'mv' of a file
# to the other filesystem gets EXDEV from renameat2 and copies and
# unlinks instead; made in the replay, the rename moved the file, and the
# copy's open of the source failed.  Needs root (a tmpfs mounted for the
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
grep -q 'copy, rename or link across filesystems when recorded 1)' "$T/out" ||
	{ cat "$T/out"; fail "the summary does not count the copy not made"; }
size=$(stat -c %s "$T/root$S/dst") || fail "the replay made no $S/dst"
[ "$size" = 70000 ] || fail "$S/dst is $size bytes after the replay, the source 70000"
head -c 30000 /dev/urandom >"$T/msrc"
(cd "$S" && "$IOTAPE" record -q -o "$T/m.iotape" -- mv "$T/msrc" moved) || fail "record mv: exit $?"
"$IOTAPE" dump "$T/m.iotape" | grep -q 'rename.*= -1 EXDEV' ||
	fail "the trace of mv has no rename that failed with EXDEV"
# and mv's copy then tries copy_file_range, as cp does
n=$("$IOTAPE" dump "$T/m.iotape" | grep -cE '(rename[a-z0-9]*|copy_file_range)\(.*= -1 EXDEV')
mkdir "$T/mroot"
"$IOTAPE" replay "$T/m.iotape" --root "$T/mroot" --timing afap --verify >"$T/mout" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$T/mout"; fail "replay --verify of mv: exit $rc (4: results differ)"; }
grep -q "copy, rename or link across filesystems when recorded $n)" "$T/mout" ||
	{ cat "$T/mout"; fail "the summary does not count the $n calls not made (the rename, the copy)"; }
[ "$(stat -c %s "$T/mroot$S/moved" 2>/dev/null)" = 30000 ] ||
	fail "the replay of mv made no $S/moved of 30000 bytes"
[ ! -e "$T/mroot$T/msrc" ] || fail "the replay of mv left its source"
echo "ok: the copy and the rename that failed across filesystems were not made; dst 70000 bytes, moved 30000, 0 mismatches"
