#!/bin/bash
# replay_many_threads.sh - a replay holds the threads running at once,
# not every thread the trace had: a shell loop of 20,000 short processes
# (tests/bench/mk_analyze_traces --procs, one after the other) replays
# within an address space of 1 GiB (ulimit -v), every process's calls
# made.  A replay thread that ended used to stay unjoined to the end of
# the run, its stack mapped (256 KiB and a guard page, the pages glibc
# keeps of it at its end): ~3,800 of them filled 1 GiB, and past ~32,000
# their mappings pass vm.max_map_count (65,530), so that no thread could
# start whatever the memory.
set -u
. "$(dirname "$0")/lib.sh"

need_iotape_cmd replay
need_mk_analyze_traces
need_address_limit
T=$(mktemp -d /var/tmp/iotape-threads.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=20000
LIMIT_MIB=1024

"$GEN" --procs "$T/p.iotape" $N || fail "mk_analyze_traces --procs failed"
mkdir "$T/r"
# the old replay could wait on a child it could not start: a timeout
limited $LIMIT_MIB "$T/out" "$T/err" timeout 120 "$IOTAPE" replay "$T/p.iotape" --root "$T/r" \
	--timing afap -q -o "$T/prof.iotape"
grep -q "never started\|could not be started" "$T/err" && fail "threads not started: $(head -c 500 "$T/err")"
# each process opens and reads a file (absent here: ENOENT, then EBADF)
n=$("$IOTAPE" dump "$T/prof.iotape" | grep -c 'openat(.*ld\.so\.cache')
[ "$n" = $N ] || fail "$n of $N processes made their open"
echo "ok: $N processes replayed within $LIMIT_MIB MiB"
