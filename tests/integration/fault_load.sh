#!/bin/bash
# fault_load.sh [FORKS [THREADS [FILES [EXECS]]]] - iotape record under load:
# a nested fork storm (default 200 processes) and a flat one, THREADS
# (default 64) threads doing file I/O at once, and a thread that execs
# while its siblings write.  No hang (timeouts), every trace valid, and the
# counts in the trace equal what the programs logged: processes and their
# exits, and openat/write/close per thread.  tests/stress/load_forkstorm.sh
# runs it with bigger numbers.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd dump
need_iotape_cmd check
need_ptrace
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
forks=${1:-200}
threads=${2:-64}
files=${3:-20}
execs=${4:-3}
tmo=$((120 + forks / 5))
d=$(mktemp -d /tmp/iotape-load.XXXXXX)
trap 'for p in $(pgrep -f "$d/"); do kill -9 "$p" 2>/dev/null; done; sleep 0.2; rm -rf "$d"' EXIT
cd "$d"
mkdir w

# (a 64 MiB BPF ring: a sanitizer build's recorder under a check's load
# falls behind eight threads writing as fast as they can; events dropped
# in a full ring are said in err, even with -q)
rec() {	# what, command... (stdout to log)
	local what=$1 rc; shift
	timeout "$tmo" "$IOTAPE" record -q --bpf-ring-mb 64 -o t.iotape -- "$@" >log 2>err; rc=$?
	[ "$rc" = 124 ] && fail "$what: iotape record hung (over $tmo s)"
	[ "$rc" = 0 ] || fail "$what: exit $rc: $(tail -n 3 err)"
	"$IOTAPE" check -q t.iotape || fail "$what: the trace is not valid"
	"$IOTAPE" dump t.iotape >dump.raw 2>dump.err || fail "$what: dump failed: $(cat dump.err)"
	no_notes <dump.raw >dump
}

# Fork storms: every logged pid made its probe and exited, in the trace;
# nothing else exited.
for mode in nested flat; do
	rec "fork storm $mode" "$PROGS/rel_forks" "$d/w" "$forks" "$mode" 16
	logged=$(grep -c '^pid ' log)
	[ "$logged" = "$forks" ] || fail "fork storm $mode: the program logged $logged of $forks"
	# the probe's pid in its path must be the tid that made the call
	awk '/probe-[0-9]+"/ { p = $0; sub(/.*probe-/, "", p); sub(/".*/, "", p)
		if (p != $1) { print "bad"; exit } print "pid " p }' dump | sort >probes
	grep -q '^bad' probes && fail "fork storm $mode: a probe recorded under another tid"
	sort log | diff - probes >/dev/null ||
		fail "fork storm $mode: probes differ from the log: $(sort log | diff - probes | head -5)"
	exits=$(grep -c '+++ exited with 0 +++' dump)
	[ "$exits" = $((forks + 1)) ] || fail "fork storm $mode: $exits exits recorded, want $((forks + 1))"
	news=$(grep -c -- '--- new process' dump)
	[ "$news" = "$forks" ] || fail "fork storm $mode: $news forks recorded, want $forks"
	echo "fork storm $mode: $forks processes, $exits exits, all probes recorded"
done

# Threads: per thread, the openat/write/close counts it logged
rm -rf w && mkdir w
rec "$threads threads" "$PROGS/rel_threads" "$d/w" "$threads" "$files"
[ "$(grep -c '^thread ' log)" = "$threads" ] || fail "threads: the program logged $(grep -c '^thread ' log) threads"
awk -v dir="\"$d/w/t" '
	$3 ~ /^openat\(/ && index($0, dir) && $(NF-1) ~ /^[0-9]+$/ { o[$1]++; fd[$1 "," $(NF-1)] = 1; seen[$1] = 1 }
	$3 ~ /^write\(/ { f = $3; sub(/^write\(/, "", f); sub(/,$/, "", f)
		if (($1 "," f) in fd && $NF ~ /^</ && $(NF-1) == "100") w[$1]++ }
	$3 ~ /^close\(/ { f = $3; sub(/^close\(/, "", f); sub(/\)$/, "", f)
		if (($1 "," f) in fd && $5 == "0") { c[$1]++; delete fd[$1 "," f] } }
	END { for (t in seen) printf "thread %s openat %d write %d close %d\n", t, o[t], w[t], c[t] }' \
	dump | sort >counted
sort log >logged
diff logged counted >/dev/null || fail "threads: trace counts differ from the log: $(diff logged counted | head -6)"
exits=$(grep -c '+++ exited with 0 +++' dump)
[ "$exits" = $((threads + 1)) ] || fail "threads: $exits exits recorded, want $((threads + 1))"
echo "$threads threads x $files files: per-thread openat/write/close equal the log, $exits exits"

# execve from a non-leader thread while 7 siblings append a byte per write
for i in $(seq 1 "$execs"); do
	rm -rf w && mkdir w
	rec "exec round $i" "$PROGS/rel_threads" "$d/w" 8 --exec
	done_w=$(tail -n 1 log)
	got=$(grep -c 'write([0-9]*, \.\.\., 1) = 1 <' dump)
	[ "$got" -le "$done_w" ] && [ "$done_w" -le $((got + 7)) ] ||
		fail "exec round $i: $got writes recorded, $done_w done $(cat err)"
	grep -q -- "--- exec .*--after" dump || fail "exec round $i: the exec is not recorded"
	echo "exec round $i: $got writes recorded, $done_w done"
done
echo ok
