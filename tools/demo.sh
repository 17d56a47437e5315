#!/bin/sh
# demo.sh - what 'make demo' runs: bench the bundled Mozilla-tree trace on
# tmpfs and, as root, on ext4, xfs and btrfs loop images; print the
# seed-style table and write demo.html.
set -eu
BUILD=${BUILD:-build}
IOTAPE=$BUILD/iotape
TRACE=traces/mozilla.iotape
[ -f "$TRACE" ] || { echo "demo: $TRACE is missing (see traces/README.md)" >&2; exit 1; }
echo "== the trace: what the workload did"
"$IOTAPE" report "$TRACE" --by phase
if [ "$(id -u)" = 0 ]; then
	FS=tmpfs,ext4,xfs,btrfs
else
	echo "demo: not root, so no loop filesystems or tmpfs (mounting needs root);"
	echo "demo: benching a directory under /tmp instead (--dir)"
	FS=
fi
rm -rf demo-out
echo
echo "== the bench: replay on fresh filesystems ($FS)"
if [ -n "$FS" ]; then
	"$IOTAPE" bench "$TRACE" --fs "$FS" -o demo-out --html demo.html
else
	dir=$(mktemp -d /tmp/iotape-demo.XXXXXX)
	"$IOTAPE" bench "$TRACE" --dir "$dir" -o demo-out --html demo.html
	rm -rf "$dir"
fi
echo
echo "demo: profiles in demo-out/, report in demo.html"
