#!/bin/bash
# replay_close_reuse.sh - one thread's close of a socket, whose number
# another thread's open takes (tests/progs/close_reuse, 4,000 files, each
# opened, written and closed while a thread makes and closes sockets):
# the kernel frees the number early in the close, and an open that
# entered before the close began got it.  Planned in entry order, the
# open's file replaced the socket in the plan's table, and the close then
# closed the file: the writes through it were left out ("descriptor not
# replayed") and the files read back empty (squid's aufs threads: 20
# mismatches a replay; here 1-6 in most ptrace recordings).  The recorder
# also put the file's path on that close, and the replay then pulled the
# open before it.  Now the entry an open replaced is kept for a close of
# its number that began by the open's return, and a call that began
# before its number was given is given no path of the file given since.
# Three ptrace recordings and one bpf (where it loads), replayed once each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/close_reuse" ] || fail "$PROGS/close_reuse is not built (make tests)"
tmp_dir /var/tmp/iotape-test
runs="ptrace ptrace ptrace"
! bpf_loads "$T" || runs="$runs bpf"
i=0
for b in $runs; do
	i=$((i + 1))
	d=$T/$i
	mkdir -p "$d/w" "$d/r"
	"$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- "$PROGS/close_reuse" "$d/w" 4000 ||
		fail "$b: record: exit $?"
	rm -rf "$d/w"
	replay_clean "$b ($i)" "$d/t.iotape" "$d/r" "$d/out" --timing afap
	! grep -q "descriptor not replayed" "$d/out" ||
		{ cat "$d/out"; fail "$b ($i): calls on a descriptor were left out"; }
	echo "ok ($b, recording $i): 0 mismatches, no call left out"
done
