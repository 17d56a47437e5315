#!/bin/bash
# replay_long_name.sh - a path whose last name is longer than a name can
# be (NAME_MAX, 255 bytes): the kernel looks its parent up first, and a
# missing directory there is ENOENT, an existing one ENAMETOOLONG.  The
# replay split the last name off first and answered ENAMETOOLONG to both
# (chromium's GPU process stats its command line as a path: 4
# mismatches a run, until 2026-12-07).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w/d" "$T/r"
long=$(printf '%400s' | tr ' ' a)
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c \
	"stat '$T/w/nodir --flag=x/$long'; stat '$T/w/d/$long'; true" >/dev/null 2>&1) ||
	fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
grep -qE "stat.*nodir --flag=x/a+\".* = -1 ENOENT" "$T/dump" || fail "the trace holds no ENOENT of the long name under a missing directory"
grep -qE "stat.*/d/a+\".* = -1 ENAMETOOLONG" "$T/dump" || fail "the trace holds no ENAMETOOLONG of the long name in d"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: a name too long under a missing directory ENOENT, under one there ENAMETOOLONG, as recorded"
