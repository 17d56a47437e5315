#!/bin/bash
# Replay of a pipeline whose writer writes more than the pipe holds in one
# call: dd writes 1 MiB into the pipe at once, the reading dd takes 64 KiB
# at a time, and each of its reads returns before that write does.  The
# reads must not wait for that write (it returns only once they made its
# room): replayed, every byte moves as recorded, with no mismatch and no
# pipe wait given up.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd dd
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w"
head -c 1048576 /dev/urandom >"$T/w/data"
"$IOTAPE" record -q -o "$T/t.iotape" -- sh -c \
	"dd if='$T/w/data' bs=1M count=1 2>/dev/null | dd of='$T/w/out' bs=64k 2>/dev/null" ||
	fail "record failed"
cmp -s "$T/w/data" "$T/w/out" || fail "the recorded pipeline did not copy the data"
"$IOTAPE" dump "$T/t.iotape" >"$T/t.dump" || fail "dump of the trace failed"
grep -q 'write(1, ..., 1048576) = 1048576' "$T/t.dump" ||
	fail "the trace lacks the 1 MiB write into the pipe: $(grep 'write(1,' "$T/t.dump" | head -3)"
[ "$(grep -c 'read(0, ..., 65536) = ' "$T/t.dump")" -ge 2 ] ||
	fail "the trace lacks the reads of the pipe: $(grep 'read(0,' "$T/t.dump" | head -3)"
mkdir "$T/root"
"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
cat "$T/out"
grep -Eq '^  mismatches +0' "$T/out" || fail "the replay's results differ from the trace"
grep -q 'waits given up' "$T/out" && fail "a pipe wait was given up: the reads waited for the write"
echo ok
