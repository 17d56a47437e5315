#!/bin/bash
# replay_falloc_emulated.sh - fallocate's collapse, insert and zero range,
# recorded on xfs, which has them, and replayed on tmpfs, which has none
# (EOPNOTSUPP; btrfs has no collapse nor insert).  The refused call is a
# capability probe, but the file kept its size and bytes, and the reads
# after it found another file (3 mismatches a replay of fallocate -c,
# -i, -z and a cat).  Where the filesystem refuses one that worked, the
# replay now moves the file's bytes as the call would have: 0 mismatches,
# the file of the recorded size.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd fallocate
need_cmd mkfs.xfs
need_root_loop
tmp_dir /var/tmp/iotape-test
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
loop_fs xfs 320M "$T/w"
head -c 1048576 /dev/urandom >"$T/w/f"
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 1
fallocate -c -o 131072 -l 65536 f
fallocate -i -o 0 -l 65536 f
fallocate -z -o 8192 -l 4096 f
fallocate -z -o 1048576 -l 65536 f
cat f >/dev/null
stat -c %s f >size
SH
"$IOTAPE" record -q -o "$T/t.iotape" -- sh "$T/cmd.sh" "$T/w" || fail "record: exit $?"
want=$(cat "$T/w/size")
[ "$want" = 1114112 ] || fail "the recorded run left a file of $want bytes, not 1114112"
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || fail "cannot mount a tmpfs"
WHY="collapse, insert or zero range refused by tmpfs left the file as it was" \
	replay_clean "tmpfs" "$T/t.iotape" "$T/tmpfs" "$T/out" --timing afap
got=$(stat -c %s "$T/tmpfs$T/w/f") || fail "the replayed file is not there"
[ "$got" = "$want" ] || fail "the replayed file has $got bytes, not $want"
grep -q "capability probes" "$T/out" || fail "no capability probes counted: $(cat "$T/out")"
echo "ok: collapse, insert and zero range refused by tmpfs made by moving bytes; 0 mismatches"
