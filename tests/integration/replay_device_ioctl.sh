#!/bin/bash
# replay_device_ioctl.sh - a device's questions asked of an image file
# (mkfs.*, e2fsck, tune2fs, debugfs and mtools ask BLKGETSIZE64,
# BLKSSZGET, BLKFLSBUF, FDGETPRM and HDIO_GETGEO of the image; tar asks
# MTIOCTOP of its archive) that it refused (ENOTTY) are asked again of
# the replay's descriptor, which refuses them too, not left out as
# unsupported (tune2fs, debugfs -w, e2fsck, resize2fs, dumpe2fs of a 64
# MiB image: 26 calls; five mkfs and their checkers: 20; tar --delete
# and -u: 4).  One asked of a device the replay does not have (a loop
# device's LOOP_GET_STATUS, e2fsprogs looking for the image's loop) is
# not replayed for its descriptor, not counted unsupported either.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp devioctl

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w" "$T/root"
	truncate -s 1M "$T/w/img"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PY" -c '
import errno, fcntl, os
def ask(fd, req, n):
	try:
		fcntl.ioctl(fd, req, bytearray(n))
	except OSError as e:
		assert e.errno == errno.ENOTTY, e
	else:
		raise AssertionError(hex(req))
fd = os.open("img", os.O_RDWR)
for req, n in ((0x80081272, 8), (0x1268, 4), (0x1261, 0), (0x80200204, 32),
	       (0x301, 16), (0x40086d01, 8), (0x1260, 8), (0x4c05, 152)):
	ask(fd, req, n)
null = os.open("/dev/null", os.O_RDONLY)
ask(null, 0x4c05, 152)
') 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -Ec ' ioctl\(3, (0x|BLK).*\) = -1 ENOTTY')
	[ "$n" = 8 ] || fail "$b: the trace has $n refused ioctls of the image, not 8: $("$IOTAPE" dump "$T/t.iotape" | grep ' ioctl(')"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out" -o "$T/p.iotape"
	grep -q 'unsupported' "$T/out" && fail "$b: calls left out as unsupported: $(grep unsupported "$T/out")"
	r=$("$IOTAPE" dump "$T/p.iotape" | grep -E ' ioctl\(3, (0x|BLK).*\) = -1 ENOTTY' | grep -vc 'not replayed')
	[ "$r" = "$n" ] || fail "$b: the replay asked $r of the image's $n questions: $("$IOTAPE" dump "$T/p.iotape" | grep ' ioctl(')"
	grep -q '^  ops .*descriptor not replayed [1-9]' "$T/out" ||
		fail "$b: /dev/null's question not counted as its descriptor's: $(grep '^  ops' "$T/out")"
	echo "$b: $n device questions of an image file replayed, ENOTTY as recorded; /dev/null's left out for its descriptor"
done
echo "ok: a device's questions of an image file are replayed"
