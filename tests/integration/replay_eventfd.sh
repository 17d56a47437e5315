#!/bin/bash
# replay_eventfd.sh - a thread pool's wake-ups through an eventfd, as
# libuv's (node, npm): four workers each write a file and then add one
# to the eventfd; the main thread reads the count (each read takes all
# that was added since the last) until it has all 80.  The replay wrote
# 8 bytes of its own into the eventfd, a value that the next write
# overflowed (EAGAIN), and a read that had taken the sum of several
# writes, replayed after more of them, left the next read nothing
# (npm init: 6-20 mismatches, a wait of 2 s given up); and a read was
# ordered before the write it took, where their ends were recorded the
# other way round.  Now a write adds one, the replay's eventfds count as
# semaphores, and reads are ordered after the writes as a pipe's are.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp eventfd
python3 -c 'import os; os.eventfd' 2>/dev/null || fail "python3 has no os.eventfd (3.10 or later is needed)"

cat >"$T/w.py" <<'W'
import os, sys, threading
efd = os.eventfd(0, os.EFD_CLOEXEC)
def work(k):
    for i in range(20):
        with open("out/%d_%d" % (k, i), "w") as f:
            f.write("x" * (i + 1))
        os.eventfd_write(efd, 1)
os.mkdir("out")
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
got = reads = 0
while got < 80:
    got += os.eventfd_read(efd)
    reads += 1
for t in ts:
    t.join()
print(got, len(os.listdir("out")))
W
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	for i in 1 2; do
		rm -rf "$T/root" "$T/w"
		mkdir "$T/root" "$T/w"
		(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- python3 "$T/w.py") \
			>"$T/out" 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
		[ "$(cat "$T/out")" = "80 80" ] || fail "$b: the program printed $(cat "$T/out")"
		[ "$("$IOTAPE" dump "$T/t.iotape" | grep -c 'write([0-9]*, \.\.\., 8) = 8')" -ge 80 ] ||
			fail "$b: the trace does not hold the 80 writes into the eventfd"
		replay_verified "$b $i" "$T/t.iotape" "$T/root" "$T/rout"
		grep -q 'waits given up' "$T/rout" && fail "$b $i: a wait was given up: $(grep 'given up' "$T/rout")"
		[ "$(ls "$T/root$T/w/out" | wc -l)" = 80 ] || fail "$b $i: the replay did not make the 80 files"
	done
done
exit 0
