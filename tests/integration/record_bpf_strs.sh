#!/bin/bash
# record_bpf_strs.sh - calls with strings under the bpf backends: a call
# whose strings fit the task's record (record/bpf/event.h, BE_CREC_STR)
# is one record at its exit, longer ones an entry and an exit record, a
# string unreadable at entry is read at the exit.  rec_strs makes such
# calls around the record's room (paths of 8 to 4,000 bytes, two strings
# in one call, empty and NULL ones, failures, a path in a mapped page
# not faulted in); --backend bpf and --backend mixed record the same
# events, strings and path states as --backend ptrace.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_bpf
[ -x "$PROGS/rec_strs" ] || fail "$PROGS/rec_strs not built"
in_scratch /tmp/iotape-bpfstrs
export LC_ALL=C

for b in ptrace bpf mixed; do
	same_record strs $b "true" "$PROGS/rec_strs"
done
for b in bpf mixed; do
	same_cmp strs ptrace $b || fail "strs: $SAME_WHY"
	echo "strs ($b): same events and path states: $(tail -1 "$d/strs.cmp")"
done
# the calls are there (the dump prints each path made absolute)
for c in getxattr:22 readlinkat:11 utimensat:12 faccessat2:11; do
	n=$(grep -c "^ *[0-9]* *[0-9.]* ${c%:*}(" "$d/strs.bpf.txt")
	[ "$n" = "${c#*:}" ] || fail "strs: $n ${c%:*} calls in the bpf trace, not ${c#*:}"
done
echo "ok"
