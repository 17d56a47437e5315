#!/bin/bash
# replay_prefork_accept.sh - a prefork server: two forked workers accept
# on one inherited listening Unix socket while four client processes
# connect at once (gunicorn's sync workers).  The replay's accept that
# got another connection than its own kept it for that one's accept, by
# descriptor number; but each worker's process has a descriptor table of
# its own in the replay, where that number is another descriptor or
# none, and the accepted connections' reads met EBADF (166-1,601 calls
# a replay).  A connection is now kept only for an accept in the same
# table, else taken as the kernel gave it.  Recorded with the default
# backend; no call of the replay may meet EBADF.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp prefork
mkdir -p "$T/w" "$T/r"
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
"$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" "$T/s.py" "$T/w" || fail "record: exit $?"
rm -rf "$T/w"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap -o "$T/p.iotape" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
n=$("$IOTAPE" dump "$T/p.iotape" | grep -c "EBADF.*result differs")
[ "$n" = 0 ] || { "$IOTAPE" dump "$T/p.iotape" | grep -m3 "EBADF.*result differs"; fail "$n calls met EBADF"; }
echo "ok: two prefork workers' accepted connections kept their descriptors ($(grep -o 'mismatches *[0-9]*' "$T/out"))"
