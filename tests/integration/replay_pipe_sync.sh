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
grep -q 'own work' "$T/out" && fail "afap printed the work think time hides"
# original timing: the summary and the profile say how much of the
# replayer's own work no think time could hide
rm -rf "$T/root2"; mkdir "$T/root2"
"$IOTAPE" replay "$T/t.iotape" --root "$T/root2" -o "$T/p2.iotape" >"$T/out2" 2>&1 ||
	fail "replay with original timing failed: $(cat "$T/out2")"
grep -Eq '^  own work +[0-9.]+ [mun]?s not hidden in think time' "$T/out2" ||
	fail "no 'own work' line: $(cat "$T/out2")"
"$IOTAPE" dump "$T/p2.iotape" | grep -Eq '^# replay.unhidden_ns +[0-9]+$' ||
	fail "the profile header lacks replay.unhidden_ns"
echo ok
