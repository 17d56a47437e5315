#!/bin/bash
# mpi_clients.sh - iotape-mpi under mpirun, ranks on this one host
# (--oversubscribe), with a tmpfs and then a loop ext4 as the filesystem
# the ranks share: 2 ranks replay a recorded workload as 2 clients and
# rank 0 writes one profile with both (2x the calls of one replay, each
# rank's tree equal to a single replay's); a rank killed mid-run ends the
# launch with a message naming it, within a bound, with no process and no
# file of the run left behind; trees that fit once but not twice stop the
# launch before any rank makes one, with exit 5 and both sizes said
# (once).
# Nothing is left mounted, no loop device, no image.
set -u
. "$(dirname "$0")/lib.sh"
MPI=$SRCDIR/$BUILD/iotape-mpi
need_cmd mpirun
[ -x "$MPI" ] || fail "iotape-mpi is not built although mpirun is here (is mpicc missing?)"
need_root_loop
need_cmd mkfs.ext4
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one host, no network to speak of: loopback TCP and shared memory only
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-mpi.XXXXXX")
MNT=$T/mnt
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	loop_cleanup
	rm -rf "$T"
}
trap cleanup EXIT
mkdir "$MNT"

A=$T/A
mkdir -p "$A"
mk_tree "$A/src" 16
(cd "$A" && "$IOTAPE" record -q -o "$T/w.iotape" -- sh -c \
	'cp -a src dst && tar cf t.tar dst && rm -rf src') || fail "recording the workload failed"
mkdir "$T/one"
"$IOTAPE" replay "$T/w.iotape" --root "$T/one" --timing afap -q -o "$T/one.prof" ||
	fail "single replay failed"
one=$(events "$T/one.prof")
[ -n "$one" ] && [ "$one" -gt 100 ] || fail "single profile: $one events"
listing "$T/one$A" >"$T/one.list"
(cd "$A" && "$IOTAPE" record -q -o "$T/slow.iotape" -- /usr/bin/python3 -c '
import time
open("a", "w").close()
for i in range(40):
    time.sleep(0.1)
    open("x%d" % i, "w").close()') || fail "recording the slow workload failed"
mkdir "$T/big"
head -c 3000000 /dev/urandom >"$T/big/blob"
(cd "$T/big" && "$IOTAPE" record -q -o "$T/big.iotape" -- cat blob) || fail "recording the read failed"
NEED=$(tree_need "$T/big.iotape" "$T/need")
[ "$NEED" -ge 3000000 ] || fail "big.iotape's tree: $NEED bytes"

# ranks FS - the three cases on the filesystem mounted at $MNT
ranks() {
	local fs=$1 S=$MNT/r K=$MNT/k rc victim bg p i
	mkdir "$S" "$K"
	timeout 120 $MPIRUN -np 2 "$MPI" replay "$T/w.iotape" --root "$S" --timing afap \
		-o "$T/$fs.prof" >"$T/mpi.out" 2>&1
	rc=$?
	cat "$T/mpi.out"
	[ $rc = 0 ] || fail "$fs: mpirun -np 2 iotape-mpi replay: exit $rc"
	two=$(events "$T/$fs.prof")
	[ "$two" = $((2 * one)) ] || fail "$fs: 2 ranks: $two events in rank 0's profile, expected 2 x $one"
	"$IOTAPE" report "$T/$fs.prof" --by client >"$T/rep" || fail "$fs: report --by client failed"
	grep -Eq "^  client 1 +$one " "$T/rep" || { cat "$T/rep"; fail "$fs: client 1 is not in the profile"; }
	[ "$(ls "$S" | tr '\n' ' ')" = "client-0 client-1 " ] || fail "$fs: the ranks' roots: $(ls "$S")"
	for i in 0 1; do
		listing "$S/client-$i$A" | diff -u "$T/one.list" - || fail "$fs: rank $i's tree differs"
	done
	echo "ok: $fs: 2 ranks, one profile on rank 0 with both ($two = 2 x $one events)"

	# a rank killed mid-run: --timing raw keeps the recorded sleeps
	timeout 60 $MPIRUN -np 2 "$MPI" replay "$T/slow.iotape" --root "$K" --timing raw \
		-o "$T/k.prof" >"$T/k.out" 2>&1 &
	bg=$!
	for _ in $(seq 200); do
		[ -e "$K/client-1$A/a" ] && [ -e "$K/client-0$A/a" ] && break
		sleep 0.1
	done
	victim=
	for p in $(pgrep -f "iotape-mpi replay $T/slow.iotape"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
	done
	[ -n "$victim" ] || { kill $bg; fail "$fs: rank 1 not found"; }
	kill -9 "$victim"
	wait $bg
	rc=$?
	cat "$T/k.out"
	[ $rc != 0 ] || fail "$fs: a killed rank: mpirun exited 0"
	[ $rc != 124 ] || fail "$fs: a killed rank: the launch did not end (timeout)"
	grep -Eiq "rank 1 .*(killed|signal 9)" "$T/k.out" || fail "$fs: no message naming the killed rank"
	sleep 1
	pgrep -f "iotape-mpi replay $T/slow.iotape" && fail "$fs: a rank is left running"
	[ -e "$T/k.prof" ] && fail "$fs: a profile was written for a launch that failed"
	[ "$(ls "$K" | tr '\n' ' ')" = "client-0 client-1 " ] ||
		fail "$fs: something beside the ranks' roots: $(ls "$K")"
	echo "ok: $fs: a killed rank ends the launch (exit $rc), named, nothing left"
}

# fit FS - on the filesystem at $MNT, left with room for one tree of
# big.iotape (1.5x NEED free: a tree may take 90 %), not for two
fit() {
	local fs=$1 rc
	leave_free "$MNT" $((NEED * 3 / 2))
	mkdir "$MNT/f"
	timeout 60 $MPIRUN -np 2 "$MPI" replay "$T/big.iotape" --root "$MNT/f" --timing afap \
		-o "$T/f.prof" >"$T/f.out" 2>&1
	rc=$?
	cat "$T/f.out"
	too_big $rc "$T/f.out" 2 "$T/big.iotape" "$MNT/f" "$T/f.prof"
	rm -f "$MNT/filler"
	echo "ok: $fs: trees that fit once but not twice: exit 5, one message with both sizes, no tree made"
}

mount -t tmpfs -o size=256m tmpfs "$MNT" || fail "cannot mount a tmpfs"
ranks tmpfs
fit tmpfs
umount "$MNT" || fail "cannot unmount the tmpfs"

loop_fs ext4 300M "$MNT"
ranks ext4
fit ext4
loop_fs_drop "$MNT"
grep -q " $T/" /proc/self/mountinfo && fail "a mount is left under $T"
losetup -a | grep -q "($T/" && fail "a loop device is left: $(losetup -a | grep "($T/")"
echo "ok: nothing left mounted, no loop device"
