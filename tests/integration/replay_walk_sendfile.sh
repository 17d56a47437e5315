#!/bin/bash
# replay_walk_sendfile.sh - 'busybox tar c' of a directory names each
# file by its path, writes its header to the archive and copies the file
# with sendfile(archive, file).  Replayed onto a root that lists the
# files in another order, the files' calls are taken in the root's
# listing order (a run of files named by their paths), but the sendfile
# stayed in its place as a call on the archive, a descriptor none of the
# files opened: it copied from the next file's descriptor, and returned
# that file's size (20 of 40 sendfile calls mismatched; a busybox tar,
# cpio and cp of a tree: 894 to 3968).  A call that names a file's
# descriptor in any argument now moves with the file.
set -u
. "$(dirname "$0")/lib.sh"
need_cmd busybox
walk_tree walksf
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- busybox tar -cf "$T/x.tar" d) ||
	fail "recording failed"
"$IOTAPE" dump "$T/t.iotape" | grep -q 'sendfile(' ||
	skip "this busybox's tar copies without sendfile: nothing to test"
walk_root
(cd "$A" && find d -type f) >"$T/recorded"
(cd "$M/R$A" && find d -type f) >"$T/listed"
cmp -s "$T/recorded" "$T/listed" && fail "the root lists the files as recorded: nothing to test"
WHY="a sendfile kept in its place read another file" \
	replay_clean "" "$T/t.iotape" "$M/R" "$T/out" --timing afap --force
grep -q 'by path      1 runs of files named by their paths' "$T/out" ||
	{ cat "$T/out"; fail "the files were not taken in the root's listing order"; }
echo "ok: tar's sendfile calls moved with their files, 0 mismatches"
