#!/bin/bash
# record_bpf_oncpu_load.sh - each call's time on a CPU under load ('make
# stress'): SLEEPS short sleeps (default 1500) recorded with the bpf
# backend while three busy loops hold the CPUs.  On 6.18 the kernel
# resumed about one such sleep in 400 with no sched_switch traced; its
# whole 10 ms were then counted on a CPU (iotape.bpf.c's unseen_in()).
# Every sleep must be on a CPU for less than half of it.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_bpf
d=$(mktemp -d /tmp/iotape-oncpu.XXXXXX)
hogs=""
trap 'for p in $hogs; do kill "$p" 2>/dev/null; done; rm -rf "$d"' EXIT
cd "$d"
n=${SLEEPS:-1500}
for k in 1 2 3; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
"$IOTAPE" record --backend bpf -o t.iotape -- \
	sh -c "for i in \$(seq 1 $n); do sleep 0.01; cat /etc/hostname >/dev/null; done" \
	2>rec.err || fail "record: exit $? ($(tail -2 rec.err))"
for p in $hogs; do kill "$p" 2>/dev/null; done
hogs=""
"$IOTAPE" dump -P t.iotape | grep 'nanosleep(' |
	sed -n 's/.*<\([0-9.]*\)> \[on cpu \([0-9.]*\)\].*/\1 \2/p' >sl.txt
got=$(wc -l <sl.txt)
[ "$got" = "$n" ] || fail "$got of $n sleeps with their time on a CPU"
bad=$(awk '$2 >= $1 / 2' sl.txt | wc -l)
unseen=$(sed -n 's/.*: \([0-9]*\) times a call.s task was back on a CPU.*/\1/p' rec.err)
[ "$bad" = 0 ] || fail "$bad of $n sleeps on a CPU for half their time or more (unseen switches: ${unseen:-0}): $(awk '$2 >= $1 / 2' sl.txt | head -3 | tr '\n' ' ')"
echo "on cpu under load: $n sleeps, none on a CPU half its time; switches back in not traced by the kernel: ${unseen:-0}"
