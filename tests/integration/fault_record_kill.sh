#!/bin/bash
# fault_record_kill.sh [ROUNDS] - kills at random moments during iotape
# record (ROUNDS program kills, default 10, and fewer of the others;
# tests/stress/fault_record_kill_long.sh runs 100):
#  - the traced program SIGKILLed: no hang, exit 137, a clean trace that
#    holds every close the program logged (rel_writer logs a line after
#    each close returns);
#  - the recorder SIGKILLed: the program dies with it (PTRACE_O_EXITKILL),
#    the trace reads up to its last flush ('iotape check' exit 3, no index,
#    never a corrupt frame), 'iotape check --repair' makes it pass;
#  - Ctrl-C, to the process group of a setsid shell and to iotape alone:
#    exit 130, a complete trace (check exit 0) holding every logged close.
# Each round prints its random delay so a failure can be replayed.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd check
need_ptrace
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
rounds=${1:-10}
half=$(( (rounds + 1) / 2 ))	# recorder kills and each kind of Ctrl-C
[ "$half" -gt 2 ] && [ "$rounds" -le 10 ] && half=2
d=$(mktemp -d /tmp/iotape-kill.XXXXXX)
pids=()
# on the way out: this test's processes only (their argv names $d)
trap 'for p in "${pids[@]}" $(pgrep -f "$d/w"); do kill -9 "$p" 2>/dev/null; done
	sleep 0.2; rm -rf "$d"' EXIT
cd "$d"
mkdir w
work=("$PROGS/rel_writer" "$d/w" 0 200)

# ok_closes GOT LOGGED TRACE - every close the program logged is in the
# trace (one more: a close that returned as the kill came), or, where a
# recorder too slow for the program (a sanitizer build under load) lost
# events in a full BPF ring, counted among the trace's drops and said
# (with a 64 MiB ring, once 42,845 of a SIGINT round's events)
ok_closes() {
	local dropped
	[ "$1" -le $(($2 + 1)) ] || return 1
	[ "$1" -ge "$2" ] && return 0
	dropped=$("$IOTAPE" check "$3" 2>/dev/null | sed -nE 's/.*\(([0-9]+) dropped by the recorder\).*/\1/p')
	[ "${dropped:-0}" -gt 0 ] && [ $(($1 + dropped)) -ge "$2" ] || return 1
	echo "($(($2 - $1)) closes among the $dropped events the trace counts dropped)"
}

# closes FILE - closes of $d/w/f* in the trace (fds mapped per thread from
# the openat that returned them; the bpf backend's notes after a call,
# '[on cpu ...]', left out)
closes() {
	"$IOTAPE" dump "$1" 2>/dev/null | no_notes | awk -v dir="\"$d/w/f" '
		$3 ~ /^openat\(/ && index($0, dir) && $(NF-1) ~ /^[0-9]+$/ { fd[$1 "," $(NF-1)] = 1 }
		$3 ~ /^openat\(/ && index($0, dir) && $NF ~ /^[0-9]+$/ { fd[$1 "," $NF] = 1 }
		$3 ~ /^close\(/ {
			f = $3; sub(/^close\(/, "", f); sub(/\)$/, "", f)
			if (($1 "," f) in fd && $5 == "0") { n++; delete fd[$1 "," f] }
		}
		END { print n + 0 }'
}

# diag - what this test's processes are doing, for a failure message
diag() {
	ps -eLo pid,tid,stat,wchan:24,args | grep -E "$d|rel_writer" | grep -v grep >&2
	tail -n 3 log >&2
}

# delay - a random 0.05-0.44 s
delay() { printf '0.%02d' $((RANDOM % 40 + 5)); }

# wait_started RECORDER_PID - until the traced program has logged a line
wait_started() {
	local i
	for i in $(seq 1 100); do
		[ -s log ] && return 0
		kill -0 "$1" 2>/dev/null || fail "the recorder died before the program started"
		sleep 0.05
	done
	fail "the program did not start within 5 s"
}

gone() {	# pattern
	local i
	for i in $(seq 1 50); do
		pgrep -f "$1" >/dev/null || return 0
		sleep 0.1
	done
	fail "a process matching '$1' is left: $(ps -eo pid,stat,args | grep "$1" | grep -v grep)"
}

for r in $(seq 1 "$rounds"); do
	rm -f t.iotape log
	t=$(delay)
	timeout 60 "$IOTAPE" record -q --bpf-ring-mb 64 --flush-ms 50 -o t.iotape -- "${work[@]}" >log &
	rp=$!; pids+=($rp)
	wait_started "$rp"
	sleep "$t"
	cp=$(pgrep -f "^$PROGS/rel_writer $d/w") || fail "program round $r: no traced program found"
	kill -9 "$cp" || { diag; fail "program round $r: the traced program $cp was gone before the kill"; }
	wait "$rp"; rc=$?
	[ "$rc" = 124 ] && { diag; fail "program round $r (kill after $t s): iotape record hung"; }
	[ "$rc" = 137 ] || fail "program round $r (kill after $t s): exit $rc, want 137"
	"$IOTAPE" check -q t.iotape || fail "program round $r: trace not clean"
	logged=$(grep -c '^closed ' log)
	got=$(closes t.iotape)
	ok_closes "$got" "$logged" t.iotape ||
		fail "program round $r (kill after $t s): $got closes recorded, $logged logged"
	echo "program SIGKILL round $r after $t s: exit 137, $got closes recorded, $logged logged"
done

for r in $(seq 1 $((half * 2))); do
	rm -f t.iotape log fixed.iotape
	t=$(delay)
	"$IOTAPE" record -q --bpf-ring-mb 64 --flush-ms 50 -o t.iotape -- "${work[@]}" >log &
	rp=$!; pids+=($rp)
	wait_started "$rp"
	sleep "$t"
	kill -9 "$rp"; wait "$rp" 2>/dev/null
	gone "rel_writer $d/w"
	"$IOTAPE" check t.iotape >check.out 2>check.err; rc=$?
	[ "$rc" = 3 ] || fail "recorder round $r (kill after $t s): check exit $rc, want 3: $(cat check.err)"
	grep -q 'index  *absent' check.out || fail "recorder round $r: check does not say the index is absent"
	grep -qi corrupt check.err && fail "recorder round $r: a corrupt frame: $(cat check.err)"
	logged=$(grep -c '^closed ' log)
	got=$(closes t.iotape)
	[ "$got" -le $((logged + 1)) ] || fail "recorder round $r: $got closes recorded, only $logged done"
	"$IOTAPE" check --repair t.iotape >/dev/null 2>&1 || fail "recorder round $r: --repair failed"
	"$IOTAPE" check -q t.iotape || fail "recorder round $r: the repaired trace does not pass"
	[ "$(closes t.iotape)" = "$got" ] || fail "recorder round $r: --repair lost events"
	echo "recorder SIGKILL round $r after $t s: check 3, repaired, $got of $logged closes kept"
done

# Ctrl-C in a terminal: SIGINT to the whole process group
for r in $(seq 1 "$half"); do
	rm -f t.iotape log
	t=$(delay)
	setsid bash -c 'exec "$@" >log' sh timeout 60 "$IOTAPE" record -q --bpf-ring-mb 64 -o t.iotape -- "${work[@]}" &
	rp=$!; pids+=($rp)
	wait_started "$rp"
	sleep "$t"
	kill -INT -- -"$rp"
	wait "$rp"; rc=$?
	[ "$rc" = 130 ] || fail "Ctrl-C round $r (after $t s): exit $rc, want 130"
	"$IOTAPE" check -q t.iotape || fail "Ctrl-C round $r: trace not clean"
	logged=$(grep -c '^closed ' log)
	got=$(closes t.iotape)
	ok_closes "$got" "$logged" t.iotape ||
		fail "Ctrl-C round $r: $got closes recorded, $logged logged"
	echo "Ctrl-C (group) round $r after $t s: exit 130, $got closes recorded, $logged logged"
done

# SIGINT to iotape alone (kill -INT PID): passed on to the program
for r in $(seq 1 "$half"); do
	rm -f t.iotape log
	t=$(delay)
	"$IOTAPE" record -q --bpf-ring-mb 64 -o t.iotape -- "${work[@]}" >log &
	rp=$!; pids+=($rp)
	wait_started "$rp"
	sleep "$t"
	kill -INT "$rp"
	for i in $(seq 1 200); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$rp" 2>/dev/null && fail "SIGINT round $r: iotape did not stop in 20 s"
	wait "$rp"; rc=$?
	[ "$rc" = 130 ] || fail "SIGINT round $r (after $t s): exit $rc, want 130"
	gone "rel_writer $d/w"
	"$IOTAPE" check -q t.iotape || fail "SIGINT round $r: trace not clean"
	logged=$(grep -c '^closed ' log)
	got=$(closes t.iotape)
	ok_closes "$got" "$logged" t.iotape ||
		fail "SIGINT round $r: $got closes recorded, $logged logged"
	echo "SIGINT (iotape only) round $r after $t s: exit 130, $got closes recorded, $logged logged"
done
echo ok
