#!/bin/bash
# replay_pseudo_link.sh - a symlink of the starting tree that leads into
# /proc, /sys or /dev (/etc/mtab -> ../proc/self/mounts; here links made
# for the test, one relative, one absolute): a call that follows it reads
# the kernel's files, which the replay leaves out, as it does a call that
# names /proc itself.  Before, the replay made the link under its root,
# where it led nowhere: the reads of it failed with ENOENT (df, stress-ng).
# Calls that do not follow the link (lstat, readlink) are still made.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp pseudolink

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/etc" "$T/root"
	ln -s ../../../../../../../../../proc/self/mounts "$T/w/etc/mtab"
	ln -s /proc/self/status "$T/w/st"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'cat etc/mtab st >/dev/null; stat -L st >/dev/null; ls -l etc/mtab st >/dev/null') \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --force -o "$T/p.iotape" >/dev/null 2>&1 ||
		fail "$b: second replay failed"
	"$IOTAPE" dump "$T/p.iotape" | grep -E "(lstat|newfstatat|statx)\(.*\"$T/w/st\".*SYMLINK_NOFOLLOW|lstat\(\"$T/w/st\"" |
		grep -qv 'not replayed' || fail "$b: the lstat of the link was not made"
	echo "$b: reads through links into /proc left out, the link's lstat made, 0 mismatches"
done
echo "ok: links into /proc, /sys and /dev are followed no more than /proc itself"
