#!/bin/bash
# replay_plan_only.sh - IOTAPE_REPLAY_PLAN, the knob that measures the
# plan: set, `iotape replay` says the CPU time of each planning step and
# the events planned per CPU second, and replays as before; "only", it
# stops after the plan: nothing made under --root, no profile written,
# no summary, exit 0.  traces/tar.iotape, --timing afap.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-planonly.XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=$SRCDIR/traces/tar.iotape
n=$("$IOTAPE" check "$SRC" | sed -n 's/^  events *\([0-9]*\).*/\1/p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no event count from iotape check $SRC"
line="^iotape: replay: plan: $n events in [0-9.]* s of CPU time ([0-9.]* M events per CPU second): read [0-9.]* s, sort [0-9.]*, clean [0-9.]*, threads [0-9.]*, think [0-9.]*, wakes [0-9.]*, polls [0-9.]*, moves [0-9.]*$"

mkdir "$T/only"
IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay "$SRC" --root "$T/only" --timing afap \
	-o "$T/only.iotape" >"$T/only.out" 2>"$T/only.err"
rc=$?
cat "$T/only.out" "$T/only.err"
[ $rc = 0 ] || fail "IOTAPE_REPLAY_PLAN=only: exit $rc, expected 0"
grep -q "$line" "$T/only.err" || fail "IOTAPE_REPLAY_PLAN=only: no line of the plan's steps"
[ -z "$(ls -A "$T/only")" ] || fail "IOTAPE_REPLAY_PLAN=only made $(ls -A "$T/only" | wc -l) names under --root"
[ ! -e "$T/only.iotape" ] || fail "IOTAPE_REPLAY_PLAN=only wrote a profile"
[ ! -s "$T/only.out" ] || fail "IOTAPE_REPLAY_PLAN=only printed a summary"

mkdir "$T/run"
IOTAPE_REPLAY_PLAN=1 "$IOTAPE" replay "$SRC" --root "$T/run" --timing afap \
	-o "$T/run.iotape" >"$T/run.out" 2>"$T/run.err" || { cat "$T/run.err"; fail "IOTAPE_REPLAY_PLAN=1: exit $?"; }
grep -q "$line" "$T/run.err" || { cat "$T/run.err"; fail "IOTAPE_REPLAY_PLAN=1: no line of the plan's steps"; }
grep -q '^  elapsed ' "$T/run.out" || fail "IOTAPE_REPLAY_PLAN=1: no summary"
[ -s "$T/run.iotape" ] || fail "IOTAPE_REPLAY_PLAN=1: no profile"
[ -n "$(ls -A "$T/run")" ] || fail "IOTAPE_REPLAY_PLAN=1: nothing replayed under --root"

"$IOTAPE" replay "$SRC" --root "$T/run" --force --timing afap -q -o "$T/plain.iotape" \
	2>"$T/plain.err" || fail "replay without the knob: exit $?"
grep -q 'plan:' "$T/plain.err" && fail "a replay without IOTAPE_REPLAY_PLAN said the plan's steps"
echo "ok"
