#!/bin/bash
# replay_conn_pairs.sh - eight client threads connect at once to one
# named Unix socket (tests/progs/conn_many); the server accepts them once
# all are queued and sends the k-th it took k+1 bytes.  The kernel queues
# the connects in an order no recorded time gives: recorded by ptrace
# (whose stops delay each connect), the replay paired the k-th accept
# with the k-th connect by entry, and clients read other clients' counts
# (7 of 8 recordings; MariaDB under mysqlslap -c4: 135-162 mismatches).
# Now the recorder writes the connecting socket with a connect and an
# accept (iot_sock_ino(): the bpf backend from the kernel, ptrace from
# /proc and NETLINK_SOCK_DIAG), and the replay's accept takes its
# connect's connection, keeping any other for its own accept.  Three
# ptrace recordings and one bpf (where it loads), replayed twice each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/conn_many" ] || fail "$PROGS/conn_many is not built (make tests)"
tmp_dir /tmp/iotape-conn
runs="ptrace ptrace ptrace"
! bpf_loads "$T" || runs="$runs bpf"
i=0
for b in $runs; do
	i=$((i + 1))
	d=$T/$i
	mkdir -p "$d/w"
	"$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- "$PROGS/conn_many" "$d/w/s" 8 ||
		fail "$b ($i): record: exit $?"
	"$IOTAPE" dump "$d/t.iotape" >"$d/t.txt" || fail "$b ($i): dump exit $?"
	[ "$(grep -cE ' (connect|accept)\(' "$d/t.txt")" = 16 ] ||
		fail "$b ($i): the trace does not hold 8 connects and 8 accepts"
	for r in 1 2; do
		rm -rf "$d/r" && mkdir "$d/r"
		WHY="clients read other clients' counts" \
			replay_clean "$b ($i), round $r" "$d/t.iotape" "$d/r" "$d/out" --timing afap
	done
	echo "ok ($b, recording $i): each client read its own count, in 2 replays"
done
