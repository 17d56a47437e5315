#!/bin/bash
# replay_pipe_copies.sh - two writers fill their pipes (A, B) and block;
# then ten children each close their copies of both read ends (at exec);
# then the reader drains A, then B.  A close of a copy of an end kept
# open elsewhere follows nothing, and the next write follows it; the plan
# kept eight such closes a pipe, and ordered the ninth and later after
# the pipe's last write, which had blocked in the full pipe when
# recorded: the tenth child's exec waited for B's blocked write, which
# waited for the reader, which was draining A and waited for A's next
# write, which followed that exec (2 waits given up, 18 mismatches in
# every backend; sort --compress-program with 16 gzip -d children, whose
# merge reads their pipes in turn).  Now a ninth close follows the
# oldest, which the next write then follows through it.  Recorded with
# ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp pipecopies

cat >"$T/w.py" <<'W'
import os, time
ra, wa = os.pipe()
rb, wb = os.pipe()
def writer(w, others):
    for fd in others:
        os.close(fd)
    for i in range(8):
        os.write(w, b"x" * 32768)
    os._exit(0)
pa = os.fork()
if pa == 0:
    writer(wa, [ra, rb, wb])
pb = os.fork()
if pb == 0:
    writer(wb, [ra, rb, wa])
os.close(wa)
os.close(wb)
time.sleep(0.3)
kids = []
for i in range(10):
    k = os.fork()
    if k == 0:
        os.execv("/bin/true", ["true"])
    kids.append(k)
for k in kids:
    os.waitpid(k, 0)
n = 0
for r in (ra, rb):
    while True:
        d = os.read(r, 4096)
        if not d:
            break
        n += len(d)
os.waitpid(pa, 0)
os.waitpid(pb, 0)
print(n)
W
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root"
	mkdir "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- python3 "$T/w.py" \
		>"$T/out" 2>"$T/err" || fail "$b: recording the program failed: $(cat "$T/err")"
	[ "$(cat "$T/out")" = 524288 ] || fail "$b: the program read $(cat "$T/out") bytes, not 524288"
	[ "$("$IOTAPE" dump "$T/t.iotape" | grep -c '^[0-9]* .*execve("/bin/true", .*) = 0')" = 10 ] ||
		fail "$b: the trace does not hold the ten children's execs"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	grep -q 'waits given up' "$T/rout" && fail "$b: a pipe wait was given up: $(grep 'given up' "$T/rout")"
done
exit 0
