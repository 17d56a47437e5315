#!/bin/bash
# record_bpf_stat_first.sh - a file first named by a stat, then changed
# by another process before the recorder's drain: `record --backend bpf`
# takes a path's state when it drains the call that first named it (up
# to ~10 ms later) unless the call stopped (the guard's) or sent what it
# found (an open).  cp stats each source before it opens it, and the
# shell script's next command appended to the sources: their states held
# the longer files, and the replay's cp copied 3 bytes more from each
# (43 copy_file_range mismatches).  A stat now sends the inode and size
# it returned, which stand for the file as an open's do.  Here: 20 files
# stat()ed and read, then appended to by a child, at once.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
need_bpf
record_tmp bstat
W=$T/w
mkdir -p "$W" "$T/r"
for i in $(seq 1 20); do echo "v1 $i" >"$W/f$i"; done
(cd "$W" && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PY" -c '
import os
for i in range(1, 21):
    os.stat("f%d" % i)
    with open("f%d" % i, "rb") as f:
        f.read()
if os.fork() == 0:
    for i in range(1, 21):
        with open("f%d" % i, "a") as f:
            f.write("v2\n")
    os._exit(0)
os.wait()') >"$T/rec.out" 2>&1 || { cat "$T/rec.out"; fail "record: exit $?"; }
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
echo "ok: 20 files first named by a stat keep the sizes the stat found, 0 mismatches"
