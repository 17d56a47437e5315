#!/bin/bash
# record_dot_paths.sh - paths with a "." component ("./x": sort -T .,
# a configure script's ./conftest) get their state from before the call,
# on every backend.  The fast path left such paths to the recorder, which
# took their state when it drained the record, after the call: sort's
# temporary files, made with O_EXCL, were recorded as there at the start
# (their replayed creates failed with EEXIST: 1,248 mismatches of 1,742
# calls), and a file truncated through "./b" had its size after.  The
# states must be the ones before, and the replays match.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd sort
record_tmp dots

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	seq 1 100000 >"$T/w/in"
	printf 'hello\n' >"$T/w/b"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'sort -S 100K -T . in -o out && echo x >./b') \
		2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	made=$(grep -c "openat(AT_FDCWD, \"$T/w/sort[^\"]*\", O_RDWR|O_CREAT|O_EXCL" "$T/dump")
	[ "$made" -ge 2 ] || fail "$b: sort made $made temporary files, not 2 or more"
	there=$(grep "^#.* state \"$T/w/sort" "$T/dump" | grep -vc ' absent')
	[ "$there" = 0 ] || fail "$b: $there of sort's temporary files recorded as there at the start: $(grep "^#.* state \"$T/w/sort" "$T/dump" | grep -v ' absent' | head -3)"
	grep -q "^#.* state \"$T/w/b\" S_IFREG|0644 size=6 " "$T/dump" ||
		fail "$b: ./b's state is not its 6 bytes before: $(grep "state \"$T/w/b\"" "$T/dump")"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out"
	echo "$b: $made temporary files recorded absent at the start, ./b with its 6 bytes, 0 mismatches"
done
echo "ok: paths through . keep their state from before the call"
