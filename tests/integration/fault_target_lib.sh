# fault_target_lib.sh - helpers for the tests of faults of the filesystem
# under test (sourced after lib.sh).  Every mount a test makes is listed in
# $MOUNTS and undone on exit, lazily if it must be; every replay runs under
# timeout, so that a hang fails the test instead of the whole check.

MOUNTS=""
FUSE_PIDS=""
T=$(mktemp -d /var/tmp/iotape-fault.XXXXXX)

fault_cleanup() {
	local m p
	for p in $FUSE_PIDS; do kill -9 "$p" 2>/dev/null; done
	for m in $MOUNTS; do
		mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	loop_cleanup
	rm -rf "$T"
}
trap fault_cleanup EXIT

# mount_tmpfs DIR SIZE
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1" || fail "cannot mount a tmpfs of $2 on $1"
	MOUNTS="$1 $MOUNTS"
}

# mk_writes NAME N SIZE SLEEP - record a shell writing N files of SIZE
# (head -c) into $T/w, sleeping SLEEP seconds between two, as $T/NAME.iotape.
mk_writes() {
	mkdir -p "$T/w"
	"$IOTAPE" record -q -o "$T/$1.iotape" -- sh -c \
		"for i in \$(seq 1 $2); do head -c $3 /dev/zero > $T/w/f\$i; sleep $4; done" ||
		fail "record of the writer failed"
	rm -rf "$T/w"
}

# replay_to OUT RC_WANTED ARGS... - run a replay (bounded), its output in
# $T/OUT.out, its profile $T/OUT.iotape; fail unless it exits RC_WANTED.
replay_to() {
	local out=$1 want=$2 rc; shift 2
	timeout -k 5 120 "$IOTAPE" replay "$@" -o "$T/$out.iotape" >"$T/$out.out" 2>&1
	rc=$?
	cat "$T/$out.out"
	[ $rc = 124 ] && fail "replay $out hung (timeout)"
	[ $rc = "$want" ] || fail "replay $out exited $rc, not $want"
}

# failed_profile P PATTERN - P is a profile that check accepts and that
# check, report and its header mark failed with PATTERN (an ERE).
failed_profile() {
	local p=$1 pat=$2
	[ -s "$p" ] || fail "no profile $p"
	"$IOTAPE" check "$p" >"$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check refuses $p"; }
	grep -Eq "replay +FAILED: $pat" "$T/check.out" ||
		{ cat "$T/check.out"; fail "check does not mark $p failed with '$pat'"; }
	"$IOTAPE" report "$p" >"$T/report.out" 2>&1 || fail "report refuses $p"
	grep -Eq "FAILED: the filesystem under test failed: $pat" "$T/report.out" ||
		{ head -12 "$T/report.out"; fail "report does not mark $p failed with '$pat'"; }
	"$IOTAPE" dump "$p" | head -40 | grep -Eq "replay.failed.*$pat" ||
		fail "the header of $p has no replay.failed '$pat'"
}

# not_mounted DIR - nothing is mounted on DIR any more
not_mounted() {
	grep -q " $1 " /proc/self/mountinfo && fail "$1 is still mounted"
	return 0
}

# umount_now DIR - unmount a test mount (and forget it)
umount_now() {
	umount "$1" || fail "cannot unmount $1"
	MOUNTS=$(echo "$MOUNTS" | sed "s| $1 | |; s|^$1 ||")
	not_mounted "$1"
}

# replay_bg OUT ROOT - start a replay of $T/slow.iotape (mk_writes slow ...)
# under ROOT in the recorded gaps (-t raw), bounded, in the background
# ($REPLAY_PID); return once its files reach f3 in DIR ($3, default
# ROOT's copy of $T/w), so that a fault comes in the middle of it.
replay_bg() {
	local out=$1 root=$2 seen=${3:-$2$T/w} i
	timeout -k 5 120 "$IOTAPE" replay "$T/slow.iotape" --root "$root" -t raw \
		-o "$T/$out.iotape" >"$T/$out.out" 2>&1 &
	REPLAY_PID=$!
	for i in $(seq 1 100); do
		ls "$seen" 2>/dev/null | grep -q f3 && return 0
		sleep 0.05
	done
	fail "the replay wrote nothing into $seen"
}

# replay_wait OUT RC_WANTED WHAT - wait for replay_bg's replay; fail
# unless it exits RC_WANTED (a hang: timeout's 124).
replay_wait() {
	local out=$1 want=$2 what=$3 rc
	wait "$REPLAY_PID"
	rc=$?
	cat "$T/$out.out"
	[ $rc = 124 ] && fail "the replay hung after $what"
	[ $rc = "$want" ] || fail "the replay exited $rc after $what, not $want"
	return 0
}
