#!/bin/bash
# iotape bench with configurations that fail:
# - --image-size 64M with xfs among tmpfs and ext4: xfs's mkfs needs more
#   than 300 MiB, known before starting: xfs is marked FAILED in the table
#   and the page with why, tmpfs and ext4 complete, bench exits 1;
# - --image-size 20M for a trace that writes 30 MiB: both replays stop at
#   ENOSPC; their partial profiles go to OUT/failed/ (check accepts them,
#   marks them failed), the table marks them "ENOSPC at N %", exit 1;
# - --image-size smaller than the starting tree: refused before anything
#   is made, exit 1.
# Every time: no mount, loop device, image or scratch directory is left.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root_loop
need_cmd mkfs.ext4
need_iotape_cmd record
need_iotape_cmd bench
. "$SRCDIR/tests/integration/fault_target_lib.sh"

# what this test's benches made, under $T only (others may run benches)
left_nothing() {
	grep -q "$T" /proc/self/mountinfo && fail "a mount is left: $(grep "$T" /proc/self/mountinfo)"
	losetup -a | grep -q "$T" && fail "a loop device is left: $(losetup -a | grep "$T")"
	find "$T" -name '*.img' | grep -q . && fail "an image is left: $(find "$T" -name '*.img')"
	find "$T" -maxdepth 1 -name 'iotape-bench.*' | grep -q . && fail "a scratch dir is left"
	return 0
}
mk_writes full 30 1048576 0

# --- xfs's image too small ------------------------------------------------
timeout -k 10 600 "$IOTAPE" bench "$T/full.iotape" --fs tmpfs,ext4,xfs --image-size 64M \
	--scratch "$T" -o "$T/b1" --html "$T/b1.html" >"$T/b1.out" 2>&1
rc=$?
cat "$T/b1.out"
[ $rc = 124 ] && fail "bench hung"
[ $rc = 1 ] || fail "bench with a failed configuration exited $rc, not 1"
grep -q 'xfs: FAILED: image of 64 MiB is too small for xfs' "$T/b1.out" ||
	fail "bench does not say xfs's image is too small"
grep -Eq '^ *C = xfs' "$T/b1.out" || fail "xfs is not a configuration of the table"
grep -q 'FAILED: image of 64 MiB is too small for xfs.*no profile' "$T/b1.out" ||
	fail "the table's legend does not say why xfs failed"
grep -Eq '^total +[0-9.]+ [mun]?s +[0-9.]+\*? +FAILED' "$T/b1.out" ||
	fail "the table does not mark xfs FAILED next to the ratios of ext4"
[ -s "$T/b1/tmpfs.1.iotape" ] && [ -s "$T/b1/ext4.1.iotape" ] ||
	fail "the other configurations did not complete"
grep -q 'FAILED' "$T/b1.html" || fail "the page does not mark xfs FAILED"
left_nothing

# --- ENOSPC in every replay -------------------------------------------------
timeout -k 10 600 "$IOTAPE" bench "$T/full.iotape" --fs tmpfs,ext4 --image-size 20M \
	--scratch "$T" -o "$T/b2" --html "$T/b2.html" >"$T/b2.out" 2>&1
rc=$?
cat "$T/b2.out"
[ $rc = 1 ] || fail "bench whose replays hit ENOSPC exited $rc, not 1"
for c in tmpfs ext4; do
	grep -Eq "bench: $c run 1: FAILED: ENOSPC at [0-9]+ %.*kept apart: .*/failed/$c.1.iotape" \
		"$T/b2.out" || fail "bench does not say the $c replay failed with ENOSPC"
	[ -e "$T/b2/$c.1.iotape" ] && fail "the partial $c profile lies among the complete ones"
	failed_profile "$T/b2/failed/$c.1.iotape" 'ENOSPC at [0-9]+ %'
	grep -Eq "$c.1.iotape: FAILED: ENOSPC at [0-9]+ %.*not compared" "$T/b2.out" ||
		fail "the table does not mark $c FAILED"
done
grep -q 'ENOSPC at' "$T/b2.html" || fail "the page does not say ENOSPC"
left_nothing

# --- the starting tree does not fit the images at all ----------------------
mkdir -p "$T/src"
head -c 6291456 /dev/urandom >"$T/src/big"
"$IOTAPE" record -q -o "$T/read.iotape" -- cat "$T/src/big" >/dev/null || fail "record cat failed"
timeout -k 10 120 "$IOTAPE" bench "$T/read.iotape" --fs tmpfs,ext4 --image-size 4M \
	--scratch "$T" -o "$T/b3" >"$T/b3.out" 2>&1
rc=$?
cat "$T/b3.out"
[ $rc = 1 ] || fail "bench with images smaller than the tree exited $rc, not 1"
grep -Eq -- '--image-size 4.0 MiB: the starting tree .* holds [0-9.]+ MiB of file data.*give --image-size [0-9]+M or more' \
	"$T/b3.out" || fail "no message on an --image-size smaller than the starting tree"
grep -q 'run 1/1' "$T/b3.out" && fail "bench started although no image could hold the tree"
left_nothing
echo "ok"
