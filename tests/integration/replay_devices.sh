#!/bin/bash
# replay_devices.sh - device nodes in the starting tree and made by the
# workload: `cp -a` of a tree holding a char device (1:3, null), another
# (4:64, a serial port), a block device (7:0, a loop device) and a FIFO,
# then reads of the null one.  Before, the starting tree had no device
# nodes (cp's lstat, its mknod's copies' utimensat and fchownat, its
# listings: 16 mismatches).  Now each is made of its type; with its
# recorded number only for the memory devices (null, zero, full, random,
# urandom), every other one with 0:0, which no driver serves, so that a
# trace never reaches a disk or a terminal of this machine from inside
# the root: the replayed tree's block device is 0:0, its serial port too,
# its null 1:3.  Recorded with ptrace (fast path and not) and bpf where
# it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
record_tmp devices

mkdir "$T/src"
mknod "$T/src/null" c 1 3
mknod "$T/src/tty" c 4 64
mknod "$T/src/blk" b 7 0
mkfifo "$T/src/fifo"
echo x >"$T/src/f"
# "T:t" (hexadecimal major and minor) of a device node, with its type
node() { stat -c '%F %t:%T' "$1"; }
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/dst"
	mkdir "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c "cp -a '$T/src' '$T/dst' && cat '$T/src/null' '$T/dst/null'" \
		>/dev/null 2>"$T/err" || fail "$b: recording cp -a failed: $(cat "$T/err")"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	grep -q '^  devices      3 device nodes made on the starting tree, 2 of them with no driver' "$T/rout" ||
		fail "$b: no devices line for 3 nodes, 2 without a driver: $(grep devices "$T/rout")"
	R=$T/root$T
	[ "$(node "$R/src/null")" = "character special file 1:3" ] || fail "$b: src/null made as $(node "$R/src/null")"
	[ "$(node "$R/dst/null")" = "character special file 1:3" ] || fail "$b: dst/null made as $(node "$R/dst/null")"
	for d in src dst; do
		[ "$(node "$R/$d/blk")" = "block special file 0:0" ] || fail "$b: $d/blk made as $(node "$R/$d/blk")"
		[ "$(node "$R/$d/tty")" = "character special file 0:0" ] || fail "$b: $d/tty made as $(node "$R/$d/tty")"
		[ -p "$R/$d/fifo" ] || fail "$b: $d/fifo is not a FIFO"
	done
done
exit 0
