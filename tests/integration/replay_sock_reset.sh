#!/bin/bash
# replay_sock_reset.sh - a read of a Unix stream socket blocked until its
# peer closed the socket with a request it never read, where it failed
# with ECONNRESET (tests/progs/sock_reset.c; a multiprocessing manager's
# client as its server shuts down).  The replay's sockets never block,
# and the plan does not order the read after the peer's close: it was
# made while the socket was still open and got EAGAIN (black's
# --workers manager: 1 mismatch every replay of a bpf recording).
# Recorded with ptrace (fast path and not) and bpf where it loads: each
# read fails with ECONNRESET when replayed, and nothing else differs.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/sock_reset" ] || fail "$PROGS/sock_reset is not built (make tests)"
record_tmp sockreset

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/sock_reset" "$T/w" \
		>/dev/null 2>"$T/err" || fail "$b: recording sock_reset failed: $(cat "$T/err")"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c ' read(4, ..., 64) = -1 ECONNRESET')
	[ "$n" = 3 ] || fail "$b: the trace has $n reads that met ECONNRESET, not 3"
	WHY="a read recorded with ECONNRESET" replay_clean "$b" "$T/t.iotape" "$T/root" \
		"$T/out" -o "$T/p.iotape" --timing afap
	n=$("$IOTAPE" dump "$T/p.iotape" | grep -c ' read(4, ..., 64) = -1 ECONNRESET')
	[ "$n" = 3 ] || fail "$b: the replay has $n reads that met ECONNRESET, not 3"
	echo "$b: 3 reads met ECONNRESET when replayed, 0 mismatches"
done
echo "ok: a read that met its peer's reset fails with ECONNRESET in the replay"
