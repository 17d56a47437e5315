#!/bin/bash
# replay_bad_fd.sh - calls that failed EBADF on a number no descriptor
# held, in the recording and in the replay (bash's fcntl(255, F_GETFD)
# before it takes 255; a close of a number never opened): made again on
# a number that is no descriptor, the kernel's answer at its cost, where
# they were left out as "descriptor not replayed" until 2026-12-07.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_python
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import fcntl, os
for i in range(5):
    for f in (lambda: os.close(210 + i), lambda: fcntl.fcntl(220 + i, fcntl.F_GETFD)):
        try:
            f()
        except OSError:
            pass
') || fail "record: exit $?"
n=$("$IOTAPE" dump "$T/t.iotape" | grep -cE ' (close\(21[0-4]\)|fcntl\(22[0-4], F_GETFD\)) = -1 EBADF')
[ "$n" = 10 ] || fail "the trace holds $n of the 10 calls that failed EBADF"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap -o "$T/p.iotape"
left=$("$IOTAPE" dump "$T/p.iotape" | grep -E ' (close\(21[0-4]\)|fcntl\(22[0-4], F_GETFD\)) = -1 EBADF' |
	grep -c 'not replayed')
[ "$left" = 0 ] || fail "$left of the 10 calls that failed EBADF were left out"
echo "ok: 10 calls on numbers no descriptor held replayed, EBADF as recorded"
