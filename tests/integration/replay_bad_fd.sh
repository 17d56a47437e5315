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
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
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
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap -o "$T/p.iotape" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
left=$("$IOTAPE" dump "$T/p.iotape" | grep -E ' (close\(21[0-4]\)|fcntl\(22[0-4], F_GETFD\)) = -1 EBADF' |
	grep -c 'not replayed')
[ "$left" = 0 ] || fail "$left of the 10 calls that failed EBADF were left out"
echo "ok: 10 calls on numbers no descriptor held replayed, EBADF as recorded"
