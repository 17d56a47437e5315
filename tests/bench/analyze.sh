#!/bin/bash
# analyze.sh - time and peak memory of `iotape report` on a synthetic trace
# of 1,000,000 events (and 250,000, to show memory does not grow with
# events).  Goal: under 2 s, memory bounded by the number of keys.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
gen=$BUILD/tests/bench/mk_analyze_traces
[ -x "$gen" ] || make --no-print-directory BUILD="$BUILD" "$gen" >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in 250000 1000000; do
	"$gen" --bench "$dir/b$n.iotape" "$n"
	size=$(stat -c %s "$dir/b$n.iotape")
	/usr/bin/time -v "$BUILD/iotape" report "$dir/b$n.iotape" >/dev/null 2>"$dir/time"
	secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")
	printf 'analyze: report on %7d events (%s bytes): %s wall, %s KiB peak RSS\n' \
		"$n" "$size" "$secs" "$rss"
	/usr/bin/time -v "$BUILD/iotape" export "$dir/b$n.iotape" --format chrome \
		-o "$dir/c.json" 2>"$dir/time"
	printf 'analyze: export chrome %7d events: %s wall, %s KiB peak RSS\n' "$n" \
		"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time")" \
		"$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")"
done
