#!/bin/bash
# replay_list_root.sh - a listing of "/" (mkinitramfs, ls -a /).  The
# replay makes nothing of /dev, /proc and /sys, and their names were
# missing from the root's listing (1 mismatch, three entries, until
# 2026-12-07); now they are made as empty directories, and nothing in
# them.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- ls -a / >/dev/null) || fail "record: exit $?"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
for d in dev proc sys; do
	[ ! -d "/$d" ] || [ -d "$T/r/$d" ] || fail "/$d is not in the replay's root"
	[ -z "$(ls -A "$T/r/$d" 2>/dev/null)" ] || fail "the replay made entries in /$d: $(ls -A "$T/r/$d" | head -3)"
done
echo "ok: the root's listing replayed as recorded, /dev, /proc and /sys empty"
