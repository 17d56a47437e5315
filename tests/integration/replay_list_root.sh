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
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- ls -a / >/dev/null) || fail "record: exit $?"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
for d in dev proc sys; do
	[ ! -d "/$d" ] || [ -d "$T/r/$d" ] || fail "/$d is not in the replay's root"
	[ -z "$(ls -A "$T/r/$d" 2>/dev/null)" ] || fail "the replay made entries in /$d: $(ls -A "$T/r/$d" | head -3)"
done
echo "ok: the root's listing replayed as recorded, /dev, /proc and /sys empty"
