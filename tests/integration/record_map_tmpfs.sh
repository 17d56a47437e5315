#!/bin/bash
# record_map_tmpfs.sh - pages written through a shared mapping of a tmpfs
# file, then msync'ed and unmapped, under ptrace.  The recorder tells a
# written page by its dirty flag in the page cache, and a tmpfs file's
# pages stay dirty (nothing writes them back): every page of the mapping
# counted as written again at the munmap after the msync (2,048 written
# pages recorded as 4,096), and pages only read counted as written; under
# bpf none of the 1,024 pages written after a read counted.  Now
# each counts once per mapping, the record says reads were not told from
# writes, and the summary says how many pages that was.  bpf too: a store
# after a read fault makes no fault there (the page is mapped writable at
# once), so its programs saw none of the writes of a page read first.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
need_cmd python3
record_tmp maptmpfs
mkdir "$T/m"
mount -t tmpfs -o size=64m tmpfs "$T/m" || skip "cannot mount a tmpfs"
trap 'umount "$T/m"; rm -rf "$T"' EXIT
cat >"$T/m/w.py" <<'PY'
import mmap, os
fd = os.open("f", os.O_RDWR)
m = mmap.mmap(fd, 8 << 20)
x = 0
for i in range(0, 8 << 20, 4096):   # every page read
    x += m[i]
for i in range(0, 4 << 20, 4096):   # then the first half written
    m[i:i+8] = b"abcdefgh"
m.flush()
m.close()
os.close(fd)
PY
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -f "$T/m/f"
	head -c 8M /dev/urandom >"$T/m/f"	# its pages in the page cache, dirty
	(cd "$T/m" && "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- python3 w.py) \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep "mmap pages \"$T/m/f\"" >"$T/pages"
	written=$(sed -n 's/.*written \([0-9]*\) .*/\1/p' "$T/pages" | awk '{ s += $1 } END { print s + 0 }')
	read=$(sed -n 's/.* read \([0-9]*\) .*/\1/p' "$T/pages" | awk '{ s += $1 } END { print s + 0 }')
	[ "$read" = 2048 ] || fail "$b: $read pages read recorded, not 2048: $(cat "$T/pages")"
	[ "$written" = 2048 ] ||
		fail "$b: $written pages written or read recorded, not each of the 2048 once: $(cat "$T/pages")"
	grep -q 'or read (a tmpfs file' "$T/pages" || fail "$b: the record does not say so: $(cat "$T/pages")"
	grep -q '2048 of the pages written through mappings are of tmpfs files' "$T/err" ||
		fail "$b: the summary does not say so: $(cat "$T/err")"
	echo "$b: $read pages read, $written written or read, said so"
done
echo "ok: a tmpfs file's mapped pages count once, and the trace says what could not be told"
