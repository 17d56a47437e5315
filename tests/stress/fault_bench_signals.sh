#!/bin/bash
# fault_bench_signals.sh [ROUNDS] - 'make stress': iotape bench interrupted
# by SIGINT or SIGTERM at a random moment (default 20 rounds, alternating):
# exit 130 or 143 (0 if it had already finished), and no mount, loop device,
# image or scratch directory of its own left behind.  Each round
# prints its signal and delay so a failure can be replayed.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root_loop
need_cmd mkfs.ext4
need_iotape_cmd bench
rounds=${1:-20}
T=$(mktemp -d /var/tmp/iotape-sig.XXXXXX)
trap 'rm -rf "$T"' EXIT
mk_tree "$T/src" 40
"$IOTAPE" record -q -o "$T/copy.iotape" -- sh -c "cp -a '$T/src' '$T/dst' && sync && rm -rf '$T/dst'" ||
	fail "record failed"
fss=ext4
command -v mkfs.xfs >/dev/null && fss=$fss,xfs
command -v mkfs.btrfs >/dev/null && fss=$fss,btrfs
fss=$fss,tmpfs
# left_behind - like lib.sh no_leftovers, but only what this test's bench
# made (everything it makes is under $T): other tests may hold loop
# devices and mounts at the same time
left_behind() {
	grep -q " $T/" /proc/self/mountinfo && fail "$1: a mount is left: $(grep " $T/" /proc/self/mountinfo)"
	losetup -a | grep -q "$T/" && fail "$1: a loop device is left: $(losetup -a | grep "$T/")"
	find "$T" -name '*.img' | grep -q . && fail "$1: an image is left: $(find "$T" -name '*.img')"
	find "$T" -maxdepth 1 -name 'iotape-bench.*' | grep -q . && fail "$1: a scratch dir is left"
	return 0
}
# how long one whole bench takes: the random moments fall inside it
s=$(date +%s%N)
"$IOTAPE" bench "$T/copy.iotape" --fs "$fss" --timing afap -o "$T/prof" --scratch "$T" -q \
	>/dev/null 2>"$T/err" || { cat "$T/err"; fail "bench failed without a signal"; }
ms=$(( ($(date +%s%N) - s) / 1000000 ))
left_behind "the uninterrupted bench"
echo "one bench over $fss: $ms ms"
for r in $(seq 1 "$rounds"); do
	sig=INT want=130
	[ $((r % 2)) = 0 ] && sig=TERM want=143
	t=$((RANDOM % (ms + 1)))
	rm -rf "$T/prof"
	"$IOTAPE" bench "$T/copy.iotape" --fs "$fss" --timing afap -o "$T/prof" --scratch "$T" -q \
		>/dev/null 2>"$T/err" &
	pid=$!
	sleep "$(printf '%d.%03d' $((t / 1000)) $((t % 1000)))"
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "round $r (SIG$sig after $t ms): bench still runs 60 s later"
	wait "$pid"; rc=$?
	[ "$rc" = "$want" ] || [ "$rc" = 0 ] ||
		{ cat "$T/err"; fail "round $r (SIG$sig after $t ms): exit $rc, want $want"; }
	left_behind "round $r (SIG$sig after $t ms)"
	echo "round $r: SIG$sig after $t ms: exit $rc, nothing left"
done
echo ok
