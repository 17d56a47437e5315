#!/bin/bash
# replay_deleted_cwd.sh - a shell whose working directory another
# process removes: `mkdir d; cd d; rmdir ../d; touch x; pwd -P; ls; cd
# ..`, then a program started there (`ls`, which opens "."), and a
# `find -execdir` (fchdir) whose directory goes too.  Natively "." and
# ".." still work in a removed directory; the trace names them by its
# full path, which names nothing in the replay once it is removed: the
# stat and the open of ".", and the `cd ..`, failed ENOENT (4
# mismatches).  Now each replayed process keeps its working directory
# open (children get a copy) and such a call is made through it.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp deletedcwd

cat >"$T/w.sh" <<'W'
cd "$1"
mkdir d
cd d
rmdir ../d
touch x 2>/dev/null
pwd -P >/dev/null 2>&1
ls >/dev/null
sh -c 'ls -a . >/dev/null'
cd ..
mkdir e
cd e
rmdir "$1/e"
cd ..
echo done
W
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/w"
	mkdir "$T/root" "$T/w"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- bash "$T/w.sh" "$T/w" \
		>"$T/out" 2>"$T/err" || fail "$b: recording the script failed: $(cat "$T/err")"
	[ "$(cat "$T/out")" = done ] || fail "$b: the script did not run to its end: $(cat "$T/out" "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -q "chdir(\"$T/w/d/..\") = 0" ||
		fail "$b: the trace holds no cd .. out of the removed directory"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ -d "$T/root$T/w" ] && [ -z "$(ls -A "$T/root$T/w")" ] ||
		fail "$b: the replay left $T/w with $(ls -A "$T/root$T/w")"
done
exit 0
