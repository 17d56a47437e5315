#!/bin/bash
# replay_epipe.sh - a write blocked in a full pipe until its reader's
# exit, where it failed with EPIPE (tests/progs/pipe_epipe.c; yes(1)
# feeding shuf's --random-source is such a pair).  Two faults replayed it
# into the full pipe before the reader's exit, as EAGAIN: the write was
# ordered from its entry, as a pipe write that moves data is (its data is
# there from then), though its failure came at its end; and the exit,
# which had 12 files mapped, gave all of its 8 resource keys to their
# pages, none to the pipe it closed.  Recorded with ptrace (fast path and
# not) and bpf where it loads: the write fails with EPIPE when replayed,
# after the reader's exit, and nothing else differs.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/pipe_epipe" ] || fail "$PROGS/pipe_epipe is not built (make tests)"
record_tmp epipe

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir "$T/w" "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/pipe_epipe" "$T/w" \
		>/dev/null 2>"$T/err" || fail "$b: recording pipe_epipe failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -q ' write(4, ..., 8192) = -1 EPIPE' ||
		fail "$b: the trace lacks the write that met EPIPE"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" -o "$T/p.iotape" >"$T/out" 2>&1 ||
		fail "$b: replay failed: $(cat "$T/out")"
	grep -q '^  mismatches   0$' "$T/out" ||
		fail "$b: mismatches: $("$IOTAPE" dump "$T/p.iotape" | grep 'differs')"
	# the write's end is after the reader's exit
	"$IOTAPE" dump "$T/p.iotape" | awk '
		/ write\(4, \.\.\., 8192\) = -1 EPIPE/ { w = $2 + substr($NF, 2) + 0 }
		/ exit_group\(0\)/ && !e { e = $2 }
		END { if (!w || !e || w < e) { print "write ended at " w ", exit at " e; exit 1 } }' >&2 ||
		fail "$b: the replayed write did not wait for the reader's exit"
	echo "$b: EPIPE replayed at the reader's exit, 0 mismatches"
done
echo "ok: a write blocked until its reader's exit fails there in the replay"
