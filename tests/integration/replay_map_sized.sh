#!/bin/bash
# replay_map_sized.sh - pages stored through a mapping of a file that was
# empty when it was mapped and sized after (tests/progs/map_sized: a
# 64 MiB mapping of a new file, 20 ms of computing, an ftruncate to
# 1 MiB, 16 pages stored, the munmap).  The pages are taken at the
# munmap, and the replay makes them at the start of the thread's longest
# gap since the mapping was made: that was the computing before the
# ftruncate, the file still empty, and the record was not replayed (1 of
# 2 records, 128 KiB, until 2026-12-07; kchashmgr's create).  Now they
# come after any call that wrote or sized the file.  Recorded with the
# default backend and with ptrace.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/map_sized" ] || fail "$PROGS/map_sized is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for b in auto ptrace; do
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PROGS/map_sized" f) ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -qE 'mmap pages "[^"]*/w/f" at munmap: .*written 16 ' ||
		{ "$IOTAPE" dump "$T/$b/t.iotape" | grep 'mmap pages'; fail "$b: the trace does not hold the 16 pages written"; }
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	grep -qE '^  mapped pages .*\(([0-9]+) of \1 records; 0 not replayed' "$T/$b/out" ||
		{ cat "$T/$b/out"; fail "$b: a record of mapped pages was not replayed"; }
	grep -qE '^  mapped pages .* 64\.0 KiB written through file mappings' "$T/$b/out" ||
		{ cat "$T/$b/out"; fail "$b: the replay did not store the 16 pages (64 KiB)"; }
	sz=$(stat -c %s "$T/$b/r$T/$b/w/f")
	[ "$sz" = $((1 << 20)) ] || fail "$b: the replayed file is $sz bytes, not 1 MiB"
	echo "ok ($b): the 16 pages stored after the file was sized replayed after it"
done
