#!/bin/bash
# analyze_bad.sh - bad input: a file that is not a trace fails with one
# clear message; a truncated trace is analyzed with a warning and exit 3;
# a missing file, bad options and an empty trace behave.
set -u
d=$DATA/analyze
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo "this is not a trace" > "$out/junk.iotape"
"$IOTAPE" report "$out/junk.iotape" >"$out/o" 2>"$out/e"; rc=$?
[ $rc = 1 ] || fail "junk: exit $rc"
[ "$(wc -l < "$out/e")" = 1 ] || fail "junk: expected one message: $(cat "$out/e")"
grep -q "^iotape: report: $out/junk.iotape: " "$out/e" || fail "junk: $(cat "$out/e")"

"$IOTAPE" diff "$d/moz.iotape" "$out/missing.iotape" >"$out/o" 2>"$out/e"; rc=$?
[ $rc = 1 ] || fail "missing: exit $rc"
grep -q "missing.iotape" "$out/e" || fail "missing: $(cat "$out/e")"

size=$(stat -c %s "$d/moz.iotape")
head -c $((size * 2 / 3)) "$d/moz.iotape" > "$out/cut.iotape"
for cmd in "report" "diff $d/moz.iotape" "export --format csv"; do
	# shellcheck disable=SC2086
	"$IOTAPE" $cmd "$out/cut.iotape" >"$out/o" 2>"$out/e"; rc=$?
	[ $rc = 3 ] || fail "$cmd cut: exit $rc: $(cat "$out/e")"
	grep -q "warning: $out/cut.iotape: .*iotape check --repair" "$out/e" ||
		fail "$cmd cut: $(cat "$out/e")"
	[ -s "$out/o" ] || fail "$cmd cut: no output"
done
grep -q "DAMAGED" <("$IOTAPE" report "$out/cut.iotape" 2>/dev/null) || fail "no DAMAGED line"

"$IOTAPE" report "$d/empty.iotape" >"$out/o" 2>&1 || fail "empty: exit $?"
grep -q "no events" "$out/o" || fail "empty: no 'no events' line"
"$IOTAPE" report --by nothing "$d/moz.iotape" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--by nothing: exit $rc"
"$IOTAPE" export "$d/moz.iotape" --format xml 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--format xml: exit $rc"
"$IOTAPE" report --help | grep -q "iotape-phase" || fail "report --help lacks phases"
echo "bad input ok"
