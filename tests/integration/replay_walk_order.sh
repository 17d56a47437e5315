#!/bin/bash
# replay_walk_order.sh - a directory walk replays in the recorded order,
# and the replay says how many of the files it opened came after one the
# filesystem under the root lists later: 'tar c --sort=name' of 60 files
# (it lists the directory, then opens each file relative to it in name
# order), replayed; the count must be what the root's own listing order
# gives for the names in name order.
set -u
. "$(dirname "$0")/lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
need_cmd tar

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-walk.XXXXXX")
trap 'rm -rf "$T"' EXIT
A=$T/A
mkdir -p "$A/d"
for i in $(seq 1 60); do
	head -c $((i * 37)) /dev/urandom >"$A/d/f$(printf %03d $(((i * 37) % 101)))"
done
(cd "$A" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c 'tar c --sort=name d | cat >/dev/null') ||
	fail "recording failed"
R=$T/root
mkdir "$R"
"$IOTAPE" replay "$T/t.iotape" --root "$R" --timing afap >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay failed"; }
# the order the root lists the directory in, and the names in name order
ls -f "$R$A/d" | grep -v '^\.\.\?$' >"$T/listed"
n=$(wc -l <"$T/listed")
[ "$n" = 60 ] || fail "the replayed directory has $n entries, not 60"
back=$(LC_ALL=C sort "$T/listed" | awk 'NR == FNR { rank[$0] = FNR; next }
	{ if (FNR > 1 && rank[$0] < prev) b++; prev = rank[$0] } END { print b + 0 }' "$T/listed" -)
if [ "$back" = 0 ]; then
	grep -q "walk order" "$T/out" && { cat "$T/out"; fail "a walk in the listed order was counted"; }
else
	grep -q "walk order   $back of 60 files" "$T/out" ||
		{ cat "$T/out"; fail "expected $back of 60 files opened after one listed later"; }
fi
echo "ok: $back of 60 files opened after one the root lists later, counted"
