#!/bin/bash
# replay_new_links.sh - symlinks the workload makes to files of the
# starting tree: `ln -s DIR/file w; wc -l w; ln -s w w2; cat w2`, and
# `ln -L` (linkat with AT_SYMLINK_FOLLOW) of a new relative link.  The
# calls through the links reach files the workload never names; the
# recorder took states of the starting tree's own links' targets, not of
# new ones', so the replay's tree lacked the files (2 opens ENOENT; the
# hard link of `ln -L` ENOENT, and its stat).  Now a symlink made takes
# the state of what it points to, as the one of a link met does, if
# that was there before the recording began (born before it): a target
# the workload made or makes (cp -a of a tree with relative links) is
# not the starting tree's, and its state, taken when the recorder gets
# to it, would differ from backend to backend.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp newlinks

mkdir "$T/data"
seq 1 1000 >"$T/data/numbers"
echo kept >"$T/data/small"
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir "$T/root" "$T/w"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c "cd '$T/w' &&
		ln -s '$T/data/numbers' w && wc -l w >/dev/null && ln -s w w2 && cat w2 >/dev/null &&
		ln -s ../data/small rel && ln -L rel hard && stat -c %h hard >/dev/null" \
		>/dev/null 2>"$T/err" || fail "$b: recording the links failed: $(cat "$T/err")"
	"$IOTAPE" dump --states "$T/t.iotape" | grep -q "state \"$T/data/numbers\" S_IFREG" ||
		fail "$b: no state of data/numbers, reached through the new link"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ "$(stat -c %h "$T/root$T/w/hard")" = 2 ] ||
		fail "$b: the replay's hard link to data/small has $(stat -c %h "$T/root$T/w/hard" 2>&1) links"
done
exit 0
