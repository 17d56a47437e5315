#!/bin/bash
# replay_btrfs_subvol.sh - btrfs subvolume create, files copied in, a
# snapshot and a read-only one, a file changed in the snapshot, the first
# subvolume deleted (BTRFS_IOC_SUBVOL_CREATE, _SNAP_CREATE_V2,
# _SNAP_DESTROY).  The trace kept only the struct's pointer and the replay
# left the calls out: the subvolume was never made and every call under
# it failed with ENOENT.  Now the recorder keeps the name (the event's
# path), the source and the flags (bpf, ptrace's stops, the fast path
# leaving them to them), and the replay makes the same calls on btrfs and
# emulates them elsewhere (tmpfs: a mkdir, a copy of the tree, a
# removal): 0 mismatches on both, the snapshots' files there.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd btrfs
need_root_loop
tmp_dir /var/tmp/iotape-test
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
loop_fs btrfs 320M "$T/w"
loop_fs btrfs 320M "$T/r"
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || skip "cannot mount tmpfs"
mkdir -p "$T/w/src/d"
echo a >"$T/w/src/a"
echo b >"$T/w/src/d/b"
ln -s a "$T/w/src/l"
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 2
btrfs -q subvolume create v || exit 1
cp -a src/. v/ || exit 1
btrfs -q subvolume snapshot v s || exit 1
btrfs -q subvolume snapshot -r v ro || exit 1
echo changed >s/a
cat s/a s/d/b v/a ro/d/b >/dev/null || exit 1
btrfs -q subvolume delete v || exit 1
[ ! -e v ] && cat s/a s/d/b s/l ro/a >/dev/null
SH
# the replay's tree under ROOT: the snapshots' files there, v gone
check_tree() {
	local d=$1$T/w f
	for f in s/a s/d/b ro/a ro/d/b; do
		[ -f "$d/$f" ] || fail "$2: $f is not in the replay's tree"
	done
	[ -L "$d/s/l" ] || fail "$2: the snapshot's symlink is not there"
	[ ! -e "$d/v" ] || fail "$2: the deleted subvolume is still there"
}
backends="ptrace ptrace-nofp"
bpf_loads "$T" && backends="bpf $backends"
for b in $backends; do
	opt="--backend $b"
	[ "$b" = ptrace-nofp ] && opt="--backend ptrace --no-fastpath"
	# shellcheck disable=SC2086
	"$IOTAPE" record -q $opt -o "$T/$b.iotape" -- sh "$T/cmd.sh" "$T/w" ||
		fail "$b: record: exit $?"
	btrfs -q subvolume delete "$T/w/s" "$T/w/ro" || fail "cannot delete the snapshots"
	mkdir "$T/r/$b" "$T/tmpfs/$b"
	WHY="the subvolume calls not replayed: calls under them fail ENOENT" \
		replay_clean "$b, on btrfs" "$T/$b.iotape" "$T/r/$b" "$T/out" --timing afap
	grep -q '^  subvolumes   4 btrfs subvolume calls made as recorded, 0 emulated' "$T/out" ||
		{ cat "$T/out"; fail "$b, on btrfs: not 4 subvolume calls made as such"; }
	check_tree "$T/r/$b" "$b, on btrfs"
	[ "$(stat -c %i "$T/r/$b$T/w/s")" = 256 ] || fail "$b, on btrfs: the snapshot is no subvolume"
	WHY="the subvolume calls not emulated" \
		replay_clean "$b, on tmpfs" "$T/$b.iotape" "$T/tmpfs/$b" "$T/out" --timing afap
	grep -q '^  subvolumes   0 btrfs subvolume calls made as recorded, 4 emulated .* 1 of them read-only' "$T/out" ||
		{ cat "$T/out"; fail "$b, on tmpfs: not 4 subvolume calls emulated"; }
	check_tree "$T/tmpfs/$b" "$b, on tmpfs"
	"$IOTAPE" dump "$T/$b.iotape" >"$T/dump"
	grep -q 'BTRFS_IOC_SNAP_CREATE_V2, {fd=[0-9]*, flags=0x2, name="ro"}) = 0' "$T/dump" ||
		fail "$b: the trace does not hold the read-only snapshot's struct"
	grep -qE "ioctl\\(.*BTRFS_IOC_SNAP_DESTROY(_V2)?, \\{flags=0, name=\"v\"\\}\\) = 0" "$T/dump" ||
		fail "$b: the trace does not hold the destroy's name"
	echo "ok: $b: subvolume create, 2 snapshots and a delete replayed on btrfs and tmpfs"
done
