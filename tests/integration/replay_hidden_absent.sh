#!/bin/bash
# replay_hidden_absent.sh - a directory whose name starts with a dot, not
# there at the start, made by the workload (notmuch's .notmuch), with a
# directory in it renamed.  The replay dropped every "absent" starting
# state with a "/." in its path, taking it for one with "." or ".."
# components to clean: .n was not known absent, what was recorded
# present under it was prepared, and the workload's mkdir met EEXIST
# (4 mismatches; notmuch: 19, until 2026-12-07).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w/m" "$T/r"
cat >"$T/w/s.sh" <<'SH'
test -e m/.n
test -e m/.n/d/f
mkdir m/.n m/.n/d
echo x >m/.n/d/f
test -e m/.n/d.old
mv m/.n/d m/.n/d.old
cat m/.n/d.old/f
rm -r m/.n/d.old
SH
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh s.sh >/dev/null) || fail "record: exit $?"
"$IOTAPE" dump --states "$T/t.iotape" | grep -q "state \"$T/w/m/.n\" absent" ||
	fail "the trace does not say .n was absent at the start"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
echo "ok: .n, absent at the start, made by the replay as by the workload"
