#!/bin/bash
# record_fp_slash.sh - paths first named with a trailing slash, recorded
# by ptrace with its fast path: a file looked up as "f/" (ENOTDIR), a
# symlink to a directory as "l/", a dangling one as "dl/" (dpkg-source
# -b opens every entry of its tree so).  The fast path took their state
# with an lstat of the name as given and the recorder kept it under the
# bare name: the file absent, the symlinks a directory or absent, and
# the replay's tree lacked them (339 mismatches a dpkg-source replay;
# here 4).  Such calls stop in the recorder now, which takes the entry's
# state.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp fpslash
D=$T/d
mkdir -p "$D/real" "$T/r"
echo hello >"$D/real/f"
ln -s real "$D/lnk"
ln -s nowhere "$D/dl"
"$IOTAPE" record -q --backend ptrace -o "$T/t.iotape" -- sh -c \
	"test -d $D/real/f/; cat $D/real/f; test -d $D/lnk/; readlink $D/lnk; test -e $D/dl/; readlink $D/dl" \
	>"$T/rec.out" || fail "record: exit $?"
"$IOTAPE" dump --states "$T/t.iotape" >"$T/states" || fail "dump exit $?"
grep -q "state \"$D/real/f\" S_IFREG" "$T/states" || { grep "$D" "$T/states"; fail "f's state is not the file"; }
grep -q "state \"$D/lnk\" S_IFLNK" "$T/states" || { grep "$D" "$T/states"; fail "lnk's state is not the symlink"; }
grep -q "state \"$D/dl\" S_IFLNK" "$T/states" || { grep "$D" "$T/states"; fail "dl's state is not the symlink"; }
rm -rf "$D"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: a file and two symlinks first named with a trailing slash keep their states, 0 mismatches"
