#!/bin/bash
# replay_listed_link.sh - a directory listed through a symlink in its
# path (ls -f lnk/sub, lnk -> real; ldconfig lists /lib/x86_64-linux-gnu,
# /lib -> usr/lib).  The listed entries' states have the listing's time,
# the symlink's the time the recorder took it, later; the starting tree
# was made in time order, so an entry made its parents as directories
# first, and the symlink was not made ("cannot create ... File exists":
# lnk a directory, real/sub empty; ldconfig's replay 8 mismatches until
# 2026-12-07).  Now a path is made after its parents' states.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w/real/sub" "$T/r"
for i in $(seq 1 40); do echo "$i" >"$T/w/real/sub/f$i"; done
ln -s real "$T/w/lnk"
"$IOTAPE" record -q -o "$T/t.iotape" -- ls -f "$T/w/lnk/sub" >/dev/null || fail "record: exit $?"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
! grep -q 'cannot create' "$T/out" || fail "$(grep 'cannot create' "$T/out")"
[ -L "$T/r$T/w/lnk" ] || fail "lnk was made as $(stat -c %F "$T/r$T/w/lnk"), not a symlink"
n=$(find "$T/r$T/w/real/sub" -type f | wc -l)
[ "$n" = 40 ] || fail "the listed directory holds $n of its 40 files in the starting tree"
echo "ok: lnk made a symlink before the entries listed through it, 40 files in real/sub"
