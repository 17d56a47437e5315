#!/bin/bash
# replay_late_reader.sh - a write into a pipe whose only reader has begun
# to exit: tests/progs/late_reader's child, the reader, writes a byte into
# a second pipe and exits; the parent writes 4 bytes into the first pipe
# once the child is exiting, before the kernel has closed the child's
# descriptors (it tears a 512 MiB mapping down first), and the write
# succeeds; once the child is reaped, a second write meets EPIPE.  The
# replay closes a process's descriptors at its exit_group, and gave the
# first write EPIPE (1 mismatch) until 2026-12-07; now it gives that
# write a read end of its own, and the second still meets EPIPE.
# Recorded with the default backend and with ptrace.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/late_reader" ] || fail "$PROGS/late_reader is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for b in auto ptrace; do
	mkdir -p "$T/$b/w" "$T/$b/r"
	# the parent's write comes while the child's mapping is torn down:
	# a recording whose write came too late (EPIPE, exit 3) is made again
	for try in 1 2 3; do
		(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
			"$PROGS/late_reader")
		rc=$?
		[ "$rc" = 3 ] || break
	done
	[ "$rc" = 0 ] || fail "$b: record: exit $rc (3: the write met EPIPE in $try recordings)"
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -E ' (exit_group|write)\(' |
		sed -E 's/^ *[0-9]+ +[0-9.]+ //; s/ (<[0-9.]+>|\[).*//' >"$T/$b/calls"
	# the child's write and exit, the parent's two writes, its exit
	tr '\n' '|' <"$T/$b/calls" | grep -qE '^write\([0-9]+, \.\.\., 1\) = 1\|exit_group\(0\) = 0\|write\([0-9]+, \.\.\., 4\) = 4\|write\([0-9]+, \.\.\., 1\) = -1 EPIPE [^|]*\|exit_group' ||
		{ cat "$T/$b/calls"; fail "$b: the trace does not hold the 4-byte write after the child's exit_group"; }
	WHY="the replay's writes were answered otherwise" \
		replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" -o "$T/$b/p.iotape"
	echo "ok ($b): the write after the reader's exit began succeeded, the one after its end met EPIPE, as recorded"
done
