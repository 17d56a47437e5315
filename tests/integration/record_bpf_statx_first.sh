#!/bin/bash
# record_bpf_statx_first.sh - record_bpf_stat_first.sh's case for statx:
# a file first named by a statx (GNU stat, ls), then changed by another
# process before the recorder's drain.  `record --backend bpf` took the
# path's state at the drain, up to ~10 ms later, and so held the longer
# file.  A statx now sends the inode, size, mode and links it returned,
# where its mask says the kernel filled them.  Here: 20 files statx()ed
# and read, then appended to by a child, at once.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
need_bpf
record_tmp bstatx
W=$T/w
mkdir -p "$W" "$T/r"
for i in $(seq 1 20); do echo "v1 $i" >"$W/f$i"; done
(cd "$W" && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PY" -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
for i in range(1, 21):
    # statx(AT_FDCWD, name, 0, STATX_BASIC_STATS, buf), as stat(1) and ls call it
    if libc.syscall(332, -100, b"f%d" % i, 0, 0x7ff, buf) != 0:
        raise OSError(ctypes.get_errno(), "statx")
    with open("f%d" % i, "rb") as f:
        f.read()
if os.fork() == 0:
    for i in range(1, 21):
        with open("f%d" % i, "a") as f:
            f.write("v2\n")
    os._exit(0)
os.wait()') >"$T/rec.out" 2>&1 || { cat "$T/rec.out"; fail "record: exit $?"; }
"$IOTAPE" dump "$T/t.iotape" | grep -q 'statx(' || fail "the recording holds no statx"
bad=0
for i in $(seq 1 20); do
	want=$(( ${#i} + 4 ))
	got=$("$IOTAPE" dump --states "$T/t.iotape" | sed -n "s|.*state \"$W/f$i\" S_IFREG.* size=\([0-9]*\) .*|\1|p")
	[ "$got" = "$want" ] || { echo "f$i: state size '$got', not $want"; bad=$((bad + 1)); }
done
[ $bad = 0 ] || fail "$bad of 20 states hold the appended files"
rm -rf "$W"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap >"$T/out" 2>&1 || { cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
echo "ok: 20 files first named by a statx keep the sizes it found, 0 mismatches"
