#!/bin/bash
# replay_clone_range.sh - a clone of a range (FICLONERANGE, xfs_io's
# reflink) into a new file, then a read of it.  The trace kept only the
# struct's pointer and the replay left the ioctl out: the file stayed
# empty and its reads found nothing (cat's reads of 3 MiB: 24 mismatches).
# Now the recorder keeps src_fd, src_offset, src_length and dest_offset
# (bpf, the fast path, ptrace's stops) and the replay clones the range;
# replayed on tmpfs, where the clone fails, the range is copied (a
# capability probe, no mismatch).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd xfs_io
need_root_loop
if command -v mkfs.btrfs >/dev/null 2>&1; then
	FS=btrfs
else
	FS=xfs MKFS_OPTS="-m reflink=1"
fi
tmp_dir /var/tmp/iotape-test
trap 'umount "$T/tmpfs" 2>/dev/null; loop_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
loop_fs $FS 320M "$T/cow"
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" || skip "cannot mount tmpfs"
head -c 4M /dev/urandom >"$T/cow/src"
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 2
xfs_io -f -c "reflink src 0 0 1m" -c "reflink src 1m 2m 1m" dst >/dev/null || exit 1
[ "$(wc -c <dst)" = 3145728 ] || exit 1
cat dst src >/dev/null
SH
backends="ptrace ptrace-nofp"
"$IOTAPE" record -q --backend bpf -o "$T/probe.iotape" -- true 2>/dev/null && backends="bpf $backends"
for b in $backends; do
	opt="--backend $b"
	[ "$b" = ptrace-nofp ] && opt="--backend ptrace --no-fastpath"
	rm -f "$T/cow/dst"
	# shellcheck disable=SC2086
	(cd "$T/cow" && "$IOTAPE" record -q $opt -o "$T/$b.iotape" -- sh "$T/cmd.sh" "$T/cow") ||
		fail "$b: record: exit $?"
	mkdir "$T/cow/root.$b" "$T/tmpfs/root.$b"
	WHY="the clones of ranges not replayed: the file read is empty" \
		replay_clean "$b, on $FS" "$T/$b.iotape" "$T/cow/root.$b" "$T/out" --timing afap
	[ "$(wc -c <"$T/cow/root.$b$T/cow/dst")" = 3145728 ] || fail "$b, on $FS: dst has not its size"
	"$IOTAPE" dump "$T/$b.iotape" | grep -q 'FICLONERANGE, {src_fd=[0-9]*, src_offset=1048576, src_length=1048576, dest_offset=2097152}) = 0' ||
		fail "$b: the trace does not hold the second clone's range"
	WHY="the range not copied where the clone failed" \
		replay_clean "$b, on tmpfs" "$T/$b.iotape" "$T/tmpfs/root.$b" "$T/out" --timing afap
	grep -qE 'capability probes differing.*\(ioctl 2 of' "$T/out" ||
		{ cat "$T/out"; fail "$b, on tmpfs: the failed clones are not capability probes"; }
	echo "ok: $b: 2 clones of ranges replayed on $FS, copied on tmpfs"
done
