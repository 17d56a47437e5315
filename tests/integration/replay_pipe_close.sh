#!/bin/bash
# replay_pipe_close.sh - `seq 100000 | sort -r >s`: the shell makes the
# pipe, starts seq, closes its copy of the write end, starts sort, closes
# its copy of the read end; sort moves the read end to its input and
# closes the copy.  seq's first 16 writes fill the pipe before sort runs.
# Every close was ordered after the writes that entered before it, and in
# a bpf recording those writes entered before the shell's closes: the
# shell's close waited for seq's 17th write, which waited for sort's read,
# and sort was not started until the wait was given up (2 s; a write
# replayed as EAGAIN, a read short).  A close of a copy of an end that
# stays open elsewhere now follows nothing (the next write, and a read at
# end of file, follow it).  Three bpf recordings, each replayed with
# --verify: no mismatch, no wait given up (6 of 7 such recordings failed
# before).  And `tar tf | head -n1`, whose writes meet EPIPE once head has
# closed its end: traces/tar.iotape, 5 replays with --verify.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_bpf
T=$(mktemp -d /var/tmp/iotape-pipeclose.XXXXXX)
trap 'rm -rf "$T"' EXIT
for i in 1 2 3; do
	mkdir "$T/w$i" "$T/r$i"
	(cd "$T/w$i" && "$IOTAPE" record --backend bpf -q -o "$T/t$i.iotape" -- \
		sh -c 'seq 100000 | sort -r >s') || fail "record $i: exit $?"
	"$IOTAPE" replay "$T/t$i.iotape" --root "$T/r$i" --timing afap --verify >"$T/out" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$T/out"; fail "replay of recording $i: exit $rc (4: results differ)"; }
	grep -q 'waits given up' "$T/out" && { cat "$T/out"; fail "replay of recording $i gave up a pipe wait"; }
	[ "$(stat -c %s "$T/r$i$T/w$i/s")" = "$(stat -c %s "$T/w$i/s")" ] ||
		fail "recording $i: s is $(stat -c %s "$T/r$i$T/w$i/s") bytes replayed"
done
for i in 1 2 3 4 5; do
	rm -rf "$T/tar" && mkdir "$T/tar"
	"$IOTAPE" replay "$SRCDIR/traces/tar.iotape" --root "$T/tar" --timing afap --verify >"$T/out" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$T/out"; fail "tar.iotape, replay $i: exit $rc (4: results differ)"; }
done
echo "ok: 3 bpf recordings of seq | sort and 5 replays of tar.iotape with no mismatch"
