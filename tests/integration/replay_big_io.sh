#!/bin/bash
# replay_big_io.sh - reads and writes of 300 MiB each (dd with
# bs=300M: zstd --patch-from reads its dictionary so).  The replay moved
# at most 256 MiB a call: the read returned 268435456, the file written
# came out 256 MiB, and the calls after them saw other offsets (2
# mismatches).  Now a call beyond that is replayed by as many as it
# takes.  Recorded with the default backend.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w" "$T/r"
head -c 314572800 /dev/zero >"$T/w/big" || skip "no room for a 300 MiB file under /var/tmp"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c \
	'dd if=big of=/dev/null bs=300M count=1 2>/dev/null && dd if=big of=copy bs=300M count=1 2>/dev/null') ||
	fail "record: exit $?"
n=$("$IOTAPE" dump "$T/t.iotape" | grep -cE ' (read|write)\([0-9]+, \.\.\., 314572800\) = 314572800 ')
[ "$n" = 4 ] || fail "the trace holds $n reads and writes of 300 MiB, not 4"
rm -rf "$T/w"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
s=$(stat -c %s "$T/r$T/w/copy" 2>/dev/null)
[ "$s" = 314572800 ] || fail "the replayed copy has $s bytes, not 314572800"
echo "ok: 300 MiB read twice and written once, the copy 314572800 bytes, 0 mismatches"
