#!/bin/bash
# record_bpf_gap.sh - what the BPF programs add to a gap between two
# calls, measured by the recorder once they are attached (400 close(-1)
# in a child it follows, record/bpf_calib.c's rec_bpf_calib_start()), is in the trace as
# the header key record.bpf_gap_ns, which the trace's index holds
# (Index.extra: it is known only after the header was written).
#
# 1. A bpf recording and a mixed one of `true` say so in their header
#    (`iotape dump`): between 1 ns and 50 us.
# 2. The measuring child's calls are not in the trace: every event is
#    the program's thread's, and the trace has as many close calls as a
#    ptrace recording of the same program (400 would be there otherwise).
# 3. `iotape check --repair` of the trace with its last chunk damaged
#    keeps the key in the index it writes; a
#    ptrace recording has none.
# 4. A replay plan says which cost it took off the gaps
#    (IOTAPE_REPLAY_BUDGET=1): the recorder's measure.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
need_cmd awk
need_cmd python3
d=$(mktemp -d /tmp/iotape-bpfgap.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

# gap FILE: the header's record.bpf_gap_ns ("" where none)
gap() {
	"$IOTAPE" dump "$1" | awk '/^# record.bpf_gap_ns / { print $3 }'
}

# closes FILE: the close calls of a trace
closes() {
	"$IOTAPE" dump "$1" | awk '$3 ~ /^close\(/ { n++ } END { print n + 0 }'
}

"$IOTAPE" record -q --backend ptrace -o p.iotape -- true || fail "ptrace record of true failed"
[ -z "$(gap p.iotape)" ] || fail "a ptrace recording has record.bpf_gap_ns $(gap p.iotape)"
want=$(closes p.iotape)

for b in bpf mixed; do
	"$IOTAPE" record -q --backend $b -o $b.iotape -- true || fail "$b record of true failed"
	g=$(gap $b.iotape)
	[ -n "$g" ] || fail "no record.bpf_gap_ns in the $b recording's header: $("$IOTAPE" dump $b.iotape | grep '^#' | tr '\n' ' ')"
	[ "$g" -gt 0 ] && [ "$g" -lt 50000 ] || fail "$b: record.bpf_gap_ns $g, not in 1..50000 ns"
	# every event line's tid is the started program's
	tids=$("$IOTAPE" dump $b.iotape | awk '$1 ~ /^[0-9]+$/ { print $1 }' | sort -u | tr '\n' ' ')
	[ "$(echo $tids | wc -w)" = 1 ] || fail "$b: events of threads $tids, one expected (the measuring child's calls in the trace?)"
	got=$(closes $b.iotape)
	[ "$got" = "$want" ] || fail "$b: $got close calls, $want recorded by ptrace (the measuring child's 400 in the trace?)"
done

# the key survives an index rewritten by --repair: a byte of the last
# chunk frame's checksum flipped (the index, after it, still valid)
cp bpf.iotape cut.iotape
python3 - cut.iotape <<'PY' || fail "cannot damage cut.iotape"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert b[-4:] == b"IOTX"
ilen = struct.unpack("<I", b[-8:-4])[0]
start = len(b) - 8 - ilen - 8        # the skippable frame's magic
b[start - 2] ^= 0xff                 # in the frame before it
open(sys.argv[1], "wb").write(b)
PY
"$IOTAPE" check --repair cut.iotape >repair.out 2>&1
"$IOTAPE" check cut.iotape >check.out 2>&1 || fail "the repaired trace does not check: $(cat check.out)"
grep -q "repaired" check.out || fail "check --repair did not rewrite cut.iotape: $(cat repair.out)"
g2=$(gap cut.iotape)
[ "$g2" = "$(gap bpf.iotape)" ] ||
	fail "record.bpf_gap_ns '$g2' after check --repair, '$(gap bpf.iotape)' before"

mkdir root
out=$(IOTAPE_REPLAY_BUDGET=1 IOTAPE_REPLAY_PLAN=only "$IOTAPE" replay bpf.iotape --root root 2>&1) ||
	fail "plan of the bpf trace failed: $out"
echo "$out" | grep -q "loses $g2 ns, the recorder's measure (record.bpf_gap_ns)" ||
	fail "the plan does not say it took record.bpf_gap_ns ($g2) off the bpf gaps: $(echo "$out" | grep budget: | head -3)"
echo "ok: record.bpf_gap_ns $g (bpf), $(gap mixed.iotape) (mixed); $want close calls in each trace"
