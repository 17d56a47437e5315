#!/bin/bash
# replay_map_reuse.sh - a mapping made at the address of one unmapped
# before (tests/progs/map_reuse.c: a mapped, unmapped, b mapped at the
# same address, 64 pages stored and msync'd).  Traces kept no munmap's
# address before 2026-12-06, so the replay kept a's mapping and found a's
# file at that address: it wrote b's 64 pages into a (a new mapping at an
# address now drops the old one there, for such traces too).  Recorded with ptrace and
# with bpf where it loads: the replay's b holds the replay's bytes in
# each of its 64 pages, and a none but its first.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/map_reuse" ] || fail "$PROGS/map_reuse is not built (make tests)"
record_tmp mapreuse

# pages FILE - how many of FILE's 4 KiB pages hold a byte that is not 0
pages() {
	od -An -v -tx1 -w4096 "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i != "00") { n++; break } }
		END { print n + 0 }'
}

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/map_reuse" "$T/w" 2>"$T/err" ||
		fail "$b: recording map_reuse failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -q "mmap pages \"$T/w/b\" at msync: read 64 (.*), written 64 " ||
		fail "$b: the trace lacks b's 64 pages: $("$IOTAPE" dump "$T/t.iotape" | grep 'mmap pages')"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out"
	nb=$(pages "$T/root$T/w/b") na=$(pages "$T/root$T/w/a")
	[ "$nb" = 64 ] || fail "$b: the replay wrote $nb pages of b, not 64 (a: $na)"
	[ "$na" -le 1 ] || fail "$b: the replay wrote $na pages of a, which the program stored 1 byte in"
	echo "$b: b's 64 pages written into b, a's $na"
done
echo "ok: a mapping at a reused address is replayed into its own file"
