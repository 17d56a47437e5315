#!/bin/bash
# replay_exec_fail.sh - execs that failed for what is not the path's: the
# arguments too long (E2BIG; GNU parallel execs /bin/sh with longer and
# longer ones to find the limit) and a file no loader takes (ENOEXEC,
# which sh then runs as a script).  The replay answers a failed exec by
# looking its path up and asking X_OK, which found them and said 0 (1
# mismatch a parallel run, until 2026-12-07); now, found, they fail as
# recorded.  A missing program still fails as the lookup says.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w" "$T/r"
printf '\177ELFnot a program\n' >"$T/w/bad"
chmod +x "$T/w/bad"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c \
	'/bin/true "$(printf "%200000s" x)"; ./bad; ./missing; true' >/dev/null 2>&1) ||
	fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
for e in E2BIG ENOEXEC ENOENT; do
	grep -qE "execve\(.* = -1 $e " "$T/dump" || fail "the trace holds no exec that failed $e"
done
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: execs that failed E2BIG, ENOEXEC and ENOENT replayed as recorded"
