#!/bin/bash
# replay_sock_order.sh - two clients' connects to one named Unix socket,
# each accepted connection served by a process of its own
# (tests/progs/sock_order: the first client forked connects 20 ms after
# the second and sends 100 bytes, the second 50).  The plan pairs the
# k-th connect with the listener's k-th accept; the replay made the
# connects as soon as it could, the first client's first, and each
# handler read the other's message (3 mismatches; postgres under
# pgbench -C: 611, and a replay of 15 s for 2.7 s, its waits given up
# after 2 s each, until 2026-12-07).  Now connects to one name keep
# their order with the listener's accepts, each from its entry (ordered
# by its end, a connect whose accept's return was recorded first waited
# for that accept, which waited for it: run beside other tests, 1 replay
# in 3).  Recorded with ptrace and with bpf where it loads; replayed
# three times each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/sock_order" ] || fail "$PROGS/sock_order is not built (make tests)"
tmp_dir /tmp/iotape-sock
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	mkdir -p "$T/$b/w"
	"$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PROGS/sock_order" "$T/$b/w" ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -E ' (read|connect)\(' |
		grep -cE 'read\([0-9]+, \.\.\., 4096\) = (50|100)|connect\(.*\) = 0' >"$T/n"
	[ "$(cat "$T/n")" = 4 ] || fail "$b: the trace does not hold 2 connects and the handlers' 2 reads"
	for i in 1 2 3; do
		rm -rf "$T/$b/r" && mkdir "$T/$b/r"
		WHY="a handler read another client's message" \
			replay_clean "$b, round $i" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	done
	echo "ok ($b): each handler read its own client's message, in 3 replays"
done
