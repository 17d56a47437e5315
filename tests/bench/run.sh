#!/bin/sh
# run.sh - 'make bench': every performance figure, side by side in one run.
# Each part prints its own table; a part whose script is missing is skipped.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD IOTAPE=$PWD/$BUILD/iotape
for part in format record record_data record_bpf bpf_gaps record_mem replay analyze aio scale deep clients; do
	s=tests/bench/$part.sh
	[ -f "$s" ] || continue
	echo "=== bench: $part"
	sh "$s" || echo "bench: $part failed (exit $?)"
	echo
done
