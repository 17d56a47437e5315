#!/bin/bash
# replay_keep.sh - the starting tree a setup left under the root is kept:
# 'iotape replay --prepare-only' over a root where a recorded file already
# is, a regular file of its recorded size, and a symlink to its recorded
# target, leaves them as they are (same inode, same bytes), and replaces
# what differs (another size, another target).
set -u
. "$(dirname "$0")/lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-keep.XXXXXX")
trap 'rm -rf "$T"' EXIT
A=$T/A
mkdir -p "$A"
head -c 5000 /dev/urandom >"$A/same"
head -c 3000 /dev/urandom >"$A/resized"
ln -s same "$A/link"
ln -s same "$A/relinked"
chmod 0640 "$A/same"
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- \
	sh -c 'cat same resized link relinked >/dev/null') || fail "recording failed"

# the root as a setup would leave it: the same names, other bytes
R=$T/root
mkdir -p "$R$A"
head -c 5000 /dev/zero | tr '\0' s >"$R$A/same"
head -c 10 /dev/zero | tr '\0' r >"$R$A/resized"
ln -s same "$R$A/link"
ln -s resized "$R$A/relinked"
chmod 0600 "$R$A/same"
ino_same=$(stat -c %i "$R$A/same")
ino_link=$(stat -c %i "$R$A/link")
sum_same=$(md5sum <"$R$A/same")

"$IOTAPE" replay "$T/t.iotape" --root "$R" --force --prepare-only >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "prepare failed"; }
[ "$(stat -c %i "$R$A/same")" = "$ino_same" ] || fail "a file of the recorded size was made anew"
[ "$(md5sum <"$R$A/same")" = "$sum_same" ] || fail "a file of the recorded size was written over"
[ "$(stat -c %a "$R$A/same")" = 640 ] || fail "a kept file did not get its recorded mode"
[ "$(stat -c %i "$R$A/link")" = "$ino_link" ] || fail "a symlink to its recorded target was made anew"
[ "$(stat -c %s "$R$A/resized")" = 3000 ] || fail "a file of another size was not made with the recorded one"
[ "$(readlink "$R$A/relinked")" = same ] || fail "a symlink to another target was not replaced"
grep -q "kept         2 files and symlinks" "$T/out" || { cat "$T/out"; fail "the summary does not count the kept entries"; }
echo "ok: a setup's file and symlink kept, what differs replaced"
