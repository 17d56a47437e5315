#!/bin/bash
# replay_dcache.sh - the replay's cache of parent directories (dcache.c)
# across removals: a program that makes, stats and unlinks files in one
# directory has that directory looked up from the root once, not again
# after each unlink; a directory reached through a symlink is looked up
# again once that symlink was unlinked and another made in its place (by
# a hard link, which changes no generation itself), so the files after it
# land where the new symlink points, as natively.  Files written aside
# and renamed into place in one directory keep it cached too (moves.c);
# a directory renamed away and another put in its place, or exchanged
# with a file, is followed to what the name is now.  cp -al looks up each
# source directory once, not once per file it links from there.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record_lib.sh"
"$IOTAPE" record --help >/dev/null 2>&1 || skip "recorder not built"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
need_python
need_cmd strace

tmp_dir "${TMPDIR:-/tmp}/iotape-dcache"
A=$T/A
mkdir "$A"
N=200
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import os, sys
n = int(sys.argv[1])
os.mkdir("spool")
for i in range(n):
    p = "spool/m%d" % (i % 7)
    with open(p, "w") as f:
        f.write("x" * 100)
    os.stat(p)
    os.unlink(p)
os.mkdir("real")
os.mkdir("other")
os.symlink("real", "via")
os.symlink("other", "via2")
open("via/a", "w").close()
os.unlink("via")
os.link("via2", "via", follow_symlinks=False)
open("via/b", "w").close()
os.mkdir("work")
for i in range(n):
    if i % 2:
        fd = os.open("work/.tmp%d" % (i % 3), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"y" * 100)
        os.close(fd)
    else:
        with open("work/.tmp%d" % (i % 3), "w") as f:
            f.write("y" * 100)
    os.rename("work/.tmp%d" % (i % 3), "work/f%d" % (i % 5))
    os.stat("work/f%d" % (i % 5))
os.mkdir("d1")
open("d1/x", "w").close()
os.mkdir("d2")
os.rename("d1", "old")
os.rename("d2", "d1")
open("d1/y", "w").close()
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
os.mkdir("e1")
open("e1/p", "w").close()
open("ef", "w").close()
if libc.renameat2(-100, b"ef", -100, b"e1", 2) != 0:	# RENAME_EXCHANGE
    sys.exit("renameat2: %s" % os.strerror(ctypes.get_errno()))
try:
    open("e1/z", "w").close()
    sys.exit("e1/z made in a file")
except NotADirectoryError:
    pass
open("ef/q", "w").close()
' "$N") || fail "recording failed"
[ -e "$A/other/b" ] && [ ! -e "$A/real/b" ] || fail "the workload itself did not do what it should"
[ -e "$A/d1/y" ] && [ -e "$A/old/x" ] && [ -e "$A/ef/q" ] || fail "the workload itself did not rename as it should"

root=$T/root
mkdir "$root"
strace -f -qq -e trace=openat2 -o "$T/strace.log" \
	"$IOTAPE" replay "$T/t.iotape" --root "$root" --timing afap >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay failed"; }
grep -q "mismatches   0" "$T/out" || { cat "$T/out"; fail "the replay's results differ"; }
# the spool directory opened (from the root, or by name in its parent):
# once, or a few times, not once per unlink
opens=$(grep -cE '"([^"]*/)?spool/*", \{flags=[A-Z_|]*O_PATH' "$T/strace.log")
[ "$opens" -ge 1 ] || { head -50 "$T/strace.log"; fail "no lookup of the spool directory in the strace log"; }
[ "$opens" -le 5 ] || fail "the spool directory was looked up $opens times for $N unlinks of files in it"
[ -e "$root$A/other/b" ] || fail "via/b is not where the new symlink points ($root$A/other/b)"
[ ! -e "$root$A/real/b" ] || fail "via/b was made through the removed symlink ($root$A/real/b)"
[ -e "$root$A/real/a" ] || fail "via/a is missing ($root$A/real/a)"
# the work directory: once or a few times, not once or twice per rename
wopens=$(grep -cE '"([^"]*/)?work/*", \{flags=[A-Z_|]*O_PATH' "$T/strace.log")
[ "$wopens" -ge 1 ] || fail "no lookup of the work directory in the strace log"
[ "$wopens" -le 5 ] || fail "the work directory was looked up $wopens times for $N renames of files in it"
[ -e "$root$A/work/f0" ] && [ ! -e "$root$A/work/.tmp0" ] || fail "the renames in work/ did not replay"
[ -e "$root$A/d1/y" ] && [ ! -e "$root$A/old/y" ] || fail "d1/y is not in the directory renamed to d1 ($root$A/d1/y)"
[ -e "$root$A/old/x" ] || fail "d1/x did not move with its directory ($root$A/old/x)"
[ -d "$root$A/ef" ] && [ -e "$root$A/ef/q" ] && [ -f "$root$A/e1" ] ||
	fail "the exchange of a file with a directory was not followed ($root$A/ef/q)"

# cp -al: each file linked from its source directory into the copy's, a
# link's two names in two parents, the source's looked up in the cache as
# the copy's is, not from the root once per file (rpl_parent_at2())
B=$T/B
mkdir -p "$B/src"
for d in 0 1 2; do
	mkdir "$B/src/d$d"
	for f in $(seq 40); do echo "$d $f" >"$B/src/d$d/f$f"; done
done
(cd "$B" && "$IOTAPE" record -q -o "$T/l.iotape" -- cp -al src farm) || fail "recording cp -al failed"
[ "$(stat -c %h "$B/farm/d2/f40")" = 2 ] || fail "cp -al itself made no links"
root2=$T/root2
mkdir "$root2"
strace -f -qq -e trace=openat2 -o "$T/strace2.log" \
	"$IOTAPE" replay "$T/l.iotape" --root "$root2" --timing afap --verify >"$T/out2" 2>&1 ||
	{ cat "$T/out2"; fail "replay of cp -al failed"; }
# (as a parent, O_PATH, by name or whole path: made when the tree is
# prepared, and in the copy, once each; a source directory is cached when
# cp opens it to read it)
lopens=$(grep -cE '"([^"]*/)?d[012]/*", \{flags=[A-Z_|]*O_PATH' "$T/strace2.log")
[ "$lopens" -ge 3 ] || { head -50 "$T/strace2.log"; fail "no lookup of d0-d2 in the strace log"; }
[ "$lopens" -le 12 ] || fail "d0-d2 of src and farm were looked up $lopens times for 120 links"
for d in 0 1 2; do
	for f in 1 40; do
		[ "$(stat -c %h "$root2$B/farm/d$d/f$f")" = 2 ] &&
			[ "$(stat -c %i "$root2$B/farm/d$d/f$f")" = "$(stat -c %i "$root2$B/src/d$d/f$f")" ] ||
			fail "farm/d$d/f$f is not a link of src/d$d/f$f in the replay"
	done
done
echo "ok: the spool directory looked up $opens time(s) for $N unlinks, the work directory" \
	"$wopens time(s) for $N renames; a replaced symlink, a replaced and an exchanged directory followed anew;" \
	"cp -al's directories (d0-d2 of src and farm) $lopens time(s) for 120 links"
