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
# and no more gaps than the trace has calls with a sleep (gap_slept in
# lib.sh, as for the bpf backend).
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
gap_slept "$d"
echo "ok: slept $s s before f.after; $n recorded gaps with a sleep, $g slept by the replay"
