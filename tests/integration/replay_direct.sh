#!/bin/bash
# replay_direct.sh - `dd oflag=direct` of /dev/zero into a file,
# then `dd iflag=direct` of it: O_DIRECT writes of zeros.  The recorder
# flags a write of zeros (record_zeros.sh), and the replay writes those
# from a buffer of zeros; O_DIRECT asks for a buffer aligned to the
# target's block size, and that buffer was not: every such write
# replayed EINVAL on ext4 (64 mismatches, and 68 of the reads after
# them), where the program's succeeded.  Then a recording that keeps
# the data (`record --data`) of `dd oflag=direct` of random bytes: the
# trace's bytes lie wherever its chunk put them, and O_DIRECT refused
# them too (16 mismatches, an empty file); the replay now writes them
# again from its aligned buffer, and the file is the program's, byte
# for byte.  The replay's root is on the
# filesystem of /var/tmp (tmpfs takes unaligned O_DIRECT and would not
# show it).  Recorded with ptrace (fast path and not) and bpf where it
# loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
T=$(mktemp -d /var/tmp/iotape-direct.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || fail "no $T"
record_backends "$T"
# the root must refuse unaligned O_DIRECT, or this test shows nothing
dd if=/dev/zero of="$T/probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null ||
	skip "O_DIRECT is refused on $(stat -f -c %T "$T")"
rm -f "$T/probe"

cmd="dd if=/dev/zero of=$T/d.img bs=64k count=16 oflag=direct conv=fsync status=none &&
	dd if=$T/d.img of=/dev/null bs=64k iflag=direct status=none"
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/d.img"
	mkdir "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c "$cmd" \
		>/dev/null 2>"$T/err" || fail "$b: recording dd failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c 'write(1, ..., 65536) = 65536')
	[ "$n" = 32 ] || fail "$b: the trace holds $n of the two dd's 32 writes"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ "$(stat -c %s "$T/root$T/d.img")" = 1048576 ] ||
		fail "$b: the replay made d.img $(stat -c %s "$T/root$T/d.img") bytes long, not 1048576"
done

head -c 1M /dev/urandom >"$T/src.bin"
rm -rf "$T/root" "$T/out.bin"
mkdir "$T/root"
"$IOTAPE" record -q --backend ptrace --data -o "$T/d.iotape" -- \
	dd if="$T/src.bin" of="$T/out.bin" bs=64k oflag=direct status=none \
	>/dev/null 2>"$T/err" || fail "--data: recording dd failed: $(cat "$T/err")"
replay_verified "--data" "$T/d.iotape" "$T/root" "$T/rout"
cmp -s "$T/src.bin" "$T/root$T/out.bin" ||
	fail "--data: the replay's out.bin ($(stat -c %s "$T/root$T/out.bin") bytes) is not the program's"
exit 0
