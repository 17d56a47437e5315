#!/bin/bash
# replay_link_chain.sh - files reached through two chained directory
# symlinks (d/top -> up -> real; d1/top -> ../d2/up -> ../d3/real), and
# then by their real paths, with "/" first named at the end (stat /).
# An ancestor's later state gives its time to every path below it, so
# the starting tree was made in path order: top/f before up, whose name
# sorts later.  Making top/f's parents made up a directory, real/f was
# never made, and reading it failed (ENOENT; run-parts of jobs copying
# /usr/share/doc/*/copyright, libbinutils -> binutils-common: 69
# mismatches).  Now a missing ancestor the starting tree holds as a
# symlink is made as that symlink, found by its path without "..".
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w/d/real" "$T/w/d1" "$T/w/d2" "$T/w/d3/real" "$T/r"
echo hello >"$T/w/d/real/f"
echo hello >"$T/w/d3/real/f"
ln -s real "$T/w/d/up"
ln -s up "$T/w/d/top"
ln -s ../d3/real "$T/w/d2/up"
ln -s ../d2/up "$T/w/d1/top"
cd "$T/w" || fail "cd $T/w"
"$IOTAPE" record -q -o "$T/t.iotape" -- \
	sh -c 'cat d/top/f d1/top/f; cat d/real/f d3/real/f; stat / >/dev/null' \
	>/dev/null || fail "record: exit $?"
WHY="a link in the middle of a chain was made as a directory" \
	replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
for l in d/up d2/up; do
	[ -L "$T/r$T/w/$l" ] || fail "$l was made as $(stat -c %F "$T/r$T/w/$l"), not a symlink"
done
for f in d/real/f d3/real/f; do
	[ -f "$T/r$T/w/$f" ] || fail "$f is not in the starting tree"
done
echo "ok: both chains made as recorded, real/f there, 0 mismatches"
