#!/bin/bash
# replay_long_hostile.sh - a long trace that a planner working in a window
# would find hostile: a descriptor opened by the first call and never
# closed, and a last call (of another thread) that reads it, so the last
# event depends on the first (tests/bench/longtrace -H, on three
# repetitions of traces/tar.iotape).  The replay must finish with no
# mismatch, the last read must get its 4096 bytes, and its peak memory must
# stay within 16 MiB of the same trace without the hostile calls.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (tools/deps.sh check installs it)"
need_longtrace
T=$(mktemp -d /var/tmp/iotape-longh.XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=$SRCDIR/traces/tar.iotape
"$GEN" -r 3 "$SRC" "$T/plain.iotape" || fail "longtrace"
"$GEN" -H -r 3 "$SRC" "$T/hostile.iotape" || fail "longtrace -H"
for t in plain hostile; do
	mkdir "$T/r.$t"
	/usr/bin/time -o "$T/$t.rss" -f '%M' "$IOTAPE" replay "$T/$t.iotape" --root "$T/r.$t" \
		--timing afap --verify -q -o "$T/$t.prof.iotape" || fail "replay of $t: exit $?"
done
last=$("$IOTAPE" dump -P "$T/hostile.prof.iotape" | grep '^101 ' | tail -n 1)
echo "$last" | grep -q 'read(3, \.\.\., 4096) = 4096 <' ||
	fail "the last read of the descriptor the first call opened: '$last'"
plain=$(tail -n 1 "$T/plain.rss") hostile=$(tail -n 1 "$T/hostile.rss")
echo "peak RSS: plain $plain KiB, hostile $hostile KiB"
[ "$hostile" -le $((plain + 16384)) ] ||
	fail "the hostile trace took $hostile KiB, the plain one $plain KiB"
echo ok
