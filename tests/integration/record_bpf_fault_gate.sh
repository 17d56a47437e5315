#!/bin/bash
# record_bpf_fault_gate.sh - under `record --backend bpf`, page_fault_user's
# program (record/bpf/mpages.bpf.h) looks a fault up only while a followed
# mapping it can use is in its table of 2 MiB blocks: a shared writable
# one, or one holding a whole 2 MiB block.  A small read-only mapping that
# its process never unmaps (every program's locale files) must not leave
# it looking up every later fault of every followed task.
#
# One process maps a one-page file read-only and ends without unmapping
# it; the next touches 32,768 anonymous pages (no huge pages), each a
# fault between its calls.  The summary counts the fault programs' runs
# that timed themselves (the ones that got past their first tests): far
# fewer than the faults.  A count, not a time.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_python
in_scratch /tmp/iotape-bpfgate
export LC_ALL=C
need_bpf

head -c 4096 /dev/urandom >small
cat >map.py <<'PY'
import mmap, os, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    s = m[0]
    os._exit(0)
PY
cat >touch.py <<'PY'
import mmap
n = 32768
m = mmap.mmap(-1, n * 4096)
m.madvise(mmap.MADV_NOHUGEPAGE)
for i in range(0, n * 4096, 4096):
    m[i] = 1
PY
"$IOTAPE" record --backend bpf -o t.iotape -- sh -c "'$PY' map.py small && '$PY' touch.py" \
	2>rec.err || fail "record failed: $(tail -3 rec.err)"
runs=$(sed -n 's/.* in \([0-9]*\) runs of the programs between calls.*/\1/p' rec.err | head -1)
[ -n "$runs" ] || fail "no count of the fault programs' runs in the summary: $(head -2 rec.err)"
"$IOTAPE" dump t.iotape | grep -q 'mmap pages "[^"]*/small"' ||
	fail "the small file's mapped pages are not in the trace"
[ "$runs" -lt 16384 ] ||
	fail "$runs fault programs' runs for 32,768 anonymous faults after a small mapping left behind"
echo "$runs fault programs' runs for 32,768 anonymous faults after a small mapping left behind"
exit 0
