#!/bin/bash
# replay_link_made_lookup.sh - a path looked up through a name another
# thread made just before: npm's workers make node_modules/a ->
# ../packages/a again in one thread and stat node_modules/a/cli.js in
# another, 1.5 ms later.  The stat kept no order with the symlink (its
# path is another; only a name made or removed looked up its
# directory), and a replay as fast as possible ran it first: ENOENT (npm
# workspaces: 1 mismatch in 2 of 6 ptrace replays, 6 of 6 bpf ones of one
# trace).  Every path looked up now follows the last change of its
# directory's name.  tests/progs/link_lookup: the worker spins (no call,
# no sleep the replay orders on) while the main thread stats pkg/f 2,000
# times and makes d -> pkg, then stats d/f; replayed as fast as possible.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp linklookup
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	W=$T/$b/w
	mkdir -p "$W/pkg" "$T/$b/r"
	echo x >"$W/pkg/f"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/$b/t.iotape" -- "$PROGS/link_lookup" "$W" \
		>"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	rm -rf "$W"
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" --timing afap --verify >"$T/$b/out" 2>&1 ||
		fail "$b: replay failed or mismatched: $(grep -A8 '^  mismatches' "$T/$b/out" | cut -c1-300)"
	echo "ok ($b): the stat through the link made by the other thread came after it, 0 mismatches"
done
