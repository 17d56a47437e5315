#!/bin/bash
# A ring closed after the program saw every request complete, where the
# replay runs ahead (tests/progs/uring_tail: two fsyncs in flight at
# once, then an fsync of 32 MiB submitted with no wait and waited for in
# the ring's memory, a NOP the same way, the ring closed).  The recorder
# sees the last fsync complete at the NOP's io_uring_enter; a replay as
# fast as it can reaches the NOP, and the close, while its fsync still
# runs.  The replay waits for it at the ring's end, as the program did:
# every recorded completion is reaped, and the profile holds the fsync's
# completion before the ring's close.  (Before, the ring went with the
# fsync in flight: "3 completions reaped (4 recorded)".)
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/uring_tail" ] || fail "$PROGS/uring_tail is not built (make tests)"
# on a filesystem with a block device: the fsync of 32 MiB takes time
d=$(mktemp -d /var/tmp/iotape-utail.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
mkdir w
"$PROGS/uring_tail" "$d/w" >/dev/null 2>&1
case $? in
0) ;;
2) skip "io_uring is not available here (kernel.io_uring_disabled?)" ;;
*) fail "uring_tail: native run failed" ;;
esac
rm -rf w && mkdir w
"$IOTAPE" record -q -o t.iotape -- "$PROGS/uring_tail" "$d/w" 2>rec.err ||
	fail "record of uring_tail failed: $(cat rec.err)"
"$IOTAPE" dump t.iotape >t.dump
grep -q "io_uring complete fsync" t.dump || fail "no fsync completion in the trace: $(grep io_uring t.dump)"
for i in 1 2 3; do
	rm -rf root && mkdir root
	"$IOTAPE" replay t.iotape --root root --timing afap -o p.iotape >replay.out 2>&1 ||
		fail "replay exited $?: $(cat replay.out)"
	grep -q "async I/O    4 of 4 requests replayed .*, 4 completions reaped (4 recorded), 0 results differ" replay.out ||
		fail "replay $i: $(grep 'async I/O' replay.out)"
	# the last fsync's completion comes before the ring's close
	"$IOTAPE" dump p.iotape | awk '/io_uring complete fsync/ { f = $2 }
		/ close\(3\)/ { c = $2 } END { exit !(f != "" && c != "" && f + 0 <= c + 0) }' ||
		fail "replay $i: the profile has no fsync completion before the ring's close: $("$IOTAPE" dump p.iotape | grep -E 'io_uring|close\(3\)')"
done
echo "ok: the replay waited at the ring's close for the fsync the program had seen complete (3 runs)"
