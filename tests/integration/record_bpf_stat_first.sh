#!/bin/bash
# record_bpf_stat_first.sh - a file first named by a stat, then changed
# by another process before the recorder's drain: `record --backend bpf`
# takes a path's state when it drains the call that first named it (up
# to ~10 ms later) unless the call stopped (the guard's) or sent what it
# found (an open).  cp stats each source before it opens it, and the
# shell script's next command appended to the sources: their states held
# the longer files, and the replay's cp copied 3 bytes more from each
# (43 copy_file_range mismatches).  A stat now sends the inode and size
# it returned, which stand for the file as an open's do; and a statx (GNU
# stat, ls) the same, where its mask says the kernel filled them (20 of
# 20 states held the appended size before).  Here, once with newfstatat
# and once with statx: 20 files stat()ed and read, then appended to by a
# child, at once.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
need_bpf
record_tmp bstat
for call in stat statx; do
	W=$T/$call/w
	mkdir -p "$W" "$T/$call/r"
	for i in $(seq 1 20); do echo "v1 $i" >"$W/f$i"; done
	(cd "$W" && "$IOTAPE" record -q --backend bpf -o "$T/$call/t.iotape" -- "$PY" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
for i in range(1, 21):
    if sys.argv[1] == "stat":
        os.stat("f%d" % i)
    # statx(AT_FDCWD, name, 0, STATX_BASIC_STATS, buf), as stat(1) and ls call it
    elif libc.syscall(332, -100, b"f%d" % i, 0, 0x7ff, buf) != 0:
        raise OSError(ctypes.get_errno(), "statx")
    with open("f%d" % i, "rb") as f:
        f.read()
if os.fork() == 0:
    for i in range(1, 21):
        with open("f%d" % i, "a") as f:
            f.write("v2\n")
    os._exit(0)
os.wait()' "$call") >"$T/$call/rec.out" 2>&1 || { cat "$T/$call/rec.out"; fail "$call: record: exit $?"; }
	nr=$call; [ "$call" = stat ] && nr=newfstatat
	"$IOTAPE" dump "$T/$call/t.iotape" | grep -q " $nr(" || fail "$call: the recording holds no $nr"
	bad=0
	for i in $(seq 1 20); do
		want=$(( ${#i} + 4 ))
		got=$("$IOTAPE" dump --states "$T/$call/t.iotape" | sed -n "s|.*state \"$W/f$i\" S_IFREG.* size=\([0-9]*\) .*|\1|p")
		[ "$got" = "$want" ] || { echo "$call: f$i: state size '$got', not $want"; bad=$((bad + 1)); }
	done
	[ $bad = 0 ] || fail "$call: $bad of 20 states hold the appended files"
	rm -rf "$W"
	"$IOTAPE" replay "$T/$call/t.iotape" --root "$T/$call/r" --timing afap >"$T/$call/out" 2>&1 ||
		{ cat "$T/$call/out"; fail "$call: replay exit $?"; }
	grep -q "^  mismatches   0$" "$T/$call/out" || { cat "$T/$call/out"; fail "$call: the replay had mismatches"; }
done
echo "ok: 20 files first named by a stat, and 20 by a statx, keep the sizes they found, 0 mismatches"
