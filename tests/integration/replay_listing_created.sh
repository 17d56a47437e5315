#!/bin/bash
# replay_listing_created.sh - a watcher lists a directory in which
# another process makes names with open(O_CREAT) alone, no O_EXCL, and
# removes them (git-annex's transfer files, listed by another process).
# Recorded with the ptrace backend's in-process path, which takes a
# call's end in the program after the call returned, the listing ended
# before the create it showed.  A directory's listing bytes were known
# only while every name made there was made by a call that cannot find
# it there (O_EXCL, mkdir, mknod, symlink): after the first such create
# they were not, no listing was ordered by what it showed, and a replay
# as fast as possible listed before the create (20 of 80 getdents
# mismatched).  Whether such an open made its name is known where the
# name is (made by an op ordered before, or removed since, or its
# directory made after it: seen.c name_there()).  tests/progs/dir_watch
# with `creat`: 40 changes, a name made and removed in turn, each after
# the watcher's go-ahead through a pipe, each listed at once (inotify);
# recorded by every backend, replayed as fast as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp listingcreated
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	W=$T/$b/w
	mkdir -p "$W" "$T/$b/r"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/dir_watch" "$W" 40 creat \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	rm -rf "$W"
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" --timing afap --verify >"$T/$b/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/out" | cut -c1-300)"
	echo "ok ($b): each listing after the O_CREAT open or removal it showed, 0 mismatches"
done
