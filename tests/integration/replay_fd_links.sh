#!/bin/bash
# replay_fd_links.sh - opens of a descriptor's magic link replay as opens
# of the replayed descriptor's file or pipe, not of the path recorded.
# tests/progs/fd_links: an O_TMPFILE file through /proc/self/fd/N (its
# recorded path, its directory, was opened and read: EISDIR, a mismatch)
# and linked through /dev/fd/N, a renamed file through /dev/fd/N, a pipe
# through /dev/stdin and /proc/self/fd/N and a parent's pipe through
# /proc/PPID/fd/N (these kept as written, under /dev and /proc: not
# replayed, their reads skipped, no link made).  And bash's process
# substitution, `cat <(seq
# 100000)`: cat opens /dev/fd/63, the pipe seq writes; not replayed, its
# reads were skipped, seq's writes filled the pipe and waited for room
# in vain.  Now --verify exits 0, with no mismatch, no call on such a
# descriptor left out, and the summary counts the opens.  Recorded with
# ptrace (with the fast path and without) and with bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd bash
[ -x "$PROGS/fd_links" ] || fail "$PROGS/fd_links is not built (make tests)"
tmp_dir /tmp/iotape-fdlinks
cd "$T"
record_backends "$T"

# replay T.iotape WHAT LINKS: --verify clean, no call on a descriptor's
# link left out (the profile's dump: its open, and the calls on the
# descriptor it made, which carry its path), LINKS opens of them
check() {
	rm -rf "$T/root"
	mkdir "$T/root"
	replay_clean "$2" "$T/t.iotape" "$T/root" "$T/out" --timing afap --verify -o "$T/p.iotape"
	"$IOTAPE" dump -y "$T/p.iotape" >"$T/dump"
	grep -E '/dev/fd/|/dev/stdin|/proc/(self|[0-9]+)/fd/' "$T/dump" | grep 'not replayed' &&
		fail "$2: calls on a descriptor's link not replayed"
	grep -Eq "^  fd links     $3 opens" "$T/out" ||
		{ cat "$T/out"; fail "$2: not $3 opens of descriptors' links"; }
	return 0
}

for b in "${BACKENDS[@]}"; do
	rm -rf "$T/w"
	mkdir "$T/w"
	backend_opts "$b"
	rc=0
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/fd_links" "$T/w" </dev/null ||
		rc=$?
	[ $rc = 77 ] && skip "no O_TMPFILE on the filesystem of $T"
	[ $rc = 0 ] || fail "$b: recording fd_links failed (exit $rc)"
	check "$T/t.iotape" "$b: fd_links" 5
	[ "$(stat -c %s "$T/root$T/w/h" 2>/dev/null)" = 3000 ] ||
		{ ls -la "$T/root$T/w"; fail "$b: the replay did not link w/h (linkat of /dev/fd/N)"; }

	rm -rf "$T/w"
	mkdir "$T/w"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		bash -c "cat <(seq 100000) >$T/w/out" </dev/null ||
		fail "$b: recording bash's process substitution failed"
	[ "$(wc -l <"$T/w/out")" = 100000 ] || fail "$b: cat did not copy seq's lines"
	check "$T/t.iotape" "$b: cat <(seq 100000)" 1
	echo "$b: ok"
done
echo "ok: opens of /proc/self/fd/N, /dev/fd/N, /dev/stdin and /proc/PID/fd/N replay the descriptor's file or pipe"
