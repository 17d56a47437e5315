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
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w/real/sub" "$T/r"
for i in $(seq 1 40); do echo "$i" >"$T/w/real/sub/f$i"; done
ln -s real "$T/w/lnk"
"$IOTAPE" record -q -o "$T/t.iotape" -- ls -f "$T/w/lnk/sub" >/dev/null || fail "record: exit $?"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
! grep -q 'cannot create' "$T/out" || fail "$(grep 'cannot create' "$T/out")"
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
[ -L "$T/r$T/w/lnk" ] || fail "lnk was made as $(stat -c %F "$T/r$T/w/lnk"), not a symlink"
n=$(find "$T/r$T/w/real/sub" -type f | wc -l)
[ "$n" = 40 ] || fail "the listed directory holds $n of its 40 files in the starting tree"
echo "ok: lnk made a symlink before the entries listed through it, 40 files in real/sub"
