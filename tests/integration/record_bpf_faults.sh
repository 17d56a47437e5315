#!/bin/bash
# record_bpf_faults.sh - `record --backend bpf` writes, in each process's
# exit record, the time its page-fault programs ran in it outside its
# calls (the Process record's rec_ns; record/bpf/mpages.bpf.h), which the
# replay takes off its CPU budget (replay/budget.c).
#
# A process reads a cached 16 MiB file through a read-only mapping, one
# byte a page (record_lib.sh's prog.py, which then writes 64 pages of
# another through a shared one): its faults (fault-around's and the file's own, each a
# program run) come between its calls.  Its exit record must carry some
# rec_ns, and less than its CPU time, which holds it.  A count, not a
# time: no threshold on how much.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_python
in_scratch /tmp/iotape-bpffaults
export LC_ALL=C
need_bpf
need_pb_text

head -c 16M /dev/urandom >big
head -c 1M /dev/zero >w
cat big >/dev/null
mk_map_progs
"$IOTAPE" record -q --backend bpf -o t.iotape -- "$PY" prog.py big w 2>rec.err ||
	fail "record failed: $(tail -3 rec.err)"
# the exit record (kind 4) with the most CPU time: python's; its rec_ns
read -r pid cpu rec < <(pb_text t.iotape |
	awk '/^ *processes \{/ { k = 0; t = 0; u = 0; s = 0; r = 0 }
	     /^ *kind: 4$/ { k = 1 }
	     /^ *tid:/ { t = $2 }
	     /^ *utime_ns:/ { u = $2 }
	     /^ *stime_ns:/ { s = $2 }
	     /^ *rec_ns:/ { r = $2 }
	     k && /^ *}/ { if (u + s > c) { p = t; c = u + s; x = r }; k = 0 }
	     END { print p + 0, c + 0, x + 0 }')
[ "$pid" -gt 0 ] || fail "no exit record in the trace"
[ "$rec" -gt 0 ] || fail "process $pid: its exit record holds no time of the fault programs (rec_ns)"
[ "$rec" -lt "$cpu" ] || fail "process $pid: rec_ns $rec is not less than its CPU time $cpu"
echo "process $pid: $rec ns of its $cpu ns of CPU time in the fault programs outside its calls"
exit 0
