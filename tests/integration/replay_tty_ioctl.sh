#!/bin/bash
# replay_tty_ioctl.sh - a terminal's questions asked of a file (isatty()'s
# TCGETS, TIOCGWINSZ: ls -C with its output in a file) that found none
# (ENOTTY) are asked again of the replay's descriptor, not left out as
# unsupported (2,367 such calls in the 33 workloads of
# docs/VALIDATION.md's morning of 2026-12-06 were).  Recorded with ptrace
# (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd ls
record_tmp ttyioctl

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/d" "$T/root"
	touch "$T/w/d/a" "$T/w/d/b"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c 'ls -C d >out') \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c ' ioctl(1, TCGETS, .*) = -1 ENOTTY')
	[ "$n" -ge 1 ] || fail "$b: the trace has no TCGETS of the output file"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" -o "$T/p.iotape" >"$T/out" 2>&1 ||
		fail "$b: replay failed: $(cat "$T/out")"
	grep -q '^  mismatches   0$' "$T/out" || fail "$b: mismatches: $(grep -A3 '^  mismatches' "$T/out")"
	"$IOTAPE" dump "$T/p.iotape" | grep ' ioctl(' | grep 'not replayed' >&2 &&
		fail "$b: a terminal ioctl was left out of the replay"
	r=$("$IOTAPE" dump "$T/p.iotape" | grep -c ' ioctl(1, TCGETS, .*) = -1 ENOTTY')
	[ "$r" = "$n" ] || fail "$b: the replay asked TCGETS $r times, the recording $n"
	grep -q 'unsupported' "$T/out" && fail "$b: calls left out as unsupported: $(grep unsupported "$T/out")"
	echo "$b: $n TCGETS of a file replayed, ENOTTY as recorded"
done
echo "ok: a terminal's questions of a file are replayed"
