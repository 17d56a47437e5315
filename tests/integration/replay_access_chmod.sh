#!/bin/bash
# replay_access_chmod.sh - a watcher woken by another process's chmod
# asks access(X_OK) at once (a job runner that waits for its scripts to
# be made executable).  Recorded with the ptrace backend's in-process
# path, which takes a call's end in the program after the call returned,
# the access ended before the chmod that gave it its answer; calls on
# one path are ordered by their ends, and a replay as fast as possible
# asked before the chmod: EACCES where the recording had 0 (5-10
# mismatches of 10 checks).  An access whose answer the file's mode as
# ordered so far cannot give follows a pending chmod that gives it, and
# one that a chmod ordered first would have answered otherwise comes
# before it (deps_seen.c rpl_pull_seen(), seen.c).  tests/progs/mode_watch: 40
# chmods, 0755 and 0644 in turn, each after the watcher's go-ahead
# through a pipe, each checked at once (inotify); recorded by every
# backend, replayed as fast as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp accesschmod
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	W=$T/$b/w
	mkdir -p "$W" "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/mode_watch" "$W" 40 \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	rm -rf "$W"
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" --timing afap --verify >"$T/$b/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/out" | cut -c1-300)"
	echo "ok ($b): each access(X_OK) after the chmod that gave its answer, 0 mismatches"
done
