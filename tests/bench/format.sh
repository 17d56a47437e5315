#!/bin/sh
# format.sh - size and speed of the trace format against strace text, on a
# cp -a shaped workload of 1,000,000 events.  Prints one small table.
# Paths come from the kernel source tarball when it is installed
# (linux-source-6.1), else from a made-up kernel tree.  Then the default
# run's bytes per event by Chunk field (format_bench -c).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
bench=$BUILD/tests/bench/format_bench
make --no-print-directory BUILD="$BUILD" "$bench" >/dev/null || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iotape-fmtbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
plist=
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n1)
if [ -n "$tarball" ]; then
	tar -tJf "$tarball" 2>/dev/null | grep -v '/$' >"$tmp/paths" && plist="-p $tmp/paths"
fi
run() {	# label, options...
	label=$1; shift
	"$bench" -d "$tmp" $plist "$@" >"$tmp/out" || { echo "format_bench failed"; exit 1; }
	v() { sed -n "s/^$1=//p" "$tmp/out"; }
	printf '%-34s %8s %10.1f %10.1f %10.1f\n' "$label" "$(v iotape_bytes_per_event)" \
		"$(echo "$(v write_events_per_s) / 1000000" | bc -l)" \
		"$(echo "$(v append_events_per_s) / 1000000" | bc -l)" \
		"$(echo "$(v decode_events_per_s) / 1000000" | bc -l)"
	cp "$tmp/out" "$tmp/last"
}
echo "paths: ${tarball:-synthetic kernel tree}"
printf '%-34s %8s %10s %10s %10s\n' "iotape format (1M cp -a events)" "B/event" "write M/s" \
	"append M/s" "decode M/s"
run "default (8192 events, zstd -5)" -c
cp "$tmp/out" "$tmp/cols"
run "background writer" -b
run "4096 events, zstd -3" -f 4096 -l 3
run "16384 events, zstd -9" -f 16384 -l 9
sb=$(sed -n 's/^strace_bytes_per_event=//p' "$tmp/last")
sz=$(sed -n 's/^strace_zstd3_bytes_per_event=//p' "$tmp/last")
printf '%-34s %8s\n' "strace -f -ttt -T text" "$sb"
printf '%-34s %8s\n' "strace text, zstd -3" "$sz"
echo "default, bytes per event by column (compressed; before compression):"
sed -n 's/^col_\([a-z_0-9]*\)=\([0-9.]*\) raw=\([0-9.]*\)$/\1 \2 \3/p' "$tmp/cols" |
	awk '$2 >= 0.005 || $3 >= 0.005 { printf "  %-22s %6.3f %7.3f\n", $1, $2, $3 }'
sed -n 's/^col_frames_header_index=/  frames, header, index  /p' "$tmp/cols"
