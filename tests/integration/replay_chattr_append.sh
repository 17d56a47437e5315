#!/bin/bash
# replay_chattr_append.sh - a log made append-only with chattr +a
# (ioctl FS_IOC_SETFLAGS, its flags behind a pointer): appends go
# through, and a truncate, an open for writing without O_APPEND, an
# unlink and a rename of it are refused (EPERM) until chattr -a.  The
# trace kept only the pointer and the replay left the ioctl out, so each
# refused call succeeded there (13 mismatches a replay of three Python
# writers, truncate, rm and mv).  Now the recorder keeps the int after
# ioctl's arguments and the replay sets the flags on its file.  The same
# through FS_IOC_FSSETXATTR's FS_XFLAG_APPEND (xfs_io's chattr), from
# Python.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd chattr
need_cmd truncate
need_cmd python3
tmp_dir /var/tmp/iotape-test
# an append-only file cannot be removed: clear the flag before the trap's rm
trap 'chattr -R -a "$T" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
mkdir "$T/w"
echo start >"$T/w/log"
chattr +a "$T/w/log" 2>/dev/null || skip "chattr +a is not supported under $T"
chattr -a "$T/w/log"
cat >"$T/fsx.py" <<'PY'
import fcntl, os, struct, sys
GET, SET, APPEND = 0x801c581f, 0x401c5820, 0x10
fd = os.open(sys.argv[1], os.O_RDONLY)
x = list(struct.unpack('5I8s', fcntl.ioctl(fd, GET, bytes(28))))
x[0] |= APPEND
fcntl.ioctl(fd, SET, struct.pack('5I8s', *x))
for f in (lambda: os.open(sys.argv[1], os.O_WRONLY), lambda: os.unlink(sys.argv[1])):
    try:
        f()
        sys.exit(1)
    except PermissionError:
        pass
x[0] &= ~APPEND
fcntl.ioctl(fd, SET, struct.pack('5I8s', *x))
os.unlink(sys.argv[1])
PY
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 2
echo x >log2 && python3 "$2" log2 || exit 1
chattr +a log || exit 2
echo one >>log || exit 1
truncate -s 0 log 2>/dev/null && exit 1
(true >log) 2>/dev/null && exit 1
rm -f log 2>/dev/null && exit 1
mv log log.1 2>/dev/null && exit 1
echo two >>log || exit 1
chattr -a log || exit 2
mv log log.1
SH
"$IOTAPE" record -q -o "$T/t.iotape" -- sh "$T/cmd.sh" "$T/w" "$T/fsx.py" || fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" | grep -qE 'ioctl\([0-9]+, FS_IOC_SETFLAGS, \[0x[0-9a-f]*2[0-9a-f]\]\) = 0' ||
	fail "the trace does not hold chattr's FS_APPEND_FL"
"$IOTAPE" dump "$T/t.iotape" | grep -qE 'ioctl\([0-9]+, FS_IOC_FSSETXATTR, \{fsx_xflags=0x[0-9a-f]*1[0-9a-f], ...\}\) = 0' ||
	fail "the trace does not hold FS_XFLAG_APPEND set"
rm -rf "$T/w"
mkdir "$T/r"
WHY="a call refused on an append-only file was let through" \
	replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: chattr +a and -a and FS_XFLAG_APPEND replayed, 6 calls refused in between"
