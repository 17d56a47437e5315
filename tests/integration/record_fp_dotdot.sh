#!/bin/bash
# record_fp_dotdot.sh - paths with ".." under the fast path: `mkdir ../x`
# from a subdirectory, a file made in it, `mkdir ../x/../y`, and the same
# from a directory reached through a symlink (`cd link; mkdir ../z`,
# where the kernel takes ".." from the link's target).  The fast path
# left a path with ".." to the recorder, which took its state after the
# call: x and y were recorded as there at the start, and their replayed
# mkdirs failed (EEXIST).  Now it takes the lstat before the call, as the
# recorder does at the entry stop.  The states of the paths below the
# test's directory must be the same as without the fast path, and the
# replay must make them (0 mismatches).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_fastpath_lib
record_tmp fpdotdot

states() {
	"$IOTAPE" dump --states "$1" | sed -n "s|^#  *[0-9.]* state \"$T/w\(/[^\"]*\)\"|\1|p" | sort
}

for b in ptrace ptrace-slow; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/r" "$T/w/real/sub" "$T/root"
	ln -s real/sub "$T/w/link"
	(cd "$T/w/r" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b.iotape" -- sh -c \
		'mkdir ../x && echo a >../x/f && mkdir ../x/../y && ls ../x/. >/dev/null &&
		 cd ../link && mkdir ../z && echo b >../z/g') 2>"$T/err" ||
		fail "$b: recording failed: $(cat "$T/err")"
	[ -f "$T/w/x/f" ] && [ -d "$T/w/y" ] && [ -f "$T/w/real/z/g" ] ||
		fail "$b: the commands did not make x/f, y and real/z/g"
	states "$T/$b.iotape" >"$T/$b.states"
	grep -q '^/r/\.\./x absent$' "$T/$b.states" ||
		fail "$b: r/../x not recorded as absent at the start: $(grep x "$T/$b.states")"
	grep -q '^/link/\.\./z absent$' "$T/$b.states" ||
		fail "$b: link/../z not recorded as absent at the start: $(grep z "$T/$b.states")"
	replay_verified "$b" "$T/$b.iotape" "$T/root" "$T/rout"
	[ -f "$T/root$T/w/x/f" ] && [ -d "$T/root$T/w/y" ] && [ -f "$T/root$T/w/real/z/g" ] ||
		fail "$b: the replay did not make x/f, y and real/z/g"
done
# the fast path's states are the traced ones, size and times aside
diff <(sed 's/ size=.*//' "$T/ptrace.states") <(sed 's/ size=.*//' "$T/ptrace-slow.states") >"$T/d" ||
	fail "states differ with and without the fast path: $(cat "$T/d")"
exit 0
