#!/bin/bash
# replay_aio_reads_btrfs.sh - async O_DIRECT reads in flight together,
# replayed on btrfs from the disk.  btrfs checks a direct read's
# checksums on the pages it read into once the read is done; the replay
# had every async request read into one shared buffer, so another read
# landing there meanwhile made the check fail: EIO, and the replay
# stopped as the filesystem's fault (a MariaDB recording stopped at its
# 9th read, every time; the program gives each request its own buffer).
# Now each read in flight lands in its own bytes of a ring.  fio reads a
# file it laid out before the recording, 16 KiB at random, 16 in flight,
# through io_uring and through libaio; the replay prepares the file,
# the page cache is dropped, and the reads come from the disk.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_cmd fio
need_iotape_cmd record
need_iotape_cmd replay
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-aiobtrfs.XXXXXX")
trap 'loop_cleanup; rm -rf "$T"' EXIT
MNT=$T/mnt
loop_fs btrfs 512m "$MNT"
for engine in io_uring libaio; do
	w=$MNT/w-$engine
	mkdir -p "$w"
	job="--name=r --filename=$w/f --size=32m --bs=16k --direct=1 --iodepth=16 --ioengine=$engine"
	fio $job --rw=write >/dev/null 2>"$T/fio.err" || fail "$engine: fio could not lay out its file: $(cat "$T/fio.err")"
	"$IOTAPE" record -q -o "$T/$engine.iotape" -- fio $job --rw=randread \
		>/dev/null 2>"$T/rec.err" || fail "$engine: record of fio failed: $(cat "$T/rec.err")"
	n=$("$IOTAPE" dump "$T/$engine.iotape" | grep -cE " (io_uring|aio) submit p?read.*\(.*, 16384, ")
	[ "$n" -ge 2048 ] || fail "$engine: the trace holds $n async reads of 16 KiB, not 2048"
	mkdir "$MNT/root-$engine"
	"$IOTAPE" replay "$T/$engine.iotape" --root "$MNT/root-$engine" --prepare-only >/dev/null 2>&1 ||
		fail "$engine: the replay could not prepare its tree"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	replay_clean "$engine" "$T/$engine.iotape" "$MNT/root-$engine" "$T/out" --no-prepare
	grep -q "EIO" "$T/out" && { cat "$T/out"; fail "$engine: a read failed with EIO"; }
	echo "ok ($engine): $n reads in flight 16 at a time, replayed from the disk on btrfs, 0 mismatches"
done
