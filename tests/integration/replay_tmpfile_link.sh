#!/bin/bash
# replay_tmpfile_link.sh - an O_TMPFILE file named after it was written
# (tests/progs/tmpfile_link): linkat(AT_FDCWD, "/proc/self/fd/N", ...,
# AT_SYMLINK_FOLLOW), and as root linkat(N, "", ..., AT_EMPTY_PATH).  The
# descriptor's path is its directory's, and the link's source was recorded
# and replayed as that directory (EPERM: a mismatch, no file made).  Now
# the trace keeps the descriptor of a /proc/self/fd path (`iotape dump`
# shows it), and the replay links the descriptor's file: --verify exits 0
# and the files are there with the sizes written.  The descriptor's calls
# after the link carry the file's name, not its directory's.  Recorded with ptrace
# (with the fast path and without) and with bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/tmpfile_link" ] || fail "$PROGS/tmpfile_link is not built (make tests)"
tmp_dir /tmp/iotape-tmpfile
cd "$T"
args=()
[ "$(id -u)" = 0 ] && args=(empty)	# AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH
record_backends "$T"

for b in "${BACKENDS[@]}"; do
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	backend_opts "$b"
	rc=0
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/tmpfile_link" "$T/w" "${args[@]}" ||
		rc=$?
	[ $rc = 77 ] && skip "no O_TMPFILE on the filesystem of $T"
	[ $rc = 0 ] || fail "$b: recording tmpfile_link failed (exit $rc)"
	[ "$(stat -c %s "$T/w/a")" = 5000 ] || fail "$b: the program did not make w/a"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
	grep -Eq "^[0-9]+ .*linkat\(AT_FDCWD, \"$T/w\" </proc/self/fd/[0-9]+>, AT_FDCWD, \"$T/w/a\", AT_SYMLINK_FOLLOW\) = 0" "$T/dump" ||
		{ grep linkat "$T/dump"; fail "$b: the trace does not keep the descriptor /proc/self/fd named"; }
	# the descriptor's calls after the link carry the file's new name
	"$IOTAPE" dump -y "$T/t.iotape" | grep -Eq "^[0-9]+ .*close\([0-9]+<$T/w/a>\) = 0" ||
		{ "$IOTAPE" dump -y "$T/t.iotape" | grep -A1 linkat; fail "$b: the descriptor linked keeps its directory's path"; }
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out" --timing afap --verify
	[ "$(stat -c %s "$T/root$T/w/a" 2>/dev/null)" = 5000 ] ||
		{ ls -la "$T/root$T/w"; fail "$b: the replay did not make w/a of 5000 bytes"; }
	if [ ${#args[@]} -gt 0 ]; then
		[ "$(stat -c %s "$T/root$T/w/b" 2>/dev/null)" = 3000 ] ||
			{ ls -la "$T/root$T/w"; fail "$b: the replay did not make w/b of 3000 bytes (AT_EMPTY_PATH)"; }
	fi
	echo "$b: ok"
done
echo "ok: O_TMPFILE files linked through /proc/self/fd and AT_EMPTY_PATH replay as recorded"
