#!/bin/bash
# replay_prefork_accept.sh - a prefork server: forked workers accept on
# one inherited listening Unix socket while client processes connect at
# once (gunicorn's sync workers; the forks of a list comprehension fork
# in the children too: three workers, fifteen clients).  The replay's
# accept that got another connection than its own kept it for that
# one's accept, by descriptor number; but each worker's process has a
# descriptor table of its own in the replay, where that number is
# another descriptor or none, and the accepted connections' reads met
# EBADF (166-1,601 calls a replay).  A connection was then kept only for
# an accept in the same table, else taken as the kernel gave it: workers
# served each other's clients, whose data went to the other worker
# (ptrace recordings 14-20 mismatches a replay, 2 s waits; bpf 6).  Now
# a kept connection goes through the replay's courier socket, from any
# table to any.  Recorded with ptrace, and bpf where it loads; each
# replayed three times with no mismatch.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
need_ptrace
record_tmp prefork
cat >"$T/s.py" <<'PY'
import os, sys, socket, selectors, time
P = os.path.join(sys.argv[1], 's.sock')
ls = socket.socket(socket.AF_UNIX); ls.bind(P); ls.listen(64); ls.setblocking(False)
def handle(c):
    c.setblocking(True); n = 0
    while True:
        b = c.recv(8192); n += len(b)
        if not b or n >= 200000: break
    c.sendall(b'ok %d\n' % n); c.close()
def worker():
    sel = selectors.DefaultSelector(); sel.register(ls, selectors.EVENT_READ)
    end = time.time() + 3
    while time.time() < end:
        for _ in sel.select(0.2):
            try: c, _ = ls.accept()
            except BlockingIOError: continue
            handle(c)
    os._exit(0)
ws = [os.fork() for _ in range(2)]
if 0 in ws: worker()
def client():
    for i in range(15):
        s = socket.socket(socket.AF_UNIX); s.connect(P); s.sendall(os.urandom(200000)); s.shutdown(socket.SHUT_WR)
        assert s.recv(64).startswith(b'ok 200000'); s.close()
    os._exit(0)
cs = [os.fork() for _ in range(4)]
if 0 in cs: client()
for p in cs + ws: os.waitpid(p, 0)
PY
for b in "${BACKENDS[@]}"; do
	# (without the fast path as with it: its accept of a Unix socket stops)
	[ $b = ptrace-slow ] && continue
	backend_opts $b
	d=$T/$b
	mkdir -p "$d/w"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$d/t.iotape" -- "$PY" "$T/s.py" "$d/w" ||
		fail "$b: record: exit $?"
	rm -rf "$d/w"
	for r in 1 2 3; do
		rm -rf "$d/r" && mkdir "$d/r"
		"$IOTAPE" replay "$d/t.iotape" --root "$d/r" --timing afap -o "$d/p.iotape" \
			>"$d/out" 2>&1 || { cat "$d/out"; fail "$b: replay $r: exit $?"; }
		n=$("$IOTAPE" dump "$d/p.iotape" | grep -c "EBADF.*result differs")
		[ "$n" = 0 ] || { "$IOTAPE" dump "$d/p.iotape" | grep -m3 "EBADF.*result differs"
			fail "$b: replay $r: $n calls met EBADF"; }
		grep -q "^  mismatches   0$" "$d/out" ||
			{ cat "$d/out"; fail "$b: replay $r: workers served other workers' clients"; }
	done
	echo "ok ($b): each worker's accepts took their own clients' connections, in 3 replays"
done
