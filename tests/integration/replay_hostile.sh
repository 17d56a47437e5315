#!/bin/bash
# replay_hostile.sh - replay a hostile trace ("..", symlinks out of the
# root, links and renames aimed outside, negative and unknown descriptors,
# enormous sizes, an 11-day think time) with the iotape command: a canary
# directory beside the root must be unchanged (full listing with mtimes
# and checksums), the replay must end, and the refusals must be clear.
set -u
. "$(dirname "$0")/lib.sh"
W=$SRCDIR/$BUILD/tests/unit/test_replay_hostile
[ -x "$W" ] || skip "test_replay_hostile not built"
need_iotape_cmd replay

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-hostile.XXXXXX")
trap 'rm -rf "$T"' EXIT
C=$T/canary R=$T/root
mkdir -p "$C/sub" "$R"
echo secret >"$C/file"
echo x >"$C/sub/y"
ln -s file "$C/lnk"
snap() {
	(cd "$C" && find . -printf '%p %y %s %m %n %T@ %l\n' | LC_ALL=C sort &&
		find . -type f -exec md5sum {} + | LC_ALL=C sort)
}
snap >"$T/before"
"$W" --write "$T/h.iotape" "$C" || fail "cannot write the hostile trace"

# afap and scaled timing; a hang fails through timeout's 124
timeout 60 "$IOTAPE" replay "$T/h.iotape" --root "$R" --timing afap -o "$T/h.prof" \
	--sparse-prepare >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc = 0 ] || fail "replay exited $rc"
grep -q "bad argument" "$T/out" || fail "impossible values not reported"
grep -q "made sparse" "$T/out" || fail "no message about the enormous file"
snap >"$T/after"
diff -u "$T/before" "$T/after" || fail "the canary beside the root changed"

# --verify reports the differences with exit 4
timeout 60 "$IOTAPE" replay "$T/h.iotape" --root "$R" --force --timing scale=0.0001 \
	--verify --sparse-prepare >"$T/out2" 2>&1
rc=$?
[ $rc = 4 ] || { cat "$T/out2"; fail "--verify exited $rc, not 4"; }
snap >"$T/after"
diff -u "$T/before" "$T/after" || fail "the canary changed on the second replay"

# refusals
out=$("$IOTAPE" replay "$T/h.iotape" --root / 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "refusing to replay into the system root" ||
	fail "--root / not refused: $rc $out"
out=$("$IOTAPE" replay "$T/h.iotape" --root "$T/.." 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "not empty" || fail "non-empty root not refused: $out"
out=$("$IOTAPE" replay "$T/h.iotape" --root "$T/missing" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "no such directory" || fail "missing root: $out"
out=$("$IOTAPE" replay "$T/h.iotape" 2>&1); rc=$?
[ $rc = 2 ] || fail "no --root: exit $rc"
out=$("$IOTAPE" replay "$T/h.iotape" --root "$R" --timing sideways 2>&1); rc=$?
[ $rc = 2 ] || fail "bad --timing: exit $rc"

# a truncated trace: the complete part is replayed, exit 3
sz=$(stat -c %s "$T/h.iotape")
head -c $((sz * 2 / 3)) "$T/h.iotape" >"$T/cut.iotape"
mkdir "$T/root2"
timeout 60 "$IOTAPE" replay "$T/cut.iotape" --root "$T/root2" --timing afap >"$T/out3" 2>&1
rc=$?
[ $rc = 3 ] || [ $rc = 1 ] || { cat "$T/out3"; fail "truncated trace: exit $rc"; }
snap >"$T/after"
diff -u "$T/before" "$T/after" || fail "the canary changed on the truncated replay"
echo "canary unchanged; refusals clear"
