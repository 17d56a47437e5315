#!/bin/bash
# record_ptrace_slept.sh - a ptrace recording writes, per stopped call,
# the time its thread slept in the gap before it since its previous
# stopped call (slept_ns, record/slept.c), as the bpf backend does, and
# the replay sleeps it on top of the think time.
#
# tests/progs/gap_pagein drops the cache of a file, maps it and reads
# every page between two access() calls: the page-ins are major faults
# outside any call.  Recorded with --no-fastpath (every call stops; a gap
# that holds an in-process call gets no figure), the access() after them
# carries '[slept before S]' with S > 0 in `iotape dump`, the one before
# them a smaller one or none; `iotape replay` sleeps at least that gap,
# and no more gaps than the trace has calls with a sleep.
set -u
. "$SRCDIR/tests/integration/lib.sh"
d=$(mktemp -d /var/tmp/iotape-pslept.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
[ "$(stat -f -c %T .)" != tmpfs ] || skip "$d is on tmpfs: no page-in waits on a disk"
[ -r /proc/self/schedstat ] || skip "no /proc/PID/schedstat (a kernel without CONFIG_SCHED_INFO)"

head -c $((16 << 20)) /dev/urandom >f || fail "cannot write the 16 MiB test file in $d"
"$IOTAPE" record -q --no-fastpath -o t.iotape -- "$PROGS/gap_pagein" "$d/f" 2>rec.err
rc=$?
[ $rc = 2 ] && skip "the cache of $d/f could not be dropped: $(cat rec.err)"
[ $rc = 0 ] || fail "record of gap_pagein failed ($rc): $(tail -3 rec.err)"
"$IOTAPE" dump t.iotape >dump.txt || fail "dump failed"
after=$(grep -F "access(\"$d/f.after\"" dump.txt) || fail "no access of f.after in the dump"
before=$(grep -F "access(\"$d/f.before\"" dump.txt) || fail "no access of f.before in the dump"
s=$(sed -n 's/.*\[slept before \([0-9.]*\)\].*/\1/p' <<<"$after")
[ -n "$s" ] || fail "the call after the page-ins carries no sleep: $after"
awk -v s="$s" 'BEGIN { exit !(s > 0) }' || fail "the sleep before f.after is $s s, not > 0: $after"
b=$(sed -n 's/.*\[slept before \([0-9.]*\)\].*/\1/p' <<<"$before")
[ -z "$b" ] || awk -v b="$b" -v s="$s" 'BEGIN { exit !(b < s) }' ||
	fail "the call before the page-ins slept $b s, as long as the one after them ($s s)"

mkdir root
"$IOTAPE" replay -o p.iotape --root "$d/root" t.iotape >rpl.out 2>&1 ||
	fail "replay failed: $(tail -3 rpl.out)"
n=$(grep -c '\[slept before ' dump.txt)
g=$(sed -n 's/^  gap sleeps   \([0-9]*\) gaps .*/\1/p' rpl.out)
[ -n "$g" ] && [ "$g" -ge 1 ] || fail "the replay did not sleep the gap: $(cat rpl.out)"
[ "$g" -le "$n" ] || fail "the replay slept $g gaps, the trace has $n calls with a sleep before them"
echo "ok: slept $s s before f.after; $n recorded gaps with a sleep, $g slept by the replay"
