#!/bin/bash
# replay_map_gap.sh - pages a program touched through a mapping are taken
# at the exit (or munmap) after it, but touched in its computing before,
# whose time the recorded gap holds.  Made after that gap, their time
# counted twice (fio's mmap engine: replays 4 % slower than native, and
# than the same replay without the pages).  Now they are made at the start
# of the longest gap since the mapping was made, their time taken out of
# it: in the replay's profile the pages come with the call after that gap
# (here an open after 0.2 s of computing), not with the exit.  Recorded
# with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp mapgap

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w" "$T/root"
	head -c 8M /dev/urandom >"$T/w/f"
	sync "$T/w/f"	# its pages clean: read, not written
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PY" -c '
import mmap, os, time
fd = os.open("f", os.O_RDWR)
m = mmap.mmap(fd, 8 << 20)
t = time.time()
x = 0
for i in range(0, 8 << 20, 4096):
    x += m[i]
while time.time() - t < 0.2:
    pass
os.close(os.open("g", os.O_CREAT | os.O_WRONLY, 0o644))
os._exit(0)
') 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -A4 ' exit_group(' | grep -q "mmap pages \"$T/w/f\" at exit: read 2048" ||
		fail "$b: the trace has no 2048 pages of f at the exit: $("$IOTAPE" dump "$T/t.iotape" | grep 'mmap pages')"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --verify -o "$T/p.iotape" >"$T/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A4 '^  mismatches' "$T/out")"
	"$IOTAPE" dump "$T/p.iotape" | grep -A4 "openat(AT_FDCWD, \"$T/w/g\"" |
		grep -q "mmap pages \"$T/w/f\" at exit: read 2048" ||
		fail "$b: the pages were not made with the open after the gap: $("$IOTAPE" dump "$T/p.iotape" | grep -B1 'mmap pages' | cut -c1-150)"
	echo "$b: 2048 pages taken at the exit, made at the gap before the open, 0 mismatches"
done
echo "ok: pages touched through a mapping are made in the gap that held their faults"
