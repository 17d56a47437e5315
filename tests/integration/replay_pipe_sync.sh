#!/bin/bash
# Replay of a pipeline whose reader leaves early (a replayed write into the
# pipe after the reader's exit must give EPIPE as a result, not a SIGPIPE
# that kills the replayer), and of sync(2), which replays as a sync of the
# filesystem under test and must succeed.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w"
seq 1 200000 >"$T/w/numbers"
"$IOTAPE" record -q -o "$T/t.iotape" -- sh -c "cat '$T/w/numbers' | head -n 1 >/dev/null; sync" \
	|| fail "record failed"
"$IOTAPE" dump "$T/t.iotape" | grep -q 'killed by SIGPIPE' || fail "cat was not killed by SIGPIPE"
mkdir "$T/root"
"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap -o "$T/p.iotape" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc = 0 ] || fail "replay exited $rc (141 would be SIGPIPE)"
"$IOTAPE" dump "$T/p.iotape" >"$T/p.dump" || fail "dump of the profile failed"
grep -q 'write(1, ..., 131072)' "$T/p.dump" || fail "the profile lacks cat's write into the pipe"
grep -q ' sync() = 0' "$T/p.dump" || { grep ' sync(' "$T/p.dump"; fail "the replayed sync failed"; }
echo ok
