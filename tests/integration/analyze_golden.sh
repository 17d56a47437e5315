#!/bin/bash
# analyze_golden.sh - report, diff and export on the committed traces of
# tests/data/analyze/ (made by tests/bench/mk_analyze_traces) must print
# exactly the committed *.expected outputs.  UPDATE=1 rewrites them.
set -u
d=$DATA/analyze
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$d" || exit 1
fail=0

check() {	# name, expected exit status, command...
	local name=$1 want=$2 rc; shift 2
	"$@" >"$out/$name" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want"; cat "$out/$name"; fail=1; return
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$out/$name" "$d/$name.expected"
	elif ! diff -u "$d/$name.expected" "$out/$name"; then
		echo "FAIL $name: output differs from $name.expected"; fail=1
	fi
}

check report 0 "$IOTAPE" report moz.iotape
check report-marks 0 "$IOTAPE" report marks.iotape --by phase
check report-empty 0 "$IOTAPE" report empty.iotape
check report-errors 0 "$IOTAPE" report moz-btrfs-errors.iotape --by class
check report-json 0 "$IOTAPE" report moz.iotape --json
check diff 0 "$IOTAPE" diff moz-ext4.iotape moz-xfs.1.iotape moz-xfs.2.iotape \
	moz-xfs.3.iotape moz-btrfs-errors.iotape
check diff-sep 0 "$IOTAPE" diff moz-ext4.iotape moz-btrfs-errors.iotape -- moz-xfs.1.iotape \
	moz-xfs.2.iotape
check diff-other 0 "$IOTAPE" diff moz.iotape other.iotape
check export-csv 0 "$IOTAPE" export marks.iotape --format csv
check export-json 0 "$IOTAPE" export marks.iotape --format json

# the Mozilla-tree script gives its 9 phases, in order
python3 - "$out/report-json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
names = [p["name"] for p in r["phases"]]
want = ["cp -a /home/test/mozilla /mnt/test/mozilla", "sync", "cp -a mozilla mozilla-2",
        "cp -a mozilla mozilla-3", "sync", "du mozilla", "rm -rf mozilla",
        "tar c mozilla-2", "sync", "(gaps)"]
assert names == want, names
assert sum(p["count"] for p in r["phases"]) == r["events"] == r["total"]["count"]
assert r["classes"]["write"]["bytes"] > 0 and r["classes"]["sync"]["count"] == 3
PY
# the CPU of the root (make, here) is where it ran, not all in "(gaps)":
# before, its 240 ms over 39 ms of gaps read as a CPU_UTIL of 618%
"$IOTAPE" report "$SRCDIR/traces/build.iotape" --json >"$out/build-json" ||
	{ echo "FAIL report of traces/build.iotape"; fail=1; }
python3 - "$out/build-json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
gaps = [p for p in r["phases"] if p["name"] == "(gaps)"][0]
assert gaps["cpu_util"] is not None and gaps["cpu_util"] <= 1.0, gaps
# the rows still add up to the whole run's CPU time
assert abs(sum(p["cpu_ns"] for p in r["phases"]) - r["cpu_ns"]) <= len(r["phases"]), \
	(sum(p["cpu_ns"] for p in r["phases"]), r["cpu_ns"])
PY
# every line of every table fits 100 columns
for f in report report-marks diff diff-sep; do
	awk -v f="$f" 'length($0) > 100 { print "FAIL " f ": line " NR " is " length($0) " wide"; bad=1 }
		END { exit bad }' "$out/$f" || fail=1
done
exit $fail
