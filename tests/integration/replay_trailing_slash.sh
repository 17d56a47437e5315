#!/bin/bash
# replay_trailing_slash.sh - a name given with a trailing slash ("f/",
# "d/.") asks for a directory: the kernel answers ENOTDIR for a file where
# the bare name would succeed.  The recorder keeps the slash in the event
# (decode_exit.c, write_event()); the replay looks such a path up whole,
# confined, or gives the slash's answer from the bare name in its parent
# (ops_dir.c, slash_answer(); a rename's in the kernel's order, rename_slashed():
# a no-replace rename onto an existing DIR/ met EEXIST, replayed ENOTDIR
# until 2026-12-07, mv's first try), never following a symlink out of the root.
# Every call below must replay with the recorded result (--verify), the
# trace must name the paths with their slash, and the tree the replay
# leaves must be the one the program left.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record_lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot record here"
need_python

tmp_dir "${TMPDIR:-/tmp}/iotape-slash"
A=$T/A
mkdir -p "$A/d/sub" "$A/d2"
echo f >"$A/f"
echo g >"$A/g"
echo h >"$A/d/h"
ln -s d "$A/l"
ln -s f "$A/lf"
mkdir "$T/outside" && echo keep >"$T/outside/x"
ln -s "$T/outside" "$A/lo"		# absolute, out of the tree
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import os
def try_(what, f, *a):
    try:
        f(*a)
        r = 0
    except OSError as e:
        r = e.errno
    print(what, r)
try_("stat f/", os.stat, "f/")
try_("stat f/.", os.stat, "f/.")
try_("stat d/", os.stat, "d/")
try_("stat d/.", os.stat, "d/.")
try_("lstat l/", os.lstat, "l/")
try_("lstat lf/", os.lstat, "lf/")
try_("stat abs f/", os.stat, os.path.abspath("f") + "/")
try_("open f/", os.open, "f/", os.O_RDONLY)
try_("open new/ creat", os.open, "new/", os.O_WRONLY | os.O_CREAT, 0o644)
try_("access f/", os.access, "f/", os.R_OK)
try_("chmod f/", os.chmod, "f/", 0o600)
try_("chmod d/sub/", os.chmod, "d/sub/", 0o700)
try_("mkdir n/", os.mkdir, "n/")
try_("mkdir f/", os.mkdir, "f/")
try_("unlink f/", os.unlink, "f/")
try_("unlink d/h/", os.unlink, "d/h/")
try_("rmdir n/", os.rmdir, "n/")
try_("rename g h/", os.rename, "g", "h/")
try_("rename g/ h", os.rename, "g/", "h")
try_("rename d2/ d3/", os.rename, "d2/", "d3/")
try_("link f k/", os.link, "f", "k/")
try_("symlink x s/", os.symlink, "x", "s/")
try_("listdir d/sub/", os.listdir, "d/sub/")
try_("unlink l/", os.unlink, "l/")
try_("unlink lo/", os.unlink, "lo/")
try_("rmdir lo/", os.rmdir, "lo/")
try_("rename lo/ m", os.rename, "lo/", "m")
try_("rename l/ m", os.rename, "l/", "m")
try_("symlink x lo/", os.symlink, "x", "lo/")
try_("mknod lo/", os.mkfifo, "lo/")
try_("mknod p/", os.mkfifo, "p/")
# renameat2 with flags (mv FILE DIR/ tries a no-replace rename first):
# EEXIST comes before the slash'"'"'s ENOTDIR, and so does an exchange'"'"'s ENOENT
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def rename2(what, a, b, flags):
    r = libc.renameat2(-100, a, -100, b, flags)
    print(what, ctypes.get_errno() if r < 0 else 0)
rename2("rename2 g d/ noreplace", b"g", b"d/", 1)
rename2("rename2 g x/ noreplace", b"g", b"x/", 1)
rename2("rename2 g x/ exchange", b"g", b"x/", 2)
rename2("rename2 g f/ exchange", b"g", b"f/", 2)
# mv FILE ..: a no-replace rename onto the last ".." first, EEXIST,
# replayed EINVAL until 2026-12-07, night (gem build)
os.chdir("d")
rename2("rename2 h .. noreplace", b"h", b"..", 1)
os.chdir("..")
' >"$T/rec.out") || fail "recording failed"
grep -q "rename2 g d/ noreplace 17" "$T/rec.out" || { cat "$T/rec.out"; fail "renameat2(g, d/, NOREPLACE) did not meet EEXIST"; }
grep -q "rename2 h .. noreplace 17" "$T/rec.out" || { cat "$T/rec.out"; fail "renameat2(h, .., NOREPLACE) did not meet EEXIST"; }
grep -q "stat f/ 20" "$T/rec.out" || { cat "$T/rec.out"; fail "the program did not see ENOTDIR for f/"; }
"$IOTAPE" dump "$T/t.iotape" >"$T/dump" || fail "dump failed"
grep -q "\"$A/f/\"" "$T/dump" || fail "the trace names $A/f without its trailing slash"
grep -q "\"$A/d3/\"" "$T/dump" || fail "rename's second name lost its trailing slash"
bad=$(grep -c "\"$A/d/\.\"" "$T/dump")
[ "$bad" = 0 ] || fail "d/. kept its '.' in the trace"

root=$T/root
mkdir "$root"
WHY="a name with a trailing slash gave another result" \
	replay_clean "" "$T/t.iotape" "$root" "$T/out" --timing afap --verify
# the tree: f, g still there (their unlink and renames failed), d3 made
# from d2, n made and removed, no h, k, s or new
R=$root$A
for p in f g d d/h d3 d/sub; do [ -e "$R/$p" ] || fail "the replay lost $p"; done
[ -L "$R/lo" ] && [ -L "$R/l" ] || fail "the replay removed or moved a symlink named with a slash"
[ "$(cat "$T/outside/x")" = keep ] || fail "something outside the root changed"
for p in d2 n h k s new m p; do [ ! -e "$R/$p" ] && [ ! -L "$R/$p" ] || fail "the replay made $p"; done
[ "$(stat -c %a "$R/f")" = "$(stat -c %a "$A/f")" ] || fail "chmod f/ changed f in the replay"
echo "ok: $(wc -l <"$T/rec.out") calls with a trailing slash replay as recorded, 0 mismatches"
