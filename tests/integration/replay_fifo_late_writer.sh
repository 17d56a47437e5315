#!/bin/bash
# replay_fifo_late_writer.sh - `cat big >ff & cat ff >copy`, ten times:
# the writer's open of the FIFO blocks until the reader opens it, and the
# reader's open returns first.  The replay tries the writer's open again
# while no reader has the FIFO, and the reader's first read could run
# before its next try: it got 0 (no writer) where 64 KiB were read when
# recorded, and the reads and writes after it differed (108-275
# mismatches a replay) until 2026-12-07; now such a read of a FIFO waits
# for the writer to come.  Recorded with the default backend and with
# ptrace.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
for b in auto ptrace; do
	mkdir -p "$T/$b/w"
	head -c 2000000 /dev/urandom >"$T/$b/w/big"
	# shellcheck disable=SC2016
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend $b -o "$T/$b/t.iotape" -- bash -c \
		'for i in 1 2 3 4 5 6 7 8 9 10; do mkfifo ff$i; cat big >ff$i & cat ff$i >copy$i; wait; done') ||
		fail "$b: record: exit $?"
	cmp -s "$T/$b/w/big" "$T/$b/w/copy10" || fail "$b: copy10 is not big"
	rm -rf "$T/$b/w"
	mkdir "$T/$b/r"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): ten FIFOs whose writer opened before the reader, replayed with 0 mismatches"
done
