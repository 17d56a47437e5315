#!/bin/bash
# analyze_procs_mem.sh - `iotape report` holds the processes alive at once
# (and those that ended in the last few chunks), not every process of the
# trace: a shell loop of 300,000 short processes (1.5 M events, pids never
# used twice; tests/bench/mk_analyze_traces --procs) is reported within an
# address space of 48 MiB (ulimit -v; ~24 MiB at its peak), where a table of every pid and a
# list of every exit took it to ~114 MiB (RSS 96 MiB, now 9).  Each
# command's row holds its processes and calls, the child's close before
# its exec counted under the command it execs.
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

"$GEN" --procs "$tmp/p.iotape" $N || fail "mk_analyze_traces --procs failed"
limited $LIMIT_MIB "$tmp/out" "$tmp/err" env IOTAPE_READAHEAD=0 "$IOTAPE" report --json "$tmp/p.iotape"

python3 - "$tmp/out" $N <<'PY' || fail "the commands' rows are wrong"
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
rows = {c["command"]: c for c in r["commands"]}
assert r["process_records"] == 3 * n + 4, r["process_records"]
for cmd in ("true", "cc1", "as", "ld"):
    # a close before its exec, openat and read after it
    assert rows[cmd]["processes"] == n // 4, (cmd, rows[cmd])
    assert rows[cmd]["count"] == 3 * n // 4, (cmd, rows[cmd])
    assert rows[cmd]["bytes"] == 832 * n // 4, (cmd, rows[cmd])
# the shell and its subshell: a clone and a wait4 a process, and their own
assert rows["sh"]["processes"] == 2 and rows["sh"]["count"] == 2 * n + 2, rows["sh"]
assert "(unknown)" not in rows, rows.keys()
assert sum(c["count"] for c in r["commands"]) == r["events"] == 5 * n + 2
PY
exit 0
