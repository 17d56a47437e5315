#!/bin/bash
# fault_writer.sh - the trace file cannot be written (ENOSPC, EIO, a failing
# fsync, a really full filesystem) while iotape record runs (and the same
# for 'check --repair' and 'replay -o'): iotape says so
# naming the file and the error, exits non-zero, leaves no traced process
# behind (none stopped in 't (tracing stop)'), and the file it leaves holds
# only whole frames plus at most a torn tail: 'iotape check' exits 0 or 3,
# never reports a corrupt frame, and --repair makes it pass.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd check
need_iotape_cmd replay
need_ptrace
need_shim faultio
d=$(mktemp -d /tmp/iotape-fault.XXXXXX)
mnt=$d/mnt
trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$d"' EXIT
cd "$d"
mkdir w
# the workload's argv names $d: how the leftover check finds its processes
# (8000 files: ~32,000 events, a trace of ~140 KB, past every fault point
# below; in chunks of 2,048 events, ~9 KB each, so that whole frames are
# out before the later fault points: at the default 8,192 a chunk took up
# to ~40 KB, and the first could end past 41,000 bytes)
work=("$PROGS/rel_writer" "$d/w" 8000 100)

# no_traced_leftovers - no process of this test's workload is alive, and
# none sits in a tracing stop
no_traced_leftovers() {
	local what=$1 i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "rel_writer $d/" >/dev/null || return 0
		sleep 0.2
	done
	ps -eo pid,stat,args | grep "rel_writer $d/" | grep -v grep >&2
	ps -eo stat,args | grep "rel_writer $d/" | grep -q '^t' &&
		fail "$what: a workload process is left in tracing stop"
	fail "$what: a workload process outlived iotape record"
}

# trace_sound FILE WHAT - whole frames and a torn tail at most; repairable
trace_sound() {
	local f=$1 what=$2 rc
	"$IOTAPE" check "$f" >check.out 2>check.err; rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "$what: check exit $rc: $(cat check.err)"
	grep -qi 'corrupt' check.err && fail "$what: check found a corrupt frame: $(cat check.err)"
	if [ "$rc" = 3 ]; then
		"$IOTAPE" check --repair -o fixed.iotape "$f" >/dev/null 2>&1 ||
			fail "$what: --repair failed"
		"$IOTAPE" check -q fixed.iotape || fail "$what: the repaired file does not pass"
	fi
	return 0
}

# fault ERRNO CALL AFTER - record with the shim failing writes (or fsync) on
# t.iotape after AFTER bytes
fault() {
	local err=$1 call=$2 after=$3 rc what="$1 on $2 after $3 bytes"
	rm -f t.iotape fixed.iotape
	# env after timeout: the shim takes LD_PRELOAD out of the environment
	# of the first program it is loaded into
	timeout 120 env LD_PRELOAD="$SHIM" FAULTIO_PATH=t.iotape FAULTIO_ERRNO="$err" \
		FAULTIO_CALL="$call" FAULTIO_AFTER="$after" \
		"$IOTAPE" record --flush-events 2048 -o t.iotape -- "${work[@]}" >log 2>err
	rc=$?
	[ "$rc" = 124 ] && fail "$what: iotape record hung"
	[ "$rc" != 0 ] || fail "$what: iotape record exited 0 after a write error"
	grep -q '^faultio: ' err || fail "$what: the fault never fired: $(cat err)"
	grep -q "iotape: record: t.iotape: .*$(errtext "$err")" err ||
		fail "$what: no message naming the file and the error: $(grep -v faultio err)"
	no_traced_leftovers "$what"
	[ -s t.iotape ] || return 0	# nothing written: nothing to check
	trace_sound t.iotape "$what"
	echo "$what: exit $rc, $(stat -c %s t.iotape) bytes left, $(wc -l <log) files written"
}

errtext() {
	case $1 in
	ENOSPC) echo 'No space left on device' ;;
	EIO) echo 'Input/output error' ;;
	esac
}

# first_frame_end FILE - the size of FILE's first frame (the header): the
# shortest head of it that 'iotape check' does not refuse as no trace
first_frame_end() {
	local lo=0 hi m
	hi=$(stat -c %s "$1")
	while [ $((hi - lo)) -gt 1 ]; do
		m=$(((lo + hi) / 2))
		head -c "$m" "$1" >head.iotape
		if "$IOTAPE" check head.iotape >/dev/null 2>&1 || [ $? = 3 ]; then
			hi=$m
		else
			lo=$m
		fi
	done
	rm -f head.iotape
	echo "$hi"
}

# the fault points count from the end of the header, whose size (~3 KB:
# the mount table, the command line) moves with the machine
"$IOTAPE" record -q -o whole.iotape -- "${work[@]}" >/dev/null || fail "plain record failed"
h=$(first_frame_end whole.iotape)
[ "$h" -gt 100 ] && [ "$h" -lt 30000 ] || fail "header of $h bytes: the search went wrong"
echo "header: $h bytes"

# a mid-run failure: some frames are out, the run goes on
for after in 300 14000 38000; do fault ENOSPC write $((h + after)); done
for after in 6000 30000; do fault EIO write $((h + after)); done
# the final fsync fails: the trace may be complete but is not durable
fault EIO fsync 0
fault ENOSPC both $((h + 22000))
# the very first write fails: the header cannot be written
fault ENOSPC write 0
[ ! -s log ] || fail "the program ran although the trace header could not be written"
# frames already written before the fault must all be there
fault ENOSPC write $((h + 38000))
n=$("$IOTAPE" dump t.iotape 2>/dev/null | grep -c "close(3) = 0")
[ "$n" -gt 0 ] || fail "no event kept before the fault at $((h + 38000)) bytes"

# 'iotape check --repair' that cannot write: the damaged original stays as
# it was and no temporary file is left
sz=$(stat -c %s whole.iotape)
head -c $((sz * 2 / 3)) whole.iotape >cut.iotape
sum=$(sha256sum <cut.iotape)
for call in write fsync; do
	rc=0
	timeout 60 env LD_PRELOAD="$SHIM" FAULTIO_PATH=cut.iotape FAULTIO_CALL=$call FAULTIO_AFTER=2000 \
		"$IOTAPE" check --repair cut.iotape >/dev/null 2>err || rc=$?
	[ "$rc" = 1 ] || fail "repair with $call failing: exit $rc, want 1"
	grep -q '^faultio: ' err || fail "repair with $call failing: the fault never fired"
	grep -q 'iotape: check: cut.iotape: .*No space left on device' err ||
		fail "repair with $call failing: no message naming the file: $(cat err)"
	[ "$(sha256sum <cut.iotape)" = "$sum" ] || fail "repair with $call failing changed the original"
	ls | grep -q 'cut.iotape.' && fail "repair with $call failing left a file: $(ls)"
	echo "repair with $call failing: exit 1, original intact, nothing left"
done

# 'iotape replay -o' whose profile cannot be written: exit 1, a message
# naming the profile, the part written is whole frames. The fault comes
# halfway through the profile an unfaulted replay writes: a fixed count
# can fall inside the first frame, whose size (~3 KB, the header) moves
# with the paths and the machine it names
mkdir root
"$IOTAPE" replay whole.iotape --root "$d/root" --timing afap -o whole-prof.iotape >/dev/null ||
	fail "plain replay -o failed"
half=$(($(stat -c %s whole-prof.iotape) / 2))
rm -rf root whole-prof.iotape
mkdir root
rc=0
timeout 120 env LD_PRELOAD="$SHIM" FAULTIO_PATH=prof.iotape FAULTIO_AFTER=$half \
	"$IOTAPE" replay whole.iotape --root "$d/root" --timing afap -o prof.iotape >/dev/null 2>err || rc=$?
[ "$rc" = 1 ] || fail "replay with the profile unwritable: exit $rc, want 1: $(cat err)"
grep -q 'iotape: replay: prof.iotape: .*No space left on device' err ||
	fail "replay with the profile unwritable: no message naming it: $(cat err)"
trace_sound prof.iotape "replay profile ENOSPC"
echo "replay with the profile unwritable: exit 1, profile sound up to the fault"

# a real full filesystem: the output directory is a 64 KiB tmpfs
if [ "$(id -u)" = 0 ] && mkdir -p "$mnt" && mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	rc=0
	timeout 120 "$IOTAPE" record -o "$mnt/t.iotape" -- "$PROGS/rel_writer" "$d/w" 12000 100 \
		>log 2>err || rc=$?
	[ "$rc" = 124 ] && fail "full tmpfs: iotape record hung"
	[ "$rc" != 0 ] || fail "full tmpfs: iotape record exited 0"
	grep -q "iotape: record: $mnt/t.iotape: No space left on device" err ||
		fail "full tmpfs: no ENOSPC message naming the file: $(cat err)"
	no_traced_leftovers "full tmpfs"
	cp "$mnt/t.iotape" full.iotape
	trace_sound full.iotape "full tmpfs"
	echo "full tmpfs: exit $rc, $(stat -c %s full.iotape) bytes left"
	umount "$mnt"
else
	echo "full tmpfs: not run (needs root and mount)"
fi
echo ok
