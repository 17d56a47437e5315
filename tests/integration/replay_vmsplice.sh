#!/bin/bash
# replay_vmsplice.sh - fio's splice engine: for each 4 KiB request it
# moves the program's buffer into a pipe with vmsplice and splices the
# pipe into the file (writes), or splices the file into the pipe and
# vmsplices it out (reads).  vmsplice was not recorded: the replayed
# pipe was never filled, and each of the 2,048 splices waited for bytes
# that never came (2,048 mismatches, 43 s for a 0.4 s workload).  Now it
# is a row, replayed into (or out of) the replay's pipe: 0 mismatches.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd fio
tmp_dir /var/tmp/iotape-test
for rw in randwrite randread; do
	mkdir -p "$T/$rw/w" "$T/$rw/r"
	(cd "$T/$rw/w" && "$IOTAPE" record -q -o "$T/$rw/t.iotape" -- fio --name=j \
		--ioengine=splice --rw=$rw --bs=4k --size=8m --nrfiles=2 --directory=. \
		--output=/dev/null) || fail "$rw: record: exit $?"
	"$IOTAPE" dump "$T/$rw/t.iotape" >"$T/$rw/t.txt" || fail "$rw: dump exit $?"
	n=$(grep -c ' vmsplice([0-9]*, \[iov 4096\], 1, 0x[0-9a-f]*) = 4096 ' "$T/$rw/t.txt")
	[ "$n" = 2048 ] || fail "$rw: $n vmsplice calls of 4096 bytes in the trace, not fio's 2,048"
	replay_clean "$rw" "$T/$rw/t.iotape" "$T/$rw/r" "$T/$rw/out"
	echo "ok ($rw): 2,048 vmsplice calls recorded, replayed with 0 mismatches"
done
