#!/bin/bash
# replay_sendfile_pipe.sh - sendfile() into a pipe whose reader starts
# 100 ms late (tests/progs/sendfile_pipe.c; busybox tar into its gzip).
# The replay's pipes never block: before, a sendfile that found the pipe
# full failed with EAGAIN where the program's waited for the reader, and
# the reader's reads then got other counts (mismatches).  Now it waits, as
# a write does.  Recorded with ptrace (fast path and not) and bpf where it
# loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/sendfile_pipe" ] || fail "$PROGS/sendfile_pipe is not built (make tests)"
record_tmp sendfile

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root"
	mkdir "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/sendfile_pipe" "$T/f" \
		>/dev/null 2>"$T/err" || fail "$b: recording sendfile_pipe failed: $(cat "$T/err")"
	sent=$("$IOTAPE" dump "$T/t.iotape" | grep -c ' sendfile(.* = [1-9]')
	[ "$sent" -ge 2 ] || fail "$b: $sent sendfile calls in the trace, not 2 or more"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	! grep -q 'given up' "$T/out" || fail "$b: $(grep 'given up' "$T/out")"
	echo "$b: $sent sendfiles into a pipe read late: 0 mismatches, no wait given up"
done
echo "ok: a sendfile into a full pipe waits for its reader"
