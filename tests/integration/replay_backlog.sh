#!/bin/bash
# replay_backlog.sh - a forking server on a named Unix socket whose
# listen backlog fills: twelve clients connect at once to a listener of
# backlog 2, each sends its own count of bytes and closes; the server
# sleeps, then accepts and forks a reader per connection (socat's
# UNIX-LISTEN,fork with 20 clients on its backlog of 5).  Until
# 2026-12-07:
# - a connect that waited for room counted from its entry: the server's
#   first accept, and each handler's close of the listener, waited for
#   it, and it for the room the accepts make; after 2 s the connects
#   gave up (EAGAIN), their sends met ENOTCONN, and the replay stopped
#   there as if the filesystem had gone away (exit 5);
# - the accepts were recorded without their client's socket (it had
#   closed: its inode is read through its socket), and each replayed
#   accept took the connection its kernel queued first: handlers read
#   other clients' counts (bpf: 2-6 mismatches a replay).
# Recorded with ptrace (with and without the fast path), and bpf where
# it loads; each replayed twice with no mismatch.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
need_ptrace
record_tmp backlog
cat >"$T/s.py" <<'PY'
import os, socket, sys, time
n = 12
path = os.path.join(sys.argv[1], "srv.sock")
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(2)
for i in range(n):
    if os.fork() == 0:
        srv.close()
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)
        c.sendall(b"x" * (1000 * (i + 1)))
        c.close()
        os._exit(0)
time.sleep(0.2)
for i in range(n):
    conn, _ = srv.accept()
    if os.fork() == 0:
        srv.close()
        got = 0
        while True:
            b = conn.recv(8192)
            if not b:
                break
            got += len(b)
        with open(os.path.join(sys.argv[1], "out", str(got)), "w") as f:
            f.write("x")
        os._exit(0)
    conn.close()
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(0 if len(os.listdir(os.path.join(sys.argv[1], "out"))) == n else 1)
PY
for b in "${BACKENDS[@]}"; do
	backend_opts $b
	d=$T/$b
	mkdir -p "$d/w/out"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$d/t.iotape" -- "$PY" "$T/s.py" "$d/w" ||
		fail "$b: record: exit $?"
	rm -rf "$d/w"
	for r in 1 2; do
		rm -rf "$d/r" && mkdir "$d/r"
		"$IOTAPE" replay "$d/t.iotape" --root "$d/r" --timing afap >"$d/out" 2>&1
		rc=$?
		# (5: stopped as a fault of the filesystem under test)
		[ $rc = 0 ] || { cat "$d/out"; fail "$b: replay $r: exit $rc"; }
		grep -q "^  mismatches   0$" "$d/out" ||
			{ cat "$d/out"; fail "$b: replay $r: connects gave up, or handlers read other clients' data"; }
	done
	echo "ok ($b): every connect got room, every handler its own client's data, in 2 replays"
done
