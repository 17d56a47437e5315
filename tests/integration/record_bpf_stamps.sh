#!/bin/bash
# record_bpf_stamps.sh - IOTAPE_RECORD_STAMPS=FILE: a recording's
# timeline, the recorder's points of its start and end and the program's
# first and last records, appended to FILE at the end, one line a point
# ("NAME WALL_NS CPU_NS", CPU_NS "-" for a record's time).
#
# What must hold whatever the machine's load (orders, not durations):
# the programs are attached before the program is let go; its records
# come after its guard is taken (the programs follow it only after
# that: its wake-up at the word to go may come before the recorder's
# point after it) and before the loop that drains them is left; the
# trace is closed after the last drain, and the recorder's last point
# ends the list.  The BPF load runs in a thread of its own while the
# recorder forks the program, and the unload in another while it closes
# the trace: their points are in the same list.  With --backend ptrace
# the recorder's own points are there, none of BPF's; without the
# variable no file is written.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
d=$(mktemp -d /tmp/iotape-stamps.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

# at NAME FILE: the wall time of point NAME (its last line in FILE)
at() {
	awk -v n="$1" '$1 == n { t = $2 } END { if (t == "") exit 1; print t }' "$2" ||
		fail "no point $1 in $2: $(tr '\n' ' ' <"$2")"
}

# before A B FILE: point A's time is at most point B's
before() {
	local a b
	a=$(at "$1" "$3") && b=$(at "$2" "$3") || exit 1
	[ "$a" -le "$b" ] || fail "$1 ($a) after $2 ($b) in $3"
}

IOTAPE_RECORD_STAMPS=$d/bpf.st "$IOTAPE" record -q --backend bpf -o t.iotape -- \
	sh -c 'echo x >f; cat f >/dev/null; rm f' 2>rec.err ||
	fail "bpf: record failed: $(tail -3 rec.err)"
for p in main bpf_loaded bpf_attached forked guard followed go first_record last_record \
	loop_left drained listed writer_closed bpf_destroyed freed; do
	at $p bpf.st >/dev/null
done
before main forked bpf.st
before bpf_attached go bpf.st
before guard first_record bpf.st
before first_record last_record bpf.st
before last_record loop_left bpf.st
before loop_left drained bpf.st
before drained writer_closed bpf.st
before writer_closed freed bpf.st
before bpf_destroyed freed bpf.st
# every point's CPU time is a number or "-", three fields a line
awk 'NF != 3 || $2 !~ /^[0-9]+$/ || ($3 !~ /^[0-9]+$/ && $3 != "-") { exit 1 }' bpf.st ||
	fail "a malformed line in bpf.st: $(cat bpf.st)"
# the recording is whole: the file the program made and removed
"$IOTAPE" dump t.iotape >dump.txt 2>&1 || fail "dump failed: $(tail -3 dump.txt)"
grep -q 'unlink.*/f' dump.txt || fail "no unlink of f in the trace: $(grep -c . dump.txt) lines"

IOTAPE_RECORD_STAMPS=$d/pt.st "$IOTAPE" record -q --backend ptrace -o p.iotape -- true 2>rec.err ||
	fail "ptrace: record failed: $(tail -3 rec.err)"
before main go pt.st
before go writer_closed pt.st
! grep -q '^bpf_' pt.st || fail "ptrace: BPF points: $(grep '^bpf_' pt.st | tr '\n' ' ')"

"$IOTAPE" record -q --backend bpf -o n.iotape -- true 2>rec.err ||
	fail "no stamps: record failed: $(tail -3 rec.err)"
[ "$(ls "$d"/*.st | wc -l)" = 2 ] || fail "a stamps file written without the variable: $(ls "$d")"
echo "bpf: $(wc -l <bpf.st) points, ptrace: $(wc -l <pt.st)"
exit 0
