#!/bin/bash
# analyze_export.sh - the Chrome trace JSON parses and has one slice per
# recorded call; CSV has one row per call and keeps odd path bytes; the
# JSON summary parses although paths are not UTF-8.
set -u
d=$DATA/analyze
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$IOTAPE" export "$d/moz.iotape" --format chrome -o "$out/moz.json" || exit 1
"$IOTAPE" export "$d/moz.iotape" --format csv -o "$out/moz.csv" || exit 1
"$IOTAPE" export "$d/moz.iotape" --format json -o "$out/sum.json" || exit 1
"$IOTAPE" report "$d/moz.iotape" --json > "$out/report.json" || exit 1
python3 - "$out" <<'PY'
import csv, json, sys
o = sys.argv[1]
rep = json.load(open(o + "/report.json"))
n = rep["events"]
tr = json.load(open(o + "/moz.json"))
ev = tr["traceEvents"]
slices = [e for e in ev if e["ph"] == "X"]
assert len(slices) == n, (len(slices), n)
assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in slices)
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert "sh moz.sh" in names and "tar c mozilla-2" in names, names
# the Latin-1 byte 0xe9 comes out as U+00E9, the comma-and-quote name intact
paths = {e["args"].get("path", "") for e in slices}
assert "/home/test/mozilla/dir0/caf\u00e9.txt" in paths
assert '/mnt/test/mozilla/dir2/x,y "q".h' in paths
assert {e["args"]["errno"] for e in slices if "errno" in e["args"]} == {"EOPNOTSUPP", "ENOENT"}
with open(o + "/moz.csv", newline="", encoding="utf-8", errors="surrogateescape") as f:
    rows = list(csv.reader(f))
assert rows[0][:6] == ["t_enter_ns", "t_exit_ns", "dur_ns", "pid", "tid", "syscall"]
assert len(rows) == n + 1, (len(rows), n)
assert all(len(r) == 12 for r in rows)
p = [r[9] for r in rows[1:]]
assert "/home/test/mozilla/dir0/caf\udce9.txt" in p
assert '/mnt/test/mozilla/dir2/x,y "q".h' in p
assert all(int(r[1]) - int(r[0]) == int(r[2]) for r in rows[1:])
s = json.load(open(o + "/sum.json"))
assert s["events"] == n and s["total"]["count"] == n
print("export ok:", n, "events")
PY
