#!/bin/bash
# fault_replay_hostile.sh - replay traces of real programs that did hostile
# things, and replay onto a filesystem that fills up.
#  1. rel_hostile, recorded in a scratch directory, writes through absolute
#     symlinks, climbs out with "..", renames and hard-links across, swaps
#     a directory for a symlink, chdirs through a symlink and to "/"; all
#     of it lands in two throwaway canaries (one beside the replay root,
#     one under /tmp).  The canaries are then moved away and made afresh,
#     and the trace is replayed: both canaries and the scratch directory
#     must be unchanged (listing with sizes, modes, mtimes, link targets,
#     and sha256), while the same steps must have happened under the root.
#  2. (root, loop devices) a trace that writes 19 MiB replayed onto an
#     8 MiB ext4: the replay completes, exit 0 (4 with --verify), the
#     profile holds the ENOSPC results and the summary counts the writes
#     that differ.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_ptrace
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
T=$(mktemp -d /tmp/iotape-hostile-rec.XXXXXX)
C1=$T/canary
C2=$(mktemp -d /tmp/iotape-canary.XXXXXX)
S=$T/work
R=$T/root
cleanup() {
	loop_cleanup
	rm -rf "$T" "$C2" "$C2.recorded"
}
trap cleanup EXIT

canary() {	# DIR - the canary's starting contents
	mkdir -p "$1/sub"
	echo secret >"$1/secret"
	echo victim >"$1/victim"
	echo y >"$1/sub/y"
}

snap() {	# every path, type, size, mode, links, mtime, target; checksums
	local c
	for c in "$C1" "$C2" "$S"; do
		find "$c" -printf '%p %y %s %m %n %T@ %l\n' | LC_ALL=C sort
		find "$c" -type f -exec sha256sum {} + | LC_ALL=C sort
	done
}

canary "$C1"
canary "$C2"
mkdir "$S" "$R"
(cd "$S" && timeout 60 "$IOTAPE" record -q -o "$T/h.iotape" -- \
	"$PROGS/rel_hostile" "$C1" "$C2") || fail "rel_hostile did not run cleanly under record"
# natively it did escape: that is what makes the trace hostile
[ -f "$C1/x" ] && [ -f "$C2/up" ] && [ ! -e "$C1/victim" ] ||
	fail "rel_hostile did not reach its canaries natively"
"$IOTAPE" dump "$T/h.iotape" | grep -q '\.\./\.\./.*iotape-canary' ||
	fail "the trace does not hold the '..' paths"
mv "$C1" "$T/canary.recorded"
mv "$C2" "$C2.recorded"
canary "$C1"
canary "$C2"
snap >"$T/before"

for timing in afap original; do
	rm -rf "$R" && mkdir "$R"
	timeout 120 "$IOTAPE" replay "$T/h.iotape" --root "$R" --timing $timing \
		-o "$T/h.prof" >"$T/out" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { cat "$T/out"; fail "replay --timing $timing exited $rc"; }
	snap >"$T/after"
	diff -u "$T/before" "$T/after" >&2 || fail "replay --timing $timing changed a canary"
	# the hostile steps were replayed, inside the root
	for f in "$C2/up" "$C2/z" "$C2/moved" "$C1/w" "$C1/y"; do
		[ -f "$R$f" ] || fail "replay --timing $timing: $R$f was not made"
	done
	echo "replay --timing $timing: exit 0, canaries unchanged, the steps landed under the root"
done
"$IOTAPE" replay "$T/h.iotape" --root "$R" --force --verify --timing afap >"$T/out" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "replay --verify exited $rc"
snap >"$T/after"
diff -u "$T/before" "$T/after" >&2 || fail "replay --force --verify changed a canary"
echo "replay --force --verify: exit $rc, canaries unchanged"

# ---- a filesystem that fills up ----
if [ "$(id -u)" != 0 ] || [ ! -e /dev/loop-control ] || ! command -v mkfs.ext4 >/dev/null; then
	echo "full filesystem: not run (needs root, loop devices and mkfs.ext4)"
	echo ok
	exit 0
fi
mkdir "$T/big"
timeout 120 "$IOTAPE" record -q -o "$T/big.iotape" -- "$PROGS/rel_writer" "$T/big" 150 150 131072 \
	>/dev/null || fail "recording the 19 MiB writer failed"
rm -rf "$T/big"
loop_fs ext4 8M "$T/fs"
# by default the first ENOSPC stops the replay (exit 5: fault_target_*.sh);
# --on-error continue goes on, as this test did before, and exits 0
timeout 300 "$IOTAPE" replay "$T/big.iotape" --root "$T/fs" --timing afap -o "$T/big.prof" \
	>"$T/out" 2>&1
rc=$?
[ "$rc" = 5 ] || { cat "$T/out"; fail "replay onto a full filesystem exited $rc, want 5"; }
# the stopped replay left its files: the tree would not fit again
find "$T/fs" -mindepth 1 -delete
timeout 300 "$IOTAPE" replay "$T/big.iotape" --root "$T/fs" --force --on-error continue \
	--timing afap -o "$T/big.prof" >"$T/out" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$T/out"; fail "replay --on-error continue onto a full filesystem exited $rc, want 0"; }
grep -Eq 'mismatches +[1-9][0-9]* .*write [1-9]' "$T/out" ||
	{ cat "$T/out"; fail "the summary does not count the failed writes"; }
n=$("$IOTAPE" dump "$T/big.prof" | grep -c 'write(.*= -1 ENOSPC')
[ "$n" -gt 0 ] || fail "no ENOSPC write in the profile"
"$IOTAPE" check -q "$T/big.prof" || fail "the profile of the full replay is not valid"
find "$T/fs" -mindepth 1 -delete
timeout 300 "$IOTAPE" replay "$T/big.iotape" --root "$T/fs" --force --verify --timing afap \
	--on-error continue >"$T/out" 2>&1
rc=$?
[ "$rc" = 4 ] || { cat "$T/out"; fail "replay --verify onto a full filesystem exited $rc, want 4"; }
loop_fs_drop "$T/fs"
echo "full 8 MiB ext4: exit 5; --on-error continue: exit 0 ($n writes ENOSPC in the profile), --verify exit 4"
echo ok
