#!/bin/bash
# replay_map_unlink.sh - a file read through a mapping, unmapped, closed
# and removed, then another of the same size written in its space
# (tests/progs/map_unlink.c, 6 MiB each), replayed onto a 10 MiB tmpfs
# that has room for one of them.  The replay keeps a copy of each
# mapping's descriptor, for the pages read and written through it; with
# munmap's address not in the trace (before 2026-12-06), the copy stayed
# open until the process ended, a's space stayed taken, and two of b's
# writes failed with ENOSPC.  Recorded with ptrace (fast path and not)
# and bpf where it loads: the trace keeps the address, and the replay
# has no mismatch and leaves b whole.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root "mounts a tmpfs"
need_ptrace
[ -x "$PROGS/map_unlink" ] || fail "$PROGS/map_unlink is not built (make tests)"
record_tmp mapunlink
trap 'mountpoint -q "$T/root" && umount "$T/root"; rm -rf "$T"' EXIT

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w"
	mkdir -p "$T/w" "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/map_unlink" "$T/w" 6 \
		>/dev/null 2>"$T/err" || fail "$b: recording map_unlink failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -Eq ' munmap\(0x[0-9a-f]+, 6291456\) = 0' ||
		fail "$b: the trace's munmap lacks its address: $("$IOTAPE" dump "$T/t.iotape" | grep munmap)"
	mount -t tmpfs -o size=10m tmpfs "$T/root" || fail "mount of a tmpfs failed"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out"
	sz=$(stat -c %s "$T/root$T/w/b")
	[ "$sz" = 6291456 ] || fail "$b: the replay's b has $sz bytes, not 6291456"
	[ ! -e "$T/root$T/w/a" ] || fail "$b: the replay left a"
	umount "$T/root"
	echo "$b: b written whole after a went, 0 mismatches"
done
echo "ok: a file mapped, unmapped and removed frees its space in the replay"
