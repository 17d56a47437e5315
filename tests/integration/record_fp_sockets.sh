#!/bin/bash
# record_fp_sockets.sh - a connect() or bind() of an address that names
# no file (TCP here) is neither recorded nor stopped: the fast path's
# wrappers make it through their stub.  The seccomp filter cannot look
# at the address, so before them each one cost a ptrace stop (3,000 TCP
# connects: 79 ms native, 180 ms recorded before bind and connect were
# rows of the table, 240 ms after, 186 ms with the wrappers).
# tests/progs/tcp_loop N, recorded with the fast path for N = 10 and
# N = 400: the summary's ptrace stops do not grow with N (before the
# wrappers: by 2 a round), and no bind or connect is in the trace.
# Without the fast path (--no-fastpath) each one stops and is dropped.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
P=$PROGS/tcp_loop
[ -x "$P" ] || fail "$P is not built (make tests)"
T=$(mktemp -d /tmp/iotape-fpsock.XXXXXX)
trap 'rm -rf "$T"' EXIT
stops() { sed -nE 's/.*% in-process, ([0-9]+) ptrace stops\).*/\1/p' "$1"; }
for n in 10 400; do
	"$IOTAPE" record --backend ptrace -o "$T/t$n.iotape" -- "$P" $n 2>"$T/err$n" || fail "record of tcp_loop $n: exit $?"
	[ -n "$(stops "$T/err$n")" ] || fail "no ptrace stops in the summary: $(cat "$T/err$n")"
	"$IOTAPE" dump "$T/t$n.iotape" >"$T/d$n" || fail "dump exit $?"
	grep -Eq '(bind|connect)\(' "$T/d$n" && fail "a bind or connect of a TCP address is in the trace"
done
s10=$(stops "$T/err10")
s400=$(stops "$T/err400")
[ $((s400 - s10)) -lt 40 ] ||
	fail "ptrace stops grew from $s10 (10 rounds) to $s400 (400 rounds): the TCP binds and connects stop"
"$IOTAPE" record --backend ptrace --no-fastpath -o "$T/s.iotape" -- "$P" 10 2>"$T/errs" || fail "--no-fastpath record: exit $?"
"$IOTAPE" dump "$T/s.iotape" | grep -Eq '(bind|connect)\(' &&
	fail "--no-fastpath: a bind or connect of a TCP address is in the trace"
echo "ptrace stops: $s10 for 10 rounds, $s400 for 400; no bind or connect recorded"
