#!/bin/bash
# replay_stat_links.sh - a stat that follows a symlink at its last
# component, replayed through the cache of parents (ops_meta.c,
# stat_through_links()): the target read and looked up in its own
# parent, link after link, as the kernel walks it inside the root.  The
# results must be the recorded ones for an absolute and a relative
# target, a chain of three, a link to a directory, a dangling link, a
# loop, a target with "..", one through a symlinked directory, and a
# target out of the tree (looked up inside the root all the same), a link
# to a directory named with a trailing slash; the
# zone-file case (localtime()'s stat of /etc/localtime per file, zip,
# tar) must not open the whole path from the root once per stat.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record_lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot record here"
need_python
need_cmd strace

tmp_dir "${TMPDIR:-/tmp}/iotape-statlinks"
A=$T/A
mkdir -p "$A/z/Etc" "$A/etc" "$A/d/sub" "$A/real"
echo zone >"$A/z/Etc/UTC"
echo f >"$A/d/sub/f"
echo r >"$A/real/x"
ln -s "$A/z/Etc/UTC" "$A/etc/localtime"	# absolute
ln -s sub/f "$A/d/rel"				# relative, one directory down
ln -s rel "$A/d/c3" && ln -s c3 "$A/d/c2" && ln -s c2 "$A/d/c1"	# a chain
ln -s sub "$A/d/dirlink"			# to a directory
ln -s nowhere "$A/d/dangling"
ln -s loop2 "$A/d/loop1" && ln -s loop1 "$A/d/loop2"
ln -s ../real/x "$A/d/dotdot"
ln -s "$A/real" "$A/d/via"			# a symlinked directory on the way
ln -s ../x "$A/real/up"				# .. from where via leads: $A/x, none
ln -s /no/such/place/out "$A/d/out"		# out of the tree
N=300
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import os, sys
def st(p):
    try:
        os.stat(p)
    except OSError:
        pass
for i in range(int(sys.argv[1])):
    os.stat("etc/localtime")
for p in ("d/rel", "d/c1", "d/dirlink", "d/dangling", "d/loop1", "d/dotdot",
          "d/via/x", "d/via/up", "d/out", "d/dirlink/f"):
    st(p)
    try:
        os.stat(os.path.abspath(p))
    except OSError:
        pass
st("d/dirlink/")
st(os.path.abspath("d/dirlink") + "/")
' "$N") || fail "recording failed"

root=$T/root
mkdir "$root"
strace -f -qq -e trace=openat2 -o "$T/strace.log" \
	"$IOTAPE" replay "$T/t.iotape" --root "$root" --timing afap --verify >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay --verify failed: a stat through a symlink gave another result"; }
grep -q "mismatches   0" "$T/out" || { cat "$T/out"; fail "the replay's results differ"; }
# /etc/localtime's target opened whole from the root: once, or a few
# times, not once per stat
full=$(grep -cE 'openat2\([0-9]+, "[^"]*/etc/localtime"' "$T/strace.log")
[ "$full" -le 5 ] || fail "etc/localtime was opened from the root $full times for $N stats"
[ ! -e /no/such/place ] || fail "/no/such/place exists outside the root"
echo "ok: stats through absolute, relative, chained, directory, dangling, looping, '..' and" \
	"out-of-tree symlinks replay as recorded; etc/localtime opened whole $full time(s) for $N stats"
