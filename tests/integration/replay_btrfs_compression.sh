#!/bin/bash
# replay_btrfs_compression.sh - btrfs's compression property set through
# its extended attribute (btrfs property set, setfattr -n
# btrfs.compression), then read back.  The value is not in the trace and
# the replay set the pattern's bytes of its size, which btrfs refuses
# (EINVAL), so the set and the reads after it differed (4 mismatches a
# replay of `btrfs property set z compression zstd` and a setfattr of
# lzo).  Now a set of btrfs.compression is given a value of its size that
# btrfs takes.  Replayed on tmpfs, which has no btrfs.* attributes
# (EOPNOTSUPP for each set and get), the same calls are capability
# probes, as a clone or a chattr +C there, not mismatches (8 a replay).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd python3
need_root_loop
tmp_dir /var/tmp/iotape-test
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
loop_fs btrfs 320M "$T/w"
cat >"$T/prop.py" <<'PY'
import os, sys
os.chdir(sys.argv[1])
os.mkdir("z")
open("f", "w").close()
for path, v in (("z", b"zstd"), ("f", b"lzo"), ("f", b"zstd:3"), ("z", b"no"), ("f", b"")):
    os.setxattr(path, "btrfs.compression", v)
    if v and os.getxattr(path, "btrfs.compression") != v:
        sys.exit(1)
with open("z/data", "w") as fh:
    fh.write("x" * 100000)
PY
"$IOTAPE" record -q -o "$T/t.iotape" -- python3 "$T/prop.py" "$T/w" || fail "record: exit $?"
loop_fs btrfs 320M "$T/r"
WHY="btrfs.compression set from the pattern's bytes" \
	replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: btrfs.compression set 5 times and read back, replayed on btrfs"
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || fail "cannot mount a tmpfs"
WHY="btrfs.* attributes refused by tmpfs counted as mismatches" \
	replay_clean "tmpfs" "$T/t.iotape" "$T/tmpfs" "$T/out2" --timing afap
grep -q "capability probes" "$T/out2" || fail "tmpfs: no capability probes counted: $(cat "$T/out2")"
echo "ok: replayed on tmpfs, the refused btrfs.* attributes counted as capability probes"
