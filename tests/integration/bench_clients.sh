#!/bin/bash
# bench_clients.sh - the client series on a tmpfs and a loop ext4: bench
# --clients 1,4 writes one profile per run, the 4-client one with exactly
# 4x the calls of the 1-client one, and diff's client table; replay
# --clients 4 on a tmpfs and a loop ext4 the test mounts leaves four trees
# each equal to a single replay's; on an ext4 too small for four clients a
# full filesystem stops the run with exit 5 naming a client; room for one
# starting tree but not four stops it before any tree is made, with exit 5
# and both sizes.  Nothing is left mounted, no loop device, no image.
set -u
. "$(dirname "$0")/lib.sh"
need_root_loop
need_cmd mkfs.ext4
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
need_cmd tar

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-bench-clients.XXXXXX")
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	loop_cleanup
	rm -rf "$T"
}
trap cleanup EXIT


A=$T/A
mkdir -p "$A"
mk_tree "$A/src" 24
(cd "$A" && "$IOTAPE" record -q -o "$T/w.iotape" -- sh -c \
	'cp -a src dst && tar cf t.tar dst && mkdir out && tar xf t.tar -C out && rm -rf dst') ||
	fail "recording the workload failed"

timeout 300 "$IOTAPE" bench "$T/w.iotape" --fs tmpfs,ext4 --clients 1,4 --timing afap \
	-o "$T/out" --scratch "$T" >"$T/bench.out" 2>&1 || { cat "$T/bench.out"; fail "bench --clients 1,4 failed"; }
cat "$T/bench.out"
# only what this test made: other tests may run beside it
mine_left() {
	grep -q " $T/" /proc/self/mountinfo && fail "a mount is left under $T: $(grep " $T/" /proc/self/mountinfo)"
	losetup -a | grep -q "($T/" && fail "a loop device is left: $(losetup -a | grep "($T/")"
	find "$T" -name '*.img' ! -path "$T/ext4.img" | grep -q . && fail "an image is left"
	return 0
}
mine_left
for fs in tmpfs ext4; do
	one=$(events "$T/out/$fs-c1.1.iotape") four=$(events "$T/out/$fs-c4.1.iotape")
	[ -n "$one" ] && [ "$one" -gt 100 ] || fail "$fs-c1: $one events"
	[ "$four" = $((4 * one)) ] || fail "$fs-c4: $four events, expected 4 x $one"
	echo "ok: bench $fs: one profile of 4 clients, $four = 4 x $one events"
done
[ "$(ls "$T/out" | wc -l)" = 4 ] || fail "expected 4 profiles: $(ls "$T/out")"
grep -Eq "^ext4-c4 +4 +[0-9]+ +[0-9]+ " "$T/bench.out" || fail "bench: no client table"

# the trees: a single replay and 4 clients on a tmpfs, then on a loop ext4
check_trees() {	# DIR NAME
	mkdir "$1/one" "$1/many"
	"$IOTAPE" replay "$T/w.iotape" --root "$1/one" --timing afap -q || fail "$2: single replay failed"
	"$IOTAPE" replay "$T/w.iotape" --root "$1/many" --clients 4 --timing afap -q \
		-o "$T/$2.prof" || fail "$2: replay --clients 4 failed"
	listing "$1/one$A" >"$T/$2.one"
	for i in 0 1 2 3; do
		listing "$1/many/client-$i$A" | diff -u "$T/$2.one" - ||
			fail "$2: client $i's tree differs from the single replay's"
	done
	echo "ok: $2: four trees equal to the single replay's ($(wc -l <"$T/$2.one") entries)"
}
MNT=$T/mnt
mkdir "$MNT"
mount -t tmpfs -o size=512m tmpfs "$MNT" || fail "cannot mount a tmpfs"
check_trees "$MNT" tmpfs
umount "$MNT" || fail "cannot unmount the tmpfs"
MNT=
loop_fs ext4 400M "$T/ext4"
check_trees "$T/ext4" ext4
loop_fs_drop "$T/ext4"

# a filesystem too small for four clients' writes: exit 5, a client named
loop_fs ext4 48M "$T/ext4"
mkdir "$T/big"
head -c 3000000 /dev/urandom >"$T/big/blob"
(cd "$T/big" && "$IOTAPE" record -q -o "$T/big.iotape" -- sh -c 'cp blob b1 && cp blob b2') ||
	fail "recording the copy failed"
mkdir "$T/ext4/r"
timeout 120 "$IOTAPE" replay "$T/big.iotape" --root "$T/ext4/r" --clients 4 --timing afap \
	-o "$T/full.prof" >"$T/full.out" 2>&1
rc=$?
cat "$T/full.out"
[ $rc = 5 ] || fail "a full filesystem under 4 clients: exit $rc, expected 5"
grep -Eq "client [0-3]: (ENOSPC|EDQUOT)" "$T/full.out" || fail "the fault does not name its client"
"$IOTAPE" report "$T/full.prof" | grep -q "FAILED: .*client [0-3]: " ||
	fail "the profile is not marked failed with the client"
loop_fs_drop "$T/ext4"
mine_left
echo "ok: ENOSPC in one client: exit 5, the client named, nothing left mounted"

# room for one starting tree of big.iotape, not for four: one check for
# all before any client makes its tree (each client's own check would
# see room for its tree alone)
NEED=$(tree_need "$T/big.iotape" "$T/need")
[ "$NEED" -ge 3000000 ] || fail "big.iotape's tree: $NEED bytes"
MNT=$T/mnt
mount -t tmpfs -o size=512m tmpfs "$MNT" || fail "cannot mount a tmpfs"
leave_free "$MNT" $((NEED * 3 / 2))	# a tree may take 90 % of it: one fits
mkdir "$MNT/r"
"$IOTAPE" replay "$T/big.iotape" --root "$MNT/r" --clients 4 --timing afap -o "$T/fit.prof" \
	>"$T/fit.out" 2>&1
rc=$?
cat "$T/fit.out"
too_big $rc "$T/fit.out" 4 "$T/big.iotape" "$MNT/r" "$T/fit.prof"
"$IOTAPE" replay "$T/big.iotape" --root "$MNT/r" --clients 1 --prepare-only -q ||
	fail "one client, whose tree fits: making it failed"
umount "$MNT" || fail "cannot unmount the tmpfs"
MNT=
mine_left
echo "ok: 4 trees that do not fit (1 does): exit 5, both sizes said once, nothing made"
