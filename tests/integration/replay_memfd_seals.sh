#!/bin/bash
# replay_memfd_seals.sh - a memfd sealed against growing, shrinking and
# then writing (fcntl F_ADD_SEALS) refuses the writes and truncates made
# after (EPERM).  The replay left the seals out, as a lease is left out,
# and each of those calls succeeded on its memfd: 4 mismatches.  Now the
# seals go on the replay's memfd; a seal refused as busy when recorded
# (a writable mapping the replay does not hold) is not tried.  A memfd
# made with MFD_NOEXEC_SEAL, sealable without MFD_ALLOW_SEALING, is
# made so in the replay (it was made unsealable: its seal refused).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd python3
tmp_dir /var/tmp/iotape-test
cat >"$T/seal.py" <<'PY'
import errno, fcntl, os

def refused(f, *a):
    try:
        f(*a)
    except OSError as e:
        assert e.errno == errno.EPERM, e
        return
    raise AssertionError(f.__name__ + ' was let through')

fd = os.memfd_create('sealed', os.MFD_ALLOW_SEALING)
os.write(fd, b'x' * 4096)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK)
refused(os.ftruncate, fd, 8192)
refused(os.ftruncate, fd, 100)
refused(os.pwrite, fd, b'y' * 200, 4096)
assert os.pwrite(fd, b'y' * 100, 0) == 100
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE)
refused(os.pwrite, fd, b'z', 0)
assert fcntl.fcntl(fd, fcntl.F_GET_SEALS) == (fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK |
                                              fcntl.F_SEAL_WRITE)
os.close(fd)
# MFD_NOEXEC_SEAL (Linux 6.3) makes it sealable too
try:
    fd = os.memfd_create('noexec', 8)
except OSError as e:
    assert e.errno == errno.EINVAL, e
else:
    os.write(fd, b'x' * 100)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    refused(os.ftruncate, fd, 10)
    os.close(fd)
PY
"$IOTAPE" record -q -o "$T/t.iotape" -- python3 "$T/seal.py" || fail "record: exit $?"
n=$("$IOTAPE" dump "$T/t.iotape" | grep -c 'F_ADD_SEALS')
[ "$n" -ge 2 ] || fail "the trace holds $n seals added, not 2 or 3"
mkdir "$T/r"
WHY="a call a memfd's seals refused was let through" \
	replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: $n seals on memfds, the calls they refused refused in the replay"
