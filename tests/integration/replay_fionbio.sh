#!/bin/bash
# replay_fionbio.sh - FIONBIO (a descriptor made non-blocking, or
# blocking again, by ioctl rather than fcntl: fdfind -x sets its
# children's output pipes so, 22,854 calls of a run over /usr/include)
# is replayed on the replay's descriptor, not left out as unsupported.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp fionbio

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w" "$T/root"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PY" -c '
import errno, fcntl, os, struct, termios
r, w = os.pipe()
fcntl.ioctl(r, termios.FIONBIO, struct.pack("i", 1))
try:
	os.read(r, 10)
except BlockingIOError:
	pass
os.write(w, b"abc")
fcntl.ioctl(r, termios.FIONBIO, struct.pack("i", 0))
assert os.read(r, 10) == b"abc"
') 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c ' ioctl([0-9]*, FIONBIO, .*) = 0 ')
	[ "$n" = 2 ] || fail "$b: the trace has $n FIONBIO, not 2: $("$IOTAPE" dump "$T/t.iotape" | grep ' ioctl(')"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out" -o "$T/p.iotape"
	grep -q 'unsupported' "$T/out" && fail "$b: calls left out as unsupported: $(grep unsupported "$T/out")"
	r=$("$IOTAPE" dump "$T/p.iotape" | grep ' ioctl([0-9]*, FIONBIO, .*) = 0 ' | grep -vc 'not replayed')
	[ "$r" = 2 ] || fail "$b: the replay made $r of the 2 FIONBIO: $("$IOTAPE" dump "$T/p.iotape" | grep ' ioctl(')"
	echo "$b: 2 FIONBIO of a pipe replayed"
done
echo "ok: FIONBIO is replayed"
