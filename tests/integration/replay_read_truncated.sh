#!/bin/bash
# replay_read_truncated.sh - a reader woken by another process's open
# with O_TRUNC of a small status file reads it empty, before the writer
# writes the line again.  Recorded with the ptrace backend's in-process
# path, which takes a call's end in the program after the call returned,
# the read ended before the open that emptied the file; calls on one
# file are ordered by their ends, and a replay as fast as possible read
# before the open: the old line, not 0 bytes (15 of 161 reads
# mismatched).  A read that met the end of the file short of the size
# the ops ordered so far give it follows the pending truncate that cut it
# (deps_seen.c rpl_pull_seen(), seen.c).  With O_CREAT as well (a shell's >), the
# open of a file that the trace made before is no longer taken for the
# create of its name, which every look-up that found the file was put
# after (a read that returned the line before the open emptied the file
# got 0 bytes): the same order comes from the read's byte count.
# tests/progs/trunc_watch: 40 rewrites, each open and each write after
# the reader's go-ahead through a pipe, each read at once (inotify);
# recorded by every backend, replayed as fast as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp readtruncated
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	for how in trunc creat; do
		W=$T/$b/$how/w
		mkdir -p "$W" "$T/$b/$how/r"
		"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/$how/t.iotape" -- "$PROGS/trunc_watch" "$W" 40 \
			$how >"$T/$b/$how/rec.out" 2>&1 ||
			{ cat "$T/$b/$how/rec.out"; fail "$b $how: record: exit $?"; }
		rm -rf "$W"
		"$IOTAPE" replay "$T/$b/$how/t.iotape" --root "$T/$b/$how/r" --timing afap --verify \
			>"$T/$b/$how/out" 2>&1 ||
			fail "$b $how: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/$how/out" | cut -c1-300)"
		echo "ok ($b, $how): each empty read after the open that emptied the file, 0 mismatches"
	done
done
