#!/bin/bash
# replay_listing_seen.sh - a watcher woken by another process's create
# or removal in a directory lists it at once (a hot folder's monitor).
# Recorded with the ptrace backend's in-process path, which takes a
# call's end in the program after the call returned, the listing ended
# before the create it showed; a listing follows the names made before
# it by their ends, and a replay as fast as possible listed before the
# create: an entry missing (7-13 of 40 listings).  A directory's listing
# bytes are known from its mkdir on, with each name made (O_EXCL,
# mkdir, mknod, symlink) or removed since: a listing that returned more
# bytes than that follows a pending create, one that ended short of it a
# pending removal, and one pending when a create or removal is ordered that
# listed the directory as it was comes before it (deps_seen.c rpl_pull_seen(),
# seen.c).  tests/progs/dir_watch: 40 changes, a name made and removed
# in turn, each after the watcher's go-ahead through a pipe, each
# listed at once (inotify); recorded by every backend, replayed as fast
# as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp listingseen
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	W=$T/$b/w
	mkdir -p "$W" "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/dir_watch" "$W" 40 \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	rm -rf "$W"
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" --timing afap --verify >"$T/$b/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/out" | cut -c1-300)"
	echo "ok ($b): each listing after the create or removal it showed, 0 mismatches"
done
