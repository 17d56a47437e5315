#!/bin/bash
# replay_accept_first.sh - a server waiting in accept before its client
# connects, a thread per connection that writes two replies, of which
# the client reads one and then closes (tests/progs/accept_first, 60
# rounds; Python's multiprocessing Manager).  Planned at its entry, the
# first accept found no connect queued, and each later accept took the
# connect before its own: a thread's replies went to the client of the
# round before, whose close came first, and met EPIPE (17-59 of 300
# writes, both backends).  Now an accept that found none takes the first
# connect that began before it returned.  Recorded with ptrace and bpf
# where it loads; replayed twice each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/accept_first" ] || fail "$PROGS/accept_first is not built (make tests)"
tmp_dir /tmp/iotape-acc
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	mkdir -p "$T/$b/w"
	"$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PROGS/accept_first" "$T/$b/w" 60 ||
		fail "$b: record: exit $?"
	for i in 1 2; do
		rm -rf "$T/$b/r" && mkdir "$T/$b/r"
		WHY="a reply went to another round's client" \
			replay_clean "$b, round $i" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	done
	echo "ok ($b): each accept took its own round's connection, 0 mismatches in 2 replays"
done
