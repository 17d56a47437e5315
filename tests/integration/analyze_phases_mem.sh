#!/bin/bash
# analyze_phases_mem.sh - `iotape report` of a shell that runs 300,000
# top-level commands (tests/bench/mk_analyze_traces --commands: each a
# phase, half of them a command of a name of its own) keeps ANA_PHASES_MAX
# (256) phases and ANA_CMDS_MAX (256) commands with rows of their own and
# counts the others in one row each, "(other commands)": within an
# address space of 48 MiB (ulimit -v), where a row per phase (~8 KB of
# histogram each) took 40 MiB at 5,000 commands.  The rows kept are the
# longest phases (every 2000th command syncs for 5 ms); every call is in
# one phase row and one command row; diff and export of it too.
set -u
. "$(dirname "$0")/lib.sh"

need_iotape_cmd report
need_cmd python3
need_mk_analyze_traces
need_address_limit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=300000
LIMIT_MIB=48

"$GEN" --commands "$tmp/c.iotape" $N || fail "mk_analyze_traces --commands failed"
run() {	# OUT ARGS...: iotape ARGS under the limit, its stdout into OUT
	local out=$1
	shift
	limited $LIMIT_MIB "$out" "$tmp/err" env IOTAPE_READAHEAD=0 "$IOTAPE" "$@"
}
run "$tmp/json" report --json "$tmp/c.iotape"
run "$tmp/text" report "$tmp/c.iotape"
run "$tmp/diff" diff "$tmp/c.iotape" "$tmp/c.iotape"
run "$tmp/export" export --format json -o "$tmp/export.json" "$tmp/c.iotape"
cmp -s "$tmp/json" "$tmp/export.json" || fail "export --format json is not report --json"

python3 - "$tmp/json" $N <<'PY' || fail "the rows are wrong"
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
long = [i for i in range(n) if i % 2000 == 7]
ph = r["phases"]
assert r["phase_source"] == "commands", r["phase_source"]
# 256 phases, then the others, then the gaps
assert len(ph) == 256 + 2, len(ph)
fold, gaps = ph[-2], ph[-1]
assert fold["name"] == "(other commands)" and fold["folded"] == n - 256, fold
assert gaps["name"] == "(gaps)" and "folded" not in gaps, gaps
assert all("folded" not in p for p in ph[:-2])
names = [p["name"] for p in ph[:-2]]
for i in long:	# the longest have rows of their own
    assert "/opt/tools/tool%d file%d.c" % (i, i) in names, i
assert sum(p["count"] for p in ph) == r["events"] == 4 * n + len(long), r["events"]
# every command in a phase row: each makes an openat and a read
assert fold["count"] == 2 * (n - 256) + 0, fold["count"]
assert 0 < gaps["real_ns"] < r["real_ns"] and fold["real_ns"] > 0, (gaps, fold)
assert abs(sum(p["real_ns"] for p in ph) - r["real_ns"]) <= 1, r["real_ns"]
cpu = [p["cpu_ns"] for p in ph]
assert sum(cpu) == r["cpu_ns"], (sum(cpu), r["cpu_ns"])
assert fold["cpu_ns"] >= (n - 256) * 500000, fold["cpu_ns"]
cm = {c["command"]: c for c in r["commands"]}
assert len(cm) == 256 + 1, len(cm)
assert sum(c["count"] for c in cm.values()) == r["events"]
assert sum(c["processes"] for c in cm.values()) == n + 1
assert cm["cc1"]["processes"] == n // 4 and cm["as"]["processes"] == n // 4, cm["as"]
assert cm["(other commands)"]["processes"] == n // 2 - 253, cm["(other commands)"]
PY
grep -q "^  (other commands): $((N - 256)) top-level commands" "$tmp/text" ||
	fail "report does not say how many phases '(other commands)' holds: $(grep -A2 '^  total' "$tmp/text" | head -3)"
grep -q "^(other commands) " "$tmp/diff" || fail "diff has no row '(other commands)'"
exit 0
