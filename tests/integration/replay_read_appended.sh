#!/bin/bash
# replay_read_appended.sh - a follower woken by another process's append
# reads the bytes appended (tail -f of a log that `echo >> log` writes).
# Recorded with the ptrace backend's in-process path, which takes a
# call's end in the program after the call returned, the woken reader
# had its read end before the write that gave it its line (the writer's
# end 20-380 us late); calls on one file are ordered by their ends, and
# a replay as fast as possible read before the write: 0 bytes (tail -f:
# 1-14 mismatches a replay).  A read that returned N bytes at offset X
# saw the file X+N long: the pending writes that made it so long are
# ordered before it (deps_seen.c rpl_pull_seen(), seen.c).  tests/progs/log_follow:
# 100 lines, each appended by the writer after the follower's go-ahead
# through a pipe, read at once (inotify), then the end of the log read
# (0 bytes); recorded by every backend, replayed as fast as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp readappended
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	W=$T/$b/w
	mkdir -p "$W" "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/log_follow" "$W" 100 \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	rm -rf "$W"
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" --timing afap --verify >"$T/$b/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/out" | cut -c1-300)"
	echo "ok ($b): each line read after the append that wrote it, the end of the log before the next, 0 mismatches"
done
