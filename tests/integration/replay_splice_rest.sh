#!/bin/bash
# replay_splice_rest.sh - a file spliced into a pipe whose reader takes
# 8 KiB a read (pv into tee): each blocking splice of 128 KiB waited for
# room and moved up to 64 KiB, and the last found the end of the file.
# The replay's pipes do not block: a splice moved what fitted (8 KiB) and
# returned, the rest of the file was left unsent, the reader met its end
# early (191-199 reads differed, and a partial splice was no mismatch),
# and the last splice met EAGAIN at the full pipe; until 2026-12-07.  Now
# a splice moves the rest as a write does, waits for room before the end
# of its input, and its count is compared as a read's.  Recorded with
# the default backend and with ptrace.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_python
tmp_dir /var/tmp/iotape-test
cat >"$T/splice.py" <<'P'
import os, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w)
    n = 0
    while True:
        b = os.read(r, 8192)
        if not b:
            break
        n += len(b)
    print(n)
    os._exit(0)
os.close(r)
fd = os.open(sys.argv[1], os.O_RDONLY)
while os.splice(fd, w, 131072) > 0:
    pass
os.close(w)
os.waitpid(pid, 0)
P
for b in auto ptrace; do
	mkdir -p "$T/$b/w"
	head -c 4000000 /dev/urandom >"$T/$b/w/big"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend $b -o "$T/$b/t.iotape" -- "$PY" "$T/splice.py" big >"$T/$b/got") ||
		fail "$b: record: exit $?"
	[ "$(cat "$T/$b/got")" = 4000000 ] || fail "$b: the reader got $(cat "$T/$b/got") bytes, not 4000000"
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -qE ' splice\([0-9]+, NULL, [0-9]+, NULL, 131072, 0\) = ([1-9][0-9]{4,}) ' ||
		fail "$b: the trace holds no splice that moved more than 8 KiB"
	rm -rf "$T/$b/w"
	mkdir "$T/$b/r"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): a file spliced into a slow reader's pipe, replayed with 0 mismatches"
done
