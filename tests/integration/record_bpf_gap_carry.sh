#!/bin/bash
# record_bpf_gap_carry.sh - a gap's times go with the next recorded call,
# over a call the trace does not hold.  tests/progs/join_stack joins a
# thread whose 64 MiB stack glibc then unmaps (anonymous memory: no
# recorded call, but the BPF programs give that munmap its gap's times).
# The main thread's next call, access(m1), must carry the join's wait:
# '[waited ...]' of ~100 ms and '[gap woken by TID]' naming the thread
# (rustc's main thread, joined to its compile thread, lost them so, and
# its wait was replayed as computing).  Three recordings.  Needs the bpf backend (skipped where it does not load).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_bpf
[ -x "$PROGS/join_stack" ] || fail "$PROGS/join_stack is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
for i in 1 2 3; do
	"$IOTAPE" record -q --backend bpf -o t$i.iotape -- "$PROGS/join_stack" "$T" ||
		fail "record $i: exit $?"
	"$IOTAPE" dump t$i.iotape >t$i.txt || fail "dump $i: exit $?"
	wk=$(sed -n 's/^\([0-9]*\) .*--- new thread of .*/\1/p' t$i.txt | head -1)
	[ -n "$wk" ] || { cat t$i.txt; fail "recording $i: no new thread in the trace"; }
	line=$(grep '/m1"' t$i.txt)
	[ -n "$line" ] || { cat t$i.txt; fail "recording $i: no access of m1"; }
	w=$(printf '%s\n' "$line" | sed -n 's/.*\[waited \([0-9.]*\)\].*/\1/p')
	awk -v w="$w" 'BEGIN { exit !(w != "" && w >= 0.05) }' ||
		fail "recording $i: m1 carries no wait of 50 ms or more: $line"
	printf '%s\n' "$line" | grep -q "\[gap woken by $wk\]" ||
		fail "recording $i: m1 does not name the thread $wk as its gap's waker: $line"
	echo "recording $i: $line"
done
