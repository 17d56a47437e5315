#!/bin/bash
# replay_map_tail.sh - pages written through a shared mapping of a file
# whose size is not a whole number of pages (tests/progs/map_tail: 10,000
# bytes, every byte stored, msync'd, then read to the end).  The replay
# writes the recorded pages with pwrite; its last page written whole made
# the file 12,288 bytes long, a store through a mapping never does, and
# the program's last reads returned other counts (a Go linker's output,
# read back by the go command, grew by 890 bytes).  The replay must leave
# the file 10,000 bytes long with 0 mismatches, with every backend that
# records here.  Needs root (/proc/kpageflags: which pages were written).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd record
need_iotape_cmd replay
need_root
[ -x "$PROGS/map_tail" ] || fail "$PROGS/map_tail is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
record_backends "$T"
for m in "${BACKENDS[@]}"; do
	backend_opts $m
	"$IOTAPE" record -q "${OPTS[@]}" -o $m.iotape -- "$PROGS/map_tail" "$T/f.$m" || fail "record ($m): exit $?"
	"$IOTAPE" dump $m.iotape | grep -q "mmap pages \"$T/f.$m\" at msync: read [0-9]* ([0-9]* runs), written 3 " ||
		fail "($m) the trace has no record of the 3 pages written: $("$IOTAPE" dump $m.iotape | grep 'mmap pages')"
	mkdir r.$m
	"$IOTAPE" replay $m.iotape --root r.$m --timing afap --verify >r.$m.out 2>&1
	rc=$?
	[ $rc = 0 ] || { cat r.$m.out; fail "($m) replay --verify: exit $rc (4: results differ)"; }
	size=$(stat -c %s "r.$m$T/f.$m") || fail "($m) the replay made no $T/f.$m"
	[ "$size" = 10000 ] || fail "($m) the replayed file is $size bytes long, the program's 10000"
	echo "ok ($m): 3 pages written through the mapping replayed, the file 10000 bytes, 0 mismatches"
done
