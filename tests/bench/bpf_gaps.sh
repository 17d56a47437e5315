#!/bin/sh
# bpf_gaps.sh - what a bpf recording adds to the gap after a call, by the
# call's kind: tests/progs/call_gaps (10,000 rounds of newfstatat,
# openat, read and close, each followed by close(-1)) recorded
# with --backend bpf RUNS times; the median gap after each kind, and
# its excess over the gap after close(-1), which the calibration
# (record.bpf_gap_ns) measures and the replay takes off every gap.  An
# excess is read by the replay as the program's computing.
#   RUNS=3  IOTAPE_BASE=PATH/iotape (the same, with another build)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IOTAPE=${IOTAPE:-$PWD/$BUILD/iotape}
PROG=$PWD/$BUILD/tests/progs/call_gaps
RUNS=${RUNS:-3}
[ -x "$PROG" ] || { echo "bpf_gaps bench: $PROG not built (make tests)"; exit 1; }
W=$(mktemp -d /dev/shm/iotape-gaps.XXXXXX)
trap 'rm -rf "$W"' EXIT
echo hello >"$W/f"
"$IOTAPE" record -q --backend bpf -o "$W/probe.iotape" -- true 2>"$W/probe.err" ||
	{ echo "bpf_gaps bench: skipped: $(cat "$W/probe.err")"; exit 0; }
for b in ${IOTAPE_BASE:+base} new; do
	I=$IOTAPE
	[ "$b" = base ] && I=$IOTAPE_BASE
	for r in $(seq "$RUNS"); do
		"$I" record -q --backend bpf --bpf-ring-mb 64 -o "$W/t.iotape" -- "$PROG" 10000 "$W/f" &&
			"$I" export "$W/t.iotape" --format csv -o "$W/$b.$r.csv" ||
			{ echo "bpf_gaps bench: $b: record failed"; exit 1; }
	done
done
python3 - "$W" "$RUNS" ${IOTAPE_BASE:+base} new <<'PY'
import csv, statistics, sys
w, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
kinds = ["close(-1)", "newfstatat", "openat", "read", "close"]
print("bpf_gaps bench: median gap after each call kind, ns (excess over close(-1)), median of %d recordings" % runs)
print("%-6s " % "build" + " ".join("%16s" % k for k in kinds))
for b in builds:
    med = {k: [] for k in kinds}
    for r in range(1, runs + 1):
        rows = list(csv.DictReader(open("%s/%s.%d.csv" % (w, b, r))))
        tid = rows[-1]["tid"]
        rows = [x for x in rows if x["tid"] == tid and x["syscall"] != "exit_group"]
        g = {k: [] for k in kinds}
        for a, c in zip(rows, rows[1:]):
            k = a["syscall"] + ("(-1)" if a["syscall"] == "close" and a["ret"].startswith("-") else "")
            if k in g:
                g[k].append(int(c["t_enter_ns"]) - int(a["t_exit_ns"]))
        for k in kinds:
            if g[k]:
                med[k].append(statistics.median(g[k]))
    base = statistics.median(med["close(-1)"])
    cells = []
    for k in kinds:
        m = statistics.median(med[k])
        cells.append("%16s" % ("%d" % m if k == "close(-1)" else "%d (%+d)" % (m, m - base)))
    print("%-6s " % b + " ".join(cells))
PY
