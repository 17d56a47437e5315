#!/bin/bash
# record_bpf_join.sh - a thread's end wakes the thread that joins it (its
# CLONE_CHILD_CLEARTID futex, woken from the kernel's exit_mm()); on this
# kernel the sched_process_exit tracepoint fires before that, where the
# bpf backend stopped following the ending thread, and the joiner's next
# call named no waker.  tests/progs/join_wake: 20 rounds of a thread
# computing 5 ms then ending, joined by the main thread, which then
# writes a byte.  Recorded with the bpf backend: each write names that
# round's thread as its gap's waker ('[gap woken by TID]'), and the
# replay makes each write after that thread's exit.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
need_bpf
[ -x "$PROGS/join_wake" ] || fail "$PROGS/join_wake is not built (make tests)"
need_cmd python3
T=$(mktemp -d /tmp/iotape-join.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=20
mkdir "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q --backend bpf -o "$T/t.iotape" -- "$PROGS/join_wake" out $N 5) ||
	fail "record exit $?"
"$IOTAPE" dump "$T/t.iotape" >"$T/t.txt" || fail "dump exit $?"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" -o "$T/p.iotape" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
"$IOTAPE" dump "$T/p.iotape" >"$T/p.txt" || fail "dump of the profile exit $?"
python3 - "$T/t.txt" "$T/p.txt" $N <<'PY' || fail "the joins are not named or not kept"
import re, sys
n = int(sys.argv[3])

def rounds(path):
    """per round: (the thread's tid, its exit's time, the write's line and time)"""
    out, tid, ex = [], None, {}
    for l in open(path):
        m = re.match(r'^(\d+)\s+([0-9.]+)\s+(.*)$', l)
        if not m:
            continue
        who, t, rest = m[1], float(m[2]), m[3]
        if rest.startswith('--- new thread of'):
            tid = who
        elif rest.startswith('exit('):
            ex[who] = t
        elif rest.startswith('write(3,'):
            out.append((tid, ex.get(tid), rest, t))
    return out

rec = rounds(sys.argv[1])
assert len(rec) == n, f"{len(rec)} writes recorded, {n} expected"
named = [i for i, (tid, _, rest, _) in enumerate(rec) if f"[gap woken by {tid}]" in rest]
# a round whose thread ended before its join began has no wait to name
assert len(named) >= n - 2, f"{len(named)} of {n} writes name their round's thread as waker"
rep = rounds(sys.argv[2])
assert len(rep) == n, f"{len(rep)} writes replayed, {n} expected"
early = [i for i, (tid, ex, _, t) in enumerate(rep) if ex is None or t < ex]
assert not early, f"writes before their round's thread ended: {early}"
print(f"{len(named)} of {n} writes name the thread they joined; replayed after its end")
PY
