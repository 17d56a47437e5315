#!/bin/bash
# replay_dot_names.sh - calls that make or remove a name ending in "."
# (`rmdir d/.`, `rmdir .` in an empty directory, `mkdir d/.`) fail: "."
# names no entry of a parent (EINVAL, EEXIST).  The recorder wrote them as
# "d/" and as the directory itself, so the replay removed d/e and x/y, two
# directories the program never removed (3 mismatches).  Now the event
# keeps the "/." and the replay gives the recorded answer; lookups of "."
# (stat, ls -d) are written as before.  Recorded with ptrace (fast path
# and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp dotnames

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir -p "$T/root" "$T/w/d/e" "$T/w/x/y"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'rmdir d/. ; rmdir d/e/. ; mkdir d/. ; cd x/y && rmdir . ; stat . >/dev/null; true' \
		>/dev/null 2>"$T/err") || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | untimed >"$T/dump"
	for want in "rmdir(\"$T/w/d/.\") = -1 EINVAL" "rmdir(\"$T/w/d/e/.\") = -1 EINVAL" \
		    "mkdir(\"$T/w/d/.\", 0777) = -1 EEXIST" "rmdir(\"$T/w/x/y/.\") = -1 EINVAL"; do
		grep -qF "$want" "$T/dump" || fail "$b: no '$want' in the trace: $(grep -E 'rmdir|mkdir' "$T/dump")"
	done
	grep -q "stat[x]*(AT_FDCWD, \"$T/w/x/y\"," "$T/dump" ||
		fail "$b: the lookup of . is not written as the directory: $(grep "$T/w/x/y" "$T/dump")"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	for d in d/e x/y; do
		[ -d "$T/root$T/w/$d" ] || fail "$b: the replay removed $d, which the program did not"
	done
	echo "$b: rmdir and mkdir of names ending in . recorded so, replayed with their answers; d/e and x/y kept"
done
echo "ok: names ending in . are made and removed as recorded"
