#!/bin/bash
# record_bpf_uring.sh - `record --backend bpf` records io_uring as
# `--backend ptrace` does, from the kernel's io_uring tracepoints.
#
# fio with ioengine=io_uring, random writes and random reads of 4 MiB in
# 4 KiB blocks at iodepth 8, plain and with fixedbufs and registerfiles:
# 1. with each backend the trace holds as many requests and bytes as
#    fio's JSON report says it issued, and a completion for each; the
#    record summary counts them;
# 2. the two traces hold the same ring set-up, registrations and
#    requests (opcode, descriptor or fixed index, length, offset, flags,
#    in order) and the same completions (times, and which call reaped
#    them, aside: those follow the program's timing);
# 3. a replay of the bpf trace issues every request, 0 results differ,
#    and leaves the file at its size.
# 4. SQPOLL, where it runs: the bpf trace holds every request fio issued
#    (the ptrace one cannot: its summary says how many it misses), `iotape
#    check` says it misses none, and a replay of it issues them all.
# 5. tests/progs/uring_ops (mkdirat, openat, write, writev, read_fixed, a
#    registered file, fsync, fallocate, statx, read, readv, close,
#    renameat, unlinkat, a linked write -> fsync, a nop as liburing
#    makes it): the same records with both backends, paths, iovec
#    lengths and the nop's (no file, length or offset) included, none said
#    undecoded; a replay of the bpf trace makes the same tree with no
#    result differing (the paths' states, taken after the kernel ran the
#    requests, stand for before).
# 6. tests/progs/aio_more: a ring in the program's memory (NO_MMAP, where
#    the kernel has it), a ring entered by a registered index
#    (IORING_REGISTER_RING_FDS), a ring signalling an eventfd: the same
#    io_uring records with both backends (requests in order, completions
#    in order, each list on its own: which comes first of a completion
#    and the next request of the same call is the kernel's to decide).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_cmd fio
need_cmd python3
d=$(mktemp -d /tmp/iotape-bpfuring.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
need_bpf
fio --name=probe --filename="$d/probe" --size=64k --bs=4k --rw=write \
	--ioengine=io_uring >/dev/null 2>&1 ||
	skip "io_uring is not available here (kernel.io_uring_disabled?)"
rm -f "$d/probe"

# the io_uring records of a dump: "count" (requests, bytes, completions)
# or the list: set-up, registrations and requests in order, then the
# completions sorted (the data= pointers aside, and which fixed buffer:
# fio hands out the buffer of the request that completed last)
cat >req.py <<'PY'
import re, sys
subs, comps, nbytes = [], [], 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"  io_uring (setup|register) (.*)", line)
    if m:
        subs.append(m.group(1) + " " + m.group(2))
        continue
    m = re.search(r"  io_uring submit (\w+)\(([^)]*)\)(.*)", line)
    if m:
        args = m.group(2).split(", ")
        nbytes += int(args[1])
        rest = re.sub(r" ?data=0x[0-9a-f]*", "", m.group(3))
        rest = re.sub(r" buf=\d+", "", rest)
        subs.append("%s %s %s" % (m.group(1), ", ".join(args), rest))
        continue
    m = re.search(r"  io_uring complete (\w+)\((.*)\).* = (-?\d+)", line)
    if m:
        comps.append("%s %s %s" % (m.group(1), m.group(2), m.group(3)))
if sys.argv[2] == "count":
    print(len([s for s in subs if not s.startswith(("setup", "register"))]), nbytes, len(comps))
else:
    print("\n".join(subs + ["--"] + sorted(comps)))
PY

fio_says() {	# json dir: requests bytes requests
	python3 -c "import json; j=json.load(open('$1'))['jobs'][0]['$2']; print(j['total_ios'], j['io_bytes'], j['total_ios'])"
}

rec() {	# name backend rw [fio options...]
	local name=$1 b=$2 rw=$3
	shift 3
	rm -f "$d/$name.dat"
	case $rw in *read*) fio --name=lay --filename="$d/$name.dat" --size=4m \
		--bs=64k --rw=write --ioengine=psync >/dev/null 2>&1 ;; esac
	"$IOTAPE" record --backend "$b" -o "$name.$b.iotape" -- \
		fio --name=t --filename="$d/$name.dat" --rw="$rw" --size=4m --bs=4k \
		--iodepth=8 --ioengine=io_uring "$@" --output-format=json \
		--output="$name.$b.json" 2>"$name.$b.err" ||
		fail "$name ($b): record failed: $(cat "$name.$b.err")"
	"$IOTAPE" dump -y "$name.$b.iotape" >"$name.$b.dump" || fail "$name ($b): dump"
}

replayed() {	# name: the bpf trace's replay issues every request
	local name=$1 n=$2 r
	rm -rf root
	mkdir root
	"$IOTAPE" replay "$name.bpf.iotape" --root root --timing afap >"$name.replay" 2>&1 ||
		fail "$name: replay of the bpf trace exited $?: $(cat "$name.replay")"
	r=$(grep "async I/O" "$name.replay")
	echo "$r" | grep -q "$n of $n requests replayed" ||
		fail "$name: the replay of the bpf trace did not issue every request: $r"
	echo "$r" | grep -q ", 0 results differ" || fail "$name: results differ: $r"
	[ "$(stat -c %s "root$d/$name.dat")" = "$(stat -c %s "$d/$name.dat")" ] ||
		fail "$name: the replayed file is $(stat -c %s "root$d/$name.dat") bytes, not $(stat -c %s "$d/$name.dat")"
}

run() {	# name rw [fio options...]
	local name=$1 rw=$2 b want got dir
	shift 2
	dir=$(case $rw in *read*) echo read ;; *) echo write ;; esac)
	for b in bpf ptrace; do
		rec "$name" $b "$rw" "$@"
		want=$(fio_says "$name.$b.json" $dir)
		got=$(python3 req.py "$name.$b.dump" count)
		[ "$got" = "$want" ] ||
			fail "$name ($b): the trace holds requests, bytes, completions $got; fio says $want"
		grep -q "async I/O: ${want%% *} requests" "$name.$b.err" ||
			fail "$name ($b): the record summary does not count them: $(cat "$name.$b.err")"
		python3 req.py "$name.$b.dump" list >"$name.$b.req"
	done
	diff -u "$name.ptrace.req" "$name.bpf.req" >"$name.req.diff" ||
		fail "$name: bpf and ptrace recorded different io_uring records: $(head -12 "$name.req.diff")"
	replayed "$name" "${want%% *}"
	echo "$name: ${want%% *} requests recorded alike by bpf and ptrace, replayed"
}

run randwrite randwrite
run randread randread
run fixed-randwrite randwrite --fixedbufs --registerfiles
run fixed-randread randread --fixedbufs --registerfiles
grep -q "register files" fixed-randwrite.bpf.req && grep -q "register buffers" fixed-randwrite.bpf.req ||
	fail "fixed-randwrite: no registration of files and buffers: $(grep register fixed-randwrite.bpf.dump)"

# 4. SQPOLL: the kernel's thread takes the requests; bpf sees it do so
if fio --name=probe --filename="$d/probe" --size=64k --bs=4k --rw=write \
	--ioengine=io_uring --sqthread_poll=1 >/dev/null 2>&1; then
	for b in bpf ptrace; do
		rec sq $b randwrite --sqthread_poll=1
	done
	want=$(fio_says sq.bpf.json write)
	got=$(python3 req.py sq.bpf.dump count)
	[ "$got" = "$want" ] ||
		fail "sqpoll (bpf): the trace holds requests, bytes, completions $got; fio says $want"
	grep -q "SQPOLL.*requests taken by the kernel are missing" sq.ptrace.err ||
		fail "sqpoll (ptrace): the summary does not say what it misses: $(cat sq.ptrace.err)"
	"$IOTAPE" check sq.bpf.iotape >sq.check || fail "sqpoll: check exited $?"
	grep -q "not captured.*SQPOLL\|requests the kernel took" sq.check &&
		fail "sqpoll: check says the bpf trace misses requests: $(cat sq.check)"
	replayed sq "${want%% *}"
	echo "sqpoll: ${want%% *} requests recorded by bpf as fio issued them (ptrace: said missing), replayed"
else
	echo "SQPOLL does not run here: that case is left out"
fi

# 5. every opcode iotape decodes
# alike NAME PROG: PROG DIR recorded by both backends in a fresh $d/NAME,
# the same io_uring records in NAME.{bpf,ptrace}.req
alike() {
	local name=$1 prog=$2 b
	for b in bpf ptrace; do
		rm -rf "$d/$name"
		mkdir "$d/$name"
		"$IOTAPE" record --backend $b -o $name.$b.iotape -- "$PROGS/$prog" "$d/$name" \
			>/dev/null 2>$name.$b.err || fail "$prog ($b): $(cat $name.$b.err)"
		# requests in submission order, then completions in theirs:
		# a request done inline may complete before the next one of
		# the same io_uring_enter is taken, which the bpf backend sees
		# (the kernel's order) and ptrace, reading the ring at entry
		# and exit, cannot
		"$IOTAPE" dump $name.$b.iotape | grep -o "io_uring [a-z]* .*" |
			sed 's/ data=0x[0-9a-f]*//' >$name.$b.all
		{ grep -v "^io_uring complete " $name.$b.all
		  grep "^io_uring complete " $name.$b.all; } >$name.$b.req
	done
	diff -u $name.ptrace.req $name.bpf.req >$name.diff ||
		fail "$prog: bpf and ptrace recorded different io_uring records: $(head -12 $name.diff)"
}
alike u uring_ops
grep -q "submit renameat(\"$d/u/sub/a\", \"$d/u/sub/b\")" u.bpf.req ||
	fail "uring_ops: no renameat with its paths in the bpf trace: $(cat u.bpf.req)"
grep -q "submit nop(-1, 0, 0)" u.bpf.req ||
	fail "uring_ops: the nop is not in the bpf trace as it is in the ptrace one: $(grep nop u.bpf.req)"
grep -q "not decoded\|does not read" u.bpf.err && fail "uring_ops: $(cat u.bpf.err)"
rm -rf root
mkdir root
"$IOTAPE" replay u.bpf.iotape --root root >u.replay 2>&1 || fail "uring_ops: replay: $(cat u.replay)"
grep -q "async I/O    21 of 21 requests replayed .* 0 results differ" u.replay ||
	fail "uring_ops: replay of the bpf trace: $(grep -i 'async\|mismatch' u.replay)"
[ "$(stat -c %s "root$d/u/sub/b")" = 65536 ] && [ -f "root$d/u/sub/d" ] &&
	[ ! -e "root$d/u/sub/a" ] && [ ! -e "root$d/u/sub/c" ] ||
	fail "uring_ops: the replayed tree differs: $(ls -lR "root$d/u")"
echo "uring_ops: 21 requests of 15 opcodes recorded alike by bpf and ptrace, replayed"

# 6. rings in the program's memory, entered by a registered index
alike m aio_more
grep -q "register ring_fds \[0\]" m.bpf.req ||
	fail "aio_more: no registration of the ring's descriptor in the bpf trace: $(cat m.bpf.req)"
grep -q "io_uring requests taken by the kernel are missing" m.bpf.err &&
	fail "aio_more: the bpf recording misses requests: $(cat m.bpf.err)"
echo "aio_more: $(grep -c submit m.bpf.req) io_uring requests of a registered and a NO_MMAP ring recorded alike"
