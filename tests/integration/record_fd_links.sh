#!/bin/bash
# record_fd_links.sh - a call through /proc/self/fd/N or /dev/stdout names
# the descriptor's file, and the state recorded for that file is the
# file's, on every backend.  The fast path took the state of the link
# itself (an lstat of /proc/self/fd/1: a symlink), so the starting tree
# made a symlink where the program's output file was, and the replayed
# stats through it failed with ELOOP (stress-ng's fstat stressor: 96
# mismatches; here 3).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
record_tmp fdlinks

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'stat -L /dev/stdout; stat -L /proc/self/fd/1
		       python3 -c "import os; os.stat(\"/proc/self/fd/1\"); os.stat(\"/dev/stdout\")"') \
		>"$T/out.txt" 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	through=$(grep -c "\"$T/out.txt\" </" "$T/dump")
	[ "$through" -ge 3 ] || fail "$b: $through calls named out.txt through a link to its descriptor, not 3 or more"
	grep -q "^#.* state \"$T/out.txt\" S_IFREG|" "$T/dump" ||
		fail "$b: out.txt's state is not a regular file's: $(grep "state \"$T/out.txt\"" "$T/dump")"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/rout"
	echo "$b: $through calls through a descriptor's link, its file recorded as a file, 0 mismatches"
done
echo "ok: calls through /proc/self/fd/N and /dev/stdout record the file's state"
