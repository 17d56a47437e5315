#!/bin/bash
# replay_dev_ioctl.sh - an ioctl on a descriptor of a device, whose open
# the replay does not make (/dev): stdio's isatty() of /dev/urandom
# (TCGETS, EINVAL) in redis-server, 3 calls a recording.  It was counted
# "unsupported", as if the replay lacked the request, where no call on
# that descriptor can be made: it counts as "descriptor not replayed"
# now, as the descriptor's fstat and read do.  A request the replay does
# lack, on a file it has, is still unsupported.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd python3
[ -r /dev/urandom ] || skip "no /dev/urandom"
tmp_dir /var/tmp/iotape-test
cat >"$T/p.py" <<'PY'
import fcntl, os, sys
fd = os.open("/dev/urandom", os.O_RDONLY)
assert not os.isatty(fd)
os.read(fd, 16)
os.close(fd)
with open(sys.argv[1] + "/f", "w") as f:
    fcntl.fcntl(f, fcntl.F_SETSIG, 0)	# unsupported: would signal the replayer
PY
mkdir "$T/w"
"$IOTAPE" record -q -o "$T/t.iotape" -- python3 "$T/p.py" "$T/w" || fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" | grep -qE 'ioctl\([0-9]+, TCGETS, .*\) = -1 EINVAL' ||
	skip "isatty() of /dev/urandom was not refused EINVAL here"
mkdir "$T/r"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
grep -qE '^  unsupported +1 calls.*: fcntl 1;?$' "$T/out" ||
	{ cat "$T/out"; fail "the ioctl on /dev/urandom's descriptor is counted unsupported (or F_SETSIG is not)"; }
echo "ok: an ioctl on a device's descriptor counted as not replayed, F_SETSIG as unsupported"
