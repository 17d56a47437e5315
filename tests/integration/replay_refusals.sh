#!/bin/bash
# replay_refusals.sh - two calls the kernel refuses that the replay let
# through:
#  - an execve of a directory ("/": recollindex and recollq at their
#    start; a directory named like a command in $PATH): EACCES, where
#    the replay's check (faccessat2 X_OK) passed a directory, searchable
#    (8-10 mismatches a recoll replay).
#  - a write lock through a descriptor opened O_RDONLY (SQLite under
#    tracker-miner-fs): EBADF, where the replay took it through the open
#    that holds its process's locks, which reads and writes (76 a
#    replay).
# Recorded with the default backend.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp refusals
W=$T/w
mkdir -p "$W/adir" "$T/r"
echo x >"$W/f"
(cd "$W" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c '
"$0/adir" 2>/dev/null
'"$PY"' -c "
import fcntl, os
fd = os.open(\"f\", os.O_RDONLY)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print(\"lock taken\")
except OSError as e:
    print(\"lock\", e.errno)
"' "$W") >"$T/rec.out" 2>&1 || fail "record: exit $?"
grep -q "^lock 9$" "$T/rec.out" || { cat "$T/rec.out"; fail "the write lock through O_RDONLY was not refused natively"; }
"$IOTAPE" dump "$T/t.iotape" | grep -q "execve(\"$W/adir\", .*= -1 EACCES" ||
	fail "the trace holds no execve of the directory refused EACCES"
rm -rf "$W"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: an execve of a directory and a write lock through O_RDONLY refused as recorded"
