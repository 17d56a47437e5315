#!/bin/bash
# record_map_tmpfs_remap.sh - a shared mapping of a tmpfs file grown page
# by page with Python's mmap.resize() (ftruncate, then mremap with
# MREMAP_MAYMOVE: the mapping moves), each new page written, msync'ed.
# Under bpf a tmpfs file's stores are seen only by the fault's address,
# looked up in the blocks noted at the mmap: those stayed at the old
# address, and 1 page written of 64 was recorded (64 under ptrace; on xfs
# all 64 under both, its faults naming the file).  Now the blocks follow
# the mremap, as the recorder follows the mapping.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
need_cmd python3
record_tmp maptmpfsremap
mkdir "$T/m"
mount -t tmpfs -o size=64m tmpfs "$T/m" || skip "cannot mount a tmpfs"
trap 'umount "$T/m"; rm -rf "$T"' EXIT
cat >"$T/m/g.py" <<'PY'
import mmap, os
fd = os.open("g", os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 4096)
m = mmap.mmap(fd, 4096)
m[0:5] = b"first"
for i in range(1, 64):
    m.resize(4096 * (i + 1))
    m[4096 * i:4096 * i + 5] = b"hello"
m.flush()
m.close()
os.close(fd)
PY
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -f "$T/m/g"
	(cd "$T/m" && "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- python3 g.py) \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep "mmap pages \"$T/m/g\"" >"$T/pages"
	written=$(sed -n 's/.*written \([0-9]*\) .*/\1/p' "$T/pages" | awk '{ s += $1 } END { print s + 0 }')
	[ "$written" = 64 ] ||
		fail "$b: $written pages written recorded through the moved mapping, not 64: $(cat "$T/pages")"
	echo "$b: $written pages written"
done
echo "ok: stores through a mapping that mremap moved are recorded"
