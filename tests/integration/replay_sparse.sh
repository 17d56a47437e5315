#!/bin/bash
# replay_sparse.sh - a file with holes in the starting tree (a 64 MiB
# image with 1 MiB of data at 10 MiB and 12 KiB at 40,960,000 bytes, as
# `truncate -s` and `dd seek=` leave it), read by `tar --sparse`, which
# walks its data with SEEK_DATA and SEEK_HOLE.  The trace keeps the file's
# data ranges (PathState data, flag 4: FORMAT.md), and the replay makes the
# file with holes where it had them.  Before, the file was made whole: 64
# MiB written, and tar's SEEK_DATA past the last data found some (1
# mismatch).  Recorded with ptrace (fast path and not) and bpf where it
# loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
command -v tar >/dev/null || fail "tar is not installed"
record_tmp sparse

IMG=$T/img
truncate -s 64M "$IMG"
dd if=/dev/urandom of="$IMG" bs=1M count=1 seek=10 conv=notrunc status=none
dd if=/dev/urandom of="$IMG" bs=4k count=3 seek=10000 conv=notrunc status=none
want="data=10485760+1048576,40960000+12288"

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/out.tar"
	mkdir "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- tar --sparse -cf "$T/out.tar" -C "$T" img \
		>/dev/null 2>"$T/err" || fail "$b: recording tar --sparse failed: $(cat "$T/err")"
	st=$("$IOTAPE" dump --states "$T/t.iotape" | grep "state \"$IMG\"")
	case $st in
	*"size=67108864"*" $want"*) ;;
	*) fail "$b: the image's state is not '$want': $st" ;;
	esac
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	made=$T/root$IMG
	[ "$(stat -c %s "$made")" = 67108864 ] || fail "$b: the image was made $(stat -c %s "$made") bytes long"
	kib=$(( $(stat -c '%b * %B' "$made") / 1024 ))
	[ "$kib" -le 4096 ] || fail "$b: the image was made with $kib KiB of blocks, not its 1,036 KiB of data"
	echo "$b: $want recorded; replayed with 0 mismatches, the image made with $kib KiB of blocks"
done
echo "ok: a file with holes is recorded with its data ranges and made with its holes"
