#!/bin/bash
# replay_tty_ioctl.sh - a terminal's questions asked of a file (isatty()'s
# TCGETS, TIOCGWINSZ: ls -C with its output in a file) that found none
# (ENOTTY) are asked again of the replay's descriptor, not left out as
# unsupported (2,367 such calls in the 33 workloads of
# docs/VALIDATION.md's morning of 2026-12-06 were).  So are FIONREAD of
# a pipe and FS_IOC_GETFLAGS of a file (lsattr), left out before too, and
# (since 2026-12-07) FS_IOC_FIEMAP, asked of the file's first extent
# (man-db's mandb asks it of each page it indexes: 24,994 calls), and
# FIOCLEX (Python's subprocess).
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd ls
need_python
record_tmp ttyioctl

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/d" "$T/root"
	touch "$T/w/d/a" "$T/w/d/b"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c 'exec 2>errs; ls -C d >out
		"$PY" -c "
import fcntl, os, struct, termios
r, w = os.pipe(); os.write(w, b\"abc\")
assert struct.unpack(\"i\", fcntl.ioctl(r, termios.FIONREAD, b\"0000\"))[0] == 3
fd = os.open(\"d/a\", os.O_RDONLY)
fcntl.ioctl(fd, 0x80086601, b\"00000000\")
fcntl.ioctl(fd, 0xc020660b, bytearray(struct.pack(\"QQIIII\", 0, 2**64 - 1, 0, 0, 1, 0) + bytes(56)))
fcntl.ioctl(fd, termios.FIOCLEX)
" >pyout 2>&1') \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c ' ioctl(1, TCGETS, .*) = -1 ENOTTY')
	[ "$n" -ge 1 ] || fail "$b: the trace has no TCGETS of the output file"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out" -o "$T/p.iotape"
	"$IOTAPE" dump "$T/p.iotape" | grep ' ioctl([1-9]' | grep 'not replayed' >&2 &&
		fail "$b: a terminal ioctl was left out of the replay"
	r=$("$IOTAPE" dump "$T/p.iotape" | grep -c ' ioctl(1, TCGETS, .*) = -1 ENOTTY')
	[ "$r" = "$n" ] || fail "$b: the replay asked TCGETS $r times, the recording $n"
	grep -q 'unsupported' "$T/out" && fail "$b: calls left out as unsupported: $(grep unsupported "$T/out")"
	# (FIOCLEX: close-on-exec, as fcntl(F_SETFD) sets it; unsupported
	# until 2026-12-07)
	"$IOTAPE" dump "$T/p.iotape" | grep -q " ioctl([0-9]*, FIOCLEX.*) = 0 <" ||
		fail "$b: no FIOCLEX replayed: $("$IOTAPE" dump "$T/p.iotape" | grep ' ioctl(' | tail -3)"
	for q in FIONREAD FS_IOC_GETFLAGS FS_IOC_FIEMAP; do
		"$IOTAPE" dump "$T/p.iotape" | grep -q " ioctl([0-9]*, $q, .*) = 0 " ||
			fail "$b: no $q replayed: $("$IOTAPE" dump "$T/p.iotape" | grep ' ioctl(' | head -5)"
	done
	# onto tmpfs, which does not say where a file's data lies: the
	# FIEMAP's EOPNOTSUPP is the filesystem's answer, no mismatch
	# (mandb's 351 were mismatches until 2026-12-07)
	if [ "$b" = "${BACKENDS[0]}" ] && [ "$(stat -f -c %T "$T")" != tmpfs ] &&
		mkdir -p "$T/tmpfs" && mount -t tmpfs -o size=64m iotape-test "$T/tmpfs" 2>/dev/null; then
		"$IOTAPE" replay "$T/t.iotape" --root "$T/tmpfs" >"$T/out" 2>&1
		rc=$?
		umount "$T/tmpfs"
		[ "$rc" = 0 ] || fail "$b: replay onto tmpfs: exit $rc: $(cat "$T/out")"
		grep -q '^  mismatches   0$' "$T/out" || fail "$b: onto tmpfs: $(grep -A3 '^  mismatches' "$T/out")"
		grep -q '^  capability probes differing .*: 1 (ioctl' "$T/out" ||
			fail "$b: onto tmpfs, the FIEMAP is not counted as a probe: $(grep -A3 '^  mismatches' "$T/out")"
		echo "$b: onto tmpfs, the FIEMAP's EOPNOTSUPP is a probe's answer, not a mismatch"
	elif [ "$b" = "${BACKENDS[0]}" ]; then
		echo "$b: not replayed onto tmpfs (recorded on tmpfs, or no tmpfs could be mounted)"
	fi
	echo "$b: $n TCGETS of a file replayed, ENOTTY as recorded; FIONREAD, FS_IOC_GETFLAGS and FS_IOC_FIEMAP too"
done
echo "ok: a terminal's questions of a file are replayed"
