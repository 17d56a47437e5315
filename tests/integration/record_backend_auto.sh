#!/bin/bash
# record's default backend is auto: bpf where it loads, and ptrace where an
# option only ptrace has is given (the header's record.backend and the
# summary say so); an explicit --backend wins.  And under bpf, a call that
# returned in a process that then dies of a fatal signal other than
# SIGKILL keeps its result, as under ptrace: cat's write into a pipe whose
# reader left returns (EPIPE, or what went in) before the SIGPIPE kills it.
# diff of a bpf recording and its replay says that the two timed their
# calls differently.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd record
d=$(mktemp -d /tmp/iotape-bauto.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
need_bpf

backend() { "$IOTAPE" dump "$1" | sed -n 's/^# record.backend *//p'; }

# the default: bpf
"$IOTAPE" record -o def.iotape -- true 2>def.err || fail "record (default) failed: $(cat def.err)"
[ "$(backend def.iotape)" = bpf ] || fail "the default recorded with '$(backend def.iotape)', want bpf"
grep -q 'recorded with ptrace' def.err && fail "the default says ptrace: $(cat def.err)"

# an option of ptrace's: ptrace, and the summary names the option
for opt in --data --no-fastpath --no-seccomp "--cpu-policy none" "--data-total 1M"; do
	# shellcheck disable=SC2086
	"$IOTAPE" record $opt -o o.iotape -- true 2>o.err || fail "record $opt failed: $(cat o.err)"
	[ "$(backend o.iotape)" = ptrace ] || fail "record $opt: recorded with '$(backend o.iotape)', want ptrace"
	grep -q "recorded with ptrace: ${opt%% *} is an option of the ptrace backend only" o.err ||
		fail "record $opt: the summary does not say why ptrace: $(cat o.err)"
done
# ... and -q keeps it quiet
"$IOTAPE" record -q --data -o q.iotape -- true 2>q.err || fail "record -q --data failed"
[ -s q.err ] && fail "record -q --data printed: $(cat q.err)"
# an explicit backend wins over the option
"$IOTAPE" record --backend bpf --no-fastpath -o e.iotape -- true 2>e.err ||
	fail "record --backend bpf --no-fastpath failed: $(cat e.err)"
[ "$(backend e.iotape)" = bpf ] || fail "--backend bpf --no-fastpath recorded with '$(backend e.iotape)'"
"$IOTAPE" record --backend ptrace -o p.iotape -- true 2>p.err || fail "record --backend ptrace failed"
[ "$(backend p.iotape)" = ptrace ] || fail "--backend ptrace recorded with '$(backend p.iotape)'"
grep -q 'recorded with ptrace:' p.err && fail "--backend ptrace explained itself: $(cat p.err)"

# a write that returned, then SIGPIPE: its result, not unfinished
seq 1 200000 >numbers
for b in bpf ptrace; do
	"$IOTAPE" record -q --backend $b -o pipe.$b.iotape -- \
		sh -c "cat '$d/numbers' | head -n 1 >/dev/null" || fail "record --backend $b of the pipe failed"
	"$IOTAPE" dump pipe.$b.iotape >pipe.$b.dump || fail "dump failed"
	grep -q 'killed by SIGPIPE' pipe.$b.dump || fail "$b: cat was not killed by SIGPIPE"
	grep -Eq 'write\(1, \.\.\., 131072\) = (-1 EPIPE|[0-9]+)' pipe.$b.dump ||
		fail "$b: cat's last write has no result: $(grep 'write(1, ..., 131072' pipe.$b.dump | tail -2)"
	grep -q 'write(1, .*unfinished' pipe.$b.dump && fail "$b: cat's write recorded as unfinished"
done
# diff of a bpf recording against its replay says how each timed its calls;
# a ptrace recording's does not
need_iotape_cmd replay
need_iotape_cmd diff
for b in bpf ptrace; do
	rm -rf root.$b && mkdir root.$b
	"$IOTAPE" replay pipe.$b.iotape --root "$d/root.$b" --timing afap -o prof.$b.iotape >/dev/null 2>&1 ||
		fail "replay of the $b recording failed"
	"$IOTAPE" diff pipe.$b.iotape prof.$b.iotape >diff.$b 2>&1 || fail "diff ($b) failed: $(cat diff.$b)"
done
grep -q "A's calls were timed in the kernel (a bpf recording), B's around each call" diff.bpf ||
	fail "diff of a bpf recording and its replay has no note on timing: $(head -12 diff.bpf)"
grep -q "timed in the kernel" diff.ptrace && fail "diff of a ptrace recording says it was timed in the kernel"
echo ok
