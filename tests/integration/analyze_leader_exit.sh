#!/bin/bash
# analyze_leader_exit.sh - `iotape report` keeps a process whose leader
# thread has exited for as long as another of its threads goes on:
# tests/progs/leader_exit ends its main thread with pthread_exit() and
# makes 40,000 stats from its other thread, forking a child after each
# 5,000.  The bpf backend writes the leader's exit record when the
# leader ends; the report dropped the process four chunks after it, and
# its thread's later calls came as "(unknown)" (7,289 of 40,000); now
# every stat is leader_exit's.  ptrace writes the leader's exit with the
# group's end and never hit it (test_analyze leader_exits_first holds the
# loader to it without bpf).  Recorded with ptrace (with the fast path
# and without) and with bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd report
need_cmd python3
[ -x "$PROGS/leader_exit" ] || fail "$PROGS/leader_exit is not built (make tests)"
T=$(mktemp -d /tmp/iotape-leader.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
: >"$T/f"
record_backends "$T"

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/leader_exit" "$T/f" 8 ||
		fail "$b: recording leader_exit failed"
	"$IOTAPE" report --json "$T/t.iotape" >"$T/r.json" || fail "$b: report failed"
	python3 - "$T/r.json" <<'PY' || fail "$b: calls of leader_exit's thread not its command's"
import json, sys
r = json.load(open(sys.argv[1]))
rows = {c["command"]: c for c in r["commands"]}
assert "(unknown)" not in rows, {k: v["count"] for k, v in rows.items()}
assert rows["leader_exit"]["count"] >= 40000, rows["leader_exit"]
PY
	echo "$b: ok"
done
echo "ok: a process's calls after its leader's exit stay its command's"
