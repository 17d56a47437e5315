#!/bin/bash
# replay_shutdown.sh - a server that ends its reply with shutdown(SHUT_WR)
# and closes later (tests/progs/shutdown_eof; lighttpd behind an nginx
# proxy_cache, clamd): shutdown was not recorded, so the client's read of
# end of file came before any end here, waited 2 s the first time and met
# EAGAIN (3 mismatches, a replay of 2 s for a program of milliseconds; a
# proxy on named Unix sockets: 192-221 a replay, 4x native).  Now it is a
# row of the table, recorded by every backend and made by the replay,
# ordered as a close of the way it writes.  Recorded with ptrace and bpf
# where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/shutdown_eof" ] || fail "$PROGS/shutdown_eof is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	mkdir -p "$T/$b/r"
	"$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PROGS/shutdown_eof" ||
		fail "$b: record: exit $?"
	n=$("$IOTAPE" dump "$T/$b/t.iotape" | grep -c ' shutdown([0-9]*, 1) = 0 ')
	[ "$n" = 3 ] || fail "$b: the trace holds $n shutdowns, not 3"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	! grep -q "waits given up" "$T/$b/out" || { cat "$T/$b/out"; fail "$b: a read waited for an end that never came"; }
	echo "ok ($b): 3 shutdowns recorded and replayed, each end of file read as recorded"
done
