#!/bin/bash
# record_bpf_slept.sh - `record --backend bpf` writes, per call, the time
# its thread slept on a disk in the gap before it (slept_ns), and the
# replay sleeps it on top of the think time.
#
# tests/progs/gap_pagein drops the cache of a file outside the replay's
# root, maps it and reads every page between two access() calls: the
# page-ins are major faults outside any call.  The access() after them
# carries '[slept before S]' with S > 0 in `iotape dump`; the one before
# them does not carry that sleep; `iotape replay` says it slept gaps so:
# at least that one, and no more than the recorded calls that carry a
# sleep.  Those can be more than one: any page-in between two calls is
# one (a page of the program or of a library no longer cached, a page
# still on its way in from a read-ahead), which a loaded machine gives.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
d=$(mktemp -d /var/tmp/iotape-slept.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf
[ "$(stat -f -c %T .)" != tmpfs ] || skip "$d is on tmpfs: no page-in waits on a disk"

head -c $((16 << 20)) /dev/urandom >f || fail "cannot write the 16 MiB test file in $d"
"$IOTAPE" record -q --backend bpf -o t.iotape -- "$PROGS/gap_pagein" "$d/f" 2>rec.err
rc=$?
[ $rc = 2 ] && skip "the cache of $d/f could not be dropped: $(cat rec.err)"
[ $rc = 0 ] || fail "record of gap_pagein failed ($rc): $(tail -3 rec.err)"
gap_slept "$d"
"$IOTAPE" replay --timing raw --root "$d/root" --force t.iotape >raw.out 2>&1 ||
	fail "raw replay failed: $(tail -3 raw.out)"
grep -q "^  elapsed" raw.out && ! grep -q "gap sleeps" raw.out ||
	fail "--timing raw slept the gap apart: $(cat raw.out)"
echo "ok: slept $s s before f.after; $n recorded gaps with a sleep, $g slept by the replay"
