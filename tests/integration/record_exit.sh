#!/bin/bash
# record_exit.sh - iotape record's exit status and its behaviour when the
# program or the recorder is killed: 127/126, the program's status,
# 128+N, unwritable output, Ctrl-C to the process group, SIGKILL of the
# recorder (the trace stays readable), attach and detach.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
d=$(mktemp -d /tmp/iotape-rec.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$d"' EXIT
cd "$d"

expect_rc() {	# want, command...
	local want=$1; shift
	"$@"; local rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want"
}

expect_rc 0 timeout 30 "$IOTAPE" record -q -o t.iotape -- true
expect_rc 3 timeout 30 "$IOTAPE" record -q -o t.iotape -- sh -c 'exit 3'
expect_rc 137 timeout 30 "$IOTAPE" record -q -o t.iotape -- sh -c 'kill -9 $$'
"$IOTAPE" dump t.iotape | grep -q 'killed by SIGKILL' || fail "no SIGKILL exit in the trace"
expect_rc 127 timeout 30 "$IOTAPE" record -q -o t.iotape -- ./no-such-program 2>err
grep -q 'no-such-program: command not found' err || fail "127 without a message: $(cat err)"
printf 'x' >not-exec && chmod 644 not-exec
expect_rc 126 timeout 30 "$IOTAPE" record -q -o t.iotape -- ./not-exec 2>err
# unwritable output: an error, and the program never runs
expect_rc 1 timeout 30 "$IOTAPE" record -q -o no/such/dir/t.iotape -- touch ran 2>err
[ ! -e ran ] || fail "the program ran although the output was unwritable"
grep -q 'iotape: record: no/such/dir/t.iotape' err || fail "bad message: $(cat err)"
expect_rc 2 "$IOTAPE" record -- true 2>/dev/null
# stdout, stdin and the summary line
out=$(echo hi | timeout 30 "$IOTAPE" record -o t.iotape -- cat 2>err) || fail "cat failed"
[ "$out" = hi ] || fail "stdin/stdout not passed through: '$out'"
grep -Eq '^iotape: record: [0-9,]+ events( \(([0-9.]+% in-process, [0-9]+ ptrace stops|by BPF; [^)]*)\))?, 1 processes, [0-9.]+ s, .* written to t.iotape, 0 dropped$' err ||
	fail "summary line: $(cat err)"

# Ctrl-C: SIGINT to the recorder's process group ends the program, and the
# trace is complete (has its index)
# (a background job starts with SIGINT ignored, which the program would
# inherit: env restores the default, as a terminal's foreground job has it)
setsid env --default-signal=INT "$IOTAPE" record -q -o int.iotape -- sleep 30 &
rp=$!; pids+=($rp)
sleep 1
kill -INT -- -"$rp"
wait "$rp"; rc=$?
[ "$rc" = 130 ] || fail "after Ctrl-C: exit $rc, want 130"
"$IOTAPE" dump int.iotape | grep -q 'killed by SIGINT' || fail "no SIGINT exit recorded"
"$IOTAPE" check int.iotape >/dev/null 2>&1 || fail "trace after Ctrl-C is not clean"

# the recorder SIGKILLed: the program dies with it (PTRACE_O_EXITKILL)
# and the trace is readable up to its last flush (the program named by
# this test's directory: the same test of another checkout may run)
"$IOTAPE" record -q --flush-ms 50 -o kill.iotape -- sh -c 'while :; do cat /dev/null; done' "loop-$d" &
rp=$!; pids+=($rp)
sleep 1
kill -9 "$rp"; wait "$rp" 2>/dev/null
n=$("$IOTAPE" dump kill.iotape 2>/dev/null | grep -c 'execve(')
[ "$n" -gt 0 ] || fail "nothing readable after the recorder was killed"
sleep 0.2
pgrep -f "cat /dev/null; done loop-$d" >/dev/null && fail "the program outlived the recorder"

# attach: record a running program, detach on SIGINT; it runs on.  The
# SIGINT goes once the trace holds a wait4 (flushed every 50 ms), not
# after a fixed second: on a busy machine the attach took longer
sh -c 'while :; do cat /dev/null; sleep 0.05; done' &
tp=$!; pids+=($tp)
"$IOTAPE" record -q --flush-ms 50 -o att.iotape -p "$tp" &
rp=$!; pids+=($rp)
for _ in $(seq 200); do
	"$IOTAPE" dump att.iotape 2>/dev/null | grep -q 'wait4(' && break
	sleep 0.1
done
kill -INT "$rp"
timeout 20 tail --pid="$rp" -f /dev/null || fail "the recorder did not detach"
wait "$rp"; rc=$?
[ "$rc" = 0 ] || fail "attach: exit $rc"
kill -0 "$tp" 2>/dev/null || fail "the attached program did not survive the detach"
"$IOTAPE" dump att.iotape | grep -q 'wait4(' || fail "attach recorded no wait4"
"$IOTAPE" dump att.iotape | grep -q -- '--- new process' || fail "attach recorded no fork"
kill "$tp"
echo "ok"
