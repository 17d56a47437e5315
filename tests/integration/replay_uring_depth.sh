#!/bin/bash
# A program that keeps 8 requests in flight, as fio's io_uring engine
# does (tests/progs/uring_depth, "lazy": each O_DIRECT write submitted
# by an io_uring_enter of its own, completions reaped when 8 are in
# flight, an io_uring_enter that waits for one when the ring holds none),
# recorded and replayed on a loop ext4.  The replay waits for a
# completion only with as many requests in flight as the program had
# when it waited: 8 (the summary's "in flight at a wait for
# completions", >= 7.5 on average, none of its waits taking the ring
# below the depth the recorded wait left).  Before, each recorded wait
# waited for a completion whatever the replay had in flight, and the
# recording, slowed by its stops, had seen fewer complete between two
# waits than the replay: the replay's waits began with 1.2-7.8 in flight
# on average (its queue ran low), and 1-2,000 of them went below.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/uring_depth" ] || fail "$PROGS/uring_depth is not built (make tests)"
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-udepth.XXXXXX")
trap 'loop_cleanup; rm -rf "$T"' EXIT
MNT=$T/mnt
loop_fs ext4 256m "$MNT"
mkdir "$MNT/w"
"$PROGS/uring_depth" "$MNT/w" 8 2048 lazy >/dev/null 2>&1
case $? in
0) ;;
2) skip "io_uring or O_DIRECT is not available here" ;;
*) fail "uring_depth: native run failed" ;;
esac
rm -rf "$MNT/w" && mkdir "$MNT/w"
"$IOTAPE" record -q -o "$T/t.iotape" -- "$PROGS/uring_depth" "$MNT/w" 8 2048 lazy \
	>/dev/null 2>"$T/rec.err" || fail "record of uring_depth failed: $(cat "$T/rec.err")"
rm -rf "$MNT/w"
mkdir "$MNT/root"
"$IOTAPE" replay "$T/t.iotape" --root "$MNT/root" >"$T/replay.out" 2>&1 ||
	fail "replay exited $?: $(cat "$T/replay.out")"
cat "$T/replay.out"
grep -Eq '^  mismatches +0$' "$T/replay.out" || fail "mismatches in the replay"
grep -q 'async I/O    2048 of 2048 requests replayed' "$T/replay.out" ||
	fail "not every request replayed"
line=$(grep 'in flight    at a wait for completions' "$T/replay.out") ||
	fail "the summary does not say how many were in flight at a wait"
rec=$(echo "$line" | sed -n 's/.*completions: \([0-9.]*\) recorded.*/\1/p')
rpl=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) replayed.*/\1/p')
awk -v r="$rec" 'BEGIN { exit !(r >= 7.5) }' ||
	skip "the recording waited with $rec in flight on average, not 8: the program did not keep its queue full here"
below=$(echo "$line" | sed -n 's/.*waits, \([0-9]*\) to below.*/\1/p')
[ "$below" = 0 ] ||
	fail "$below of the replay's waits took the ring below the depth the recorded wait left: $line"
awk -v r="$rpl" 'BEGIN { exit !(r >= 7.5) }' ||
	fail "the replay waited for completions with $rpl in flight on average, the program with $rec"
echo "ok: in flight at a wait: $rec recorded, $rpl replayed"
