#!/bin/bash
# replay_call_wakes.sh - a client and a server over a Unix socket
# (tests/progs/sock_pingpong: the client writes its file, sends a byte,
# polls for the answer; the server polls, reads, works 2 ms, writes its
# file, answers), recorded with the bpf backend: the trace holds no send
# or recv, but each poll that slept names the thread that woke it ('[woken
# by TID]', the other process), and the replay makes each such poll return
# after its waker's last call before it: every client write of a round
# comes after the server's write of the round before, as recorded.
# Without it, the client ran through its rounds at once (49 of 49 early).
# And a wait that timed out names no waker: tests/progs/wake_timer's polls
# of 1 ms, each ended by a timer interrupt that finds the process's
# spinning child on their CPU (named in 100 of 100 before the recorder
# kept wakers only for calls that wait for other tasks).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/sock_pingpong" ] && [ -x "$PROGS/wake_timer" ] ||
	fail "$PROGS/sock_pingpong or wake_timer is not built (make tests)"
need_cmd python3
T=$(mktemp -d /tmp/iotape-callwakes.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=40
mkdir "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PROGS/sock_pingpong" "$T/w" $N) ||
	fail "record exit $?"
"$IOTAPE" dump "$T/t.iotape" >"$T/t.txt" || fail "dump exit $?"
# the two processes' pids, in order of their first event: server, client
read -r srv cli < <(awk '$1 ~ /^[0-9]+$/ && !s[$1]++ { printf "%s ", $1 }' "$T/t.txt")
[ -n "$srv" ] && [ -n "$cli" ] || fail "two processes expected in the trace"
ws=$(grep -c "^$srv .*poll(.*\[woken by $cli\]$" "$T/t.txt")
wc=$(grep -c "^$cli .*poll(.*\[woken by $srv\]$" "$T/t.txt")
# the client's polls all sleep (the server works 2 ms first); the
# server's sleep unless the client's byte came before
[ "$wc" -ge $((N / 2)) ] || fail "$wc of the client's $N polls name the server as their waker"
[ "$ws" -ge 1 ] || fail "none of the server's polls names the client as its waker"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" -o "$T/p.iotape" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
cat "$T/out"
grep -q "^  woken calls  [0-9]* calls that returned as another thread woke them" "$T/out" ||
	fail "the summary does not count the woken calls"
"$IOTAPE" dump "$T/p.iotape" >"$T/p.txt" || fail "dump of the profile exit $?"
python3 - "$T/p.txt" $N <<'PY' || fail "the replay did not keep the rounds' order"
import re, sys
n = int(sys.argv[2])
cw, sw = [], []
for l in open(sys.argv[1]):
    m = re.match(r'^(\d+)\s+([0-9.]+)\s+write\((\d+),.*<([0-9.]+)>', l)
    if m:
        t, d = float(m[2]), float(m[4])
        (cw if m[3] == "3" else sw).append((t, t + d))
assert len(cw) == n and len(sw) == n, (len(cw), len(sw))
early = [i for i in range(1, n) if cw[i][0] < sw[i - 1][1]]
assert not early, f"client writes before the server's answer to the round before: {early}"
PY
echo "$wc client and $ws server polls woken by the other; the replay kept all $N rounds' order"

"$IOTAPE" record -q --backend bpf -o "$T/timer.iotape" -- "$PROGS/wake_timer" 100 ||
	fail "wake_timer: record exit $?"
"$IOTAPE" dump "$T/timer.iotape" >"$T/timer.txt" || fail "dump exit $?"
n=$(grep -c 'poll(.*) = 0 <' "$T/timer.txt")
[ "$n" = 100 ] || fail "wake_timer: $n timed-out polls in the trace, want 100"
grep 'poll(.*) = 0 <.*\[woken by' "$T/timer.txt" | head -3 | grep . &&
	fail "a poll that timed out names a waker"
echo "100 polls that timed out, none with a waker"
