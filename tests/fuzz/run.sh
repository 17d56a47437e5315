#!/bin/sh
# run.sh DIR SECONDS - run every libFuzzer binary in DIR for SECONDS each,
# starting from a copy of tests/fuzz/corpus, and report executions and
# crashes.  Crash inputs are kept in DIR/crashes/; exit 1 if there is one.
set -u
dir=${1:?usage: run.sh DIR SECONDS}
secs=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
status=0
mkdir -p "$dir/crashes"
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	rm -f "$dir/crashes/$name-"*	# count this run's crashes only
	work=$(mktemp -d "${TMPDIR:-/tmp}/iotape-fuzz.XXXXXX")
	cp "$here/corpus/"* "$work/" 2>/dev/null
	log="$dir/$name.log"
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/crashes/$name-" \
		"$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	crashes=$(ls "$dir/crashes/$name-"* 2>/dev/null | wc -l)
	printf '  %-16s %ss  %s executions  %s crashes  corpus %s\n' "$name" "$secs" \
		"${execs:-?}" "$crashes" "$(ls "$work" | wc -l)"
	if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
		status=1
		grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log" | sed 's/^/    /'
		echo "    log: $log"
	fi
	rm -rf "$work"
done
exit $status
