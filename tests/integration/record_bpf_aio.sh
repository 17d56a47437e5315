#!/bin/bash
# record_bpf_aio.sh - `record --backend bpf` records libaio's requests
# and completions as `--backend ptrace` does (the BPF programs read the
# iocbs at io_submit's entry and the io_events at io_getevents' exit).
#
# 1. fio ioengine=libaio, random write and random read of 4 MiB in 4 KiB
#    blocks at iodepth 8, recorded with each backend (ptrace, bpf, and
#    mixed: the same programs with the fast path): each trace holds as
#    many requests, bytes and completions as fio's JSON report says, the
#    record summary counts them and warns of no async call without its
#    requests; the traces' async records (the dump's aio lines, times,
#    pids and context addresses aside; completions as a sorted list, their
#    order is the device's) are the same; `iotape check` of the bpf trace
#    says nothing is missing;
# 2. a replay of the bpf trace issues every request, 0 results differ,
#    and leaves the file at its size;
# 3. tests/progs/aio_batch: a vectored batch (PWRITEV, PWRITE, PREADV in
#    one io_submit) is recorded alike, with the iovec lengths; a batch of
#    4,200 iocbs in one io_submit, past the 4,096 read per call: both
#    backends say in the summary and in `iotape check` that 104 requests
#    io_submit took are not in the trace; a replay of the bpf trace
#    issues the 4,099 requests it holds and leaves DIR/v at its size;
# 4. tests/progs/aio_more's libaio case: a write signalling an eventfd
#    (IOCB_FLAG_RESFD) and an io_cancel of it: the same libaio lines.
# 5. libaio's programs are an object of their own, loaded at a followed
#    task's first io_setup: a recorder of a program that made no libaio
#    context holds none of them, one of a program that did holds its
#    entry and exit programs (by the recorder's descriptors: another
#    recording may hold programs of the same names).
# Another recording may run at the same time: nothing here depends on
# which BPF programs are loaded.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd fio
need_cmd python3
d=$(mktemp -d /tmp/iotape-bpfaio.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

# the async lines of a dump, times, pids and contexts aside; with
# "count": requests, bytes, completions
cat >aio.py <<'PY'
import re, sys
subs, comps, other, nbytes = [], [], [], 0
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s*\d+\s+[0-9.]+\s+aio (\w+) (.*)", line)
    if not m:
        continue
    kind, rest = m.group(1), re.sub(r"0x7[0-9a-f]+", "CTX", m.group(2))
    if kind == "submit":
        subs.append(rest)
        nbytes += int(re.search(r"\w+\([^,]*, (\d+)", rest).group(1))
    elif kind == "complete":
        comps.append(rest)
    else:
        other.append(kind + " " + rest)
if sys.argv[2] == "count":
    print(len(subs), nbytes, len(comps))
else:
    print("\n".join(other + subs + ["--"] + sorted(comps)))
PY

for rw in randwrite randread; do
	dir=$(case $rw in *read*) echo read ;; *) echo write ;; esac)
	for b in ptrace bpf mixed; do
		rm -f "$d/f.dat"
		case $rw in *read*) fio --name=lay --filename="$d/f.dat" --size=4m \
			--bs=64k --rw=write --ioengine=psync >/dev/null 2>&1 ;; esac
		"$IOTAPE" record --backend $b -o $rw.$b.iotape -- fio --name=t \
			--filename="$d/f.dat" --rw=$rw --size=4m --bs=4k --iodepth=8 \
			--ioengine=libaio --output-format=json --output=$rw.$b.json 2>$rw.$b.err ||
			fail "$rw ($b): record failed: $(cat $rw.$b.err)"
		"$IOTAPE" dump $rw.$b.iotape >$rw.$b.dump || fail "$rw ($b): dump"
		want=$(python3 -c "import json; j=json.load(open('$rw.$b.json'))['jobs'][0]['$dir']; print(j['total_ios'], j['io_bytes'], j['total_ios'])")
		got=$(python3 aio.py $rw.$b.dump count)
		[ "$got" = "$want" ] ||
			fail "$rw ($b): the trace holds requests, bytes, completions $got; fio says $want"
		grep -q "async I/O: ${want%% *} requests" $rw.$b.err ||
			fail "$rw ($b): the record summary does not count them: $(cat $rw.$b.err)"
		grep -q "without their requests\|libaio requests io_submit took" $rw.$b.err &&
			fail "$rw ($b): the summary says requests are missing: $(cat $rw.$b.err)"
		python3 aio.py $rw.$b.dump list >$rw.$b.aio
	done
	for b in bpf mixed; do
		diff -u $rw.ptrace.aio $rw.$b.aio >/dev/null ||
			fail "$rw: $b and ptrace recorded different async records: $(diff $rw.ptrace.aio $rw.$b.aio | head -5)"
	done
	"$IOTAPE" check $rw.bpf.iotape >$rw.check || fail "$rw: check exited $?"
	grep -q "async I/O    ${want%% *} requests" $rw.check ||
		fail "$rw: check does not count the requests: $(cat $rw.check)"
	grep -q "never seen complete\|not decoded\|libaio requests" $rw.check &&
		fail "$rw: check says something was not captured: $(cat $rw.check)"
	rm -rf root
	mkdir root
	"$IOTAPE" replay $rw.bpf.iotape --root root --timing afap >$rw.replay 2>&1 ||
		fail "$rw: replay of the bpf trace exited $?: $(cat $rw.replay)"
	r=$(grep "async I/O" $rw.replay)
	echo "$r" | grep -q "${want%% *} of ${want%% *} requests replayed" ||
		fail "$rw: not every request of the bpf trace was replayed: $r"
	echo "$r" | grep -q ", 0 results differ" || fail "$rw: results differ: $r"
	[ "$(stat -c %s "root$d/f.dat")" = "$(stat -c %s "$d/f.dat")" ] ||
		fail "$rw: the replayed file is $(stat -c %s "root$d/f.dat") bytes, not $(stat -c %s "$d/f.dat")"
	echo "$rw: ${want%% *} requests recorded alike by bpf, mixed and ptrace, the bpf trace replayed"
done

# 3. vectored iocbs, and a batch past what one call reads
for b in ptrace bpf; do
	rm -rf "$d/w"
	mkdir "$d/w"
	"$IOTAPE" record --backend $b -o batch.$b.iotape -- "$PROGS/aio_batch" "$d/w" 4200 \
		>batch.$b.out 2>batch.$b.err || fail "aio_batch ($b): $(cat batch.$b.out batch.$b.err)"
	"$IOTAPE" dump batch.$b.iotape >batch.$b.dump || fail "aio_batch ($b): dump"
	# (the submissions: the PREADV's result depends on when it ran)
	grep "/w/v\"" batch.$b.dump | python3 aio.py /dev/stdin list | sed '/^--$/,$d' >batch.$b.aio
	grep -q "warning: async I/O: 104 libaio requests io_submit took are not in the trace" \
		batch.$b.err || fail "aio_batch ($b): the summary does not say 104 requests are missing: $(cat batch.$b.err)"
	"$IOTAPE" check batch.$b.iotape >batch.$b.check || fail "aio_batch ($b): check exited $?"
	grep -q "not captured 104 libaio requests io_submit took" batch.$b.check ||
		fail "aio_batch ($b): check does not say 104 requests are missing: $(cat batch.$b.check)"
done
for w in "pwritev(3<\"$d/w/v\">, 16384, 0, \[4096, 8192, 4096\])" \
	"pwrite(3<\"$d/w/v\">, 4096, 16384)" \
	"preadv(3<\"$d/w/v\">, 8192, 0, \[4096, 4096\])"; do
	grep -q "$w" batch.bpf.aio || fail "aio_batch: no '$w' in the bpf trace: $(cat batch.bpf.aio)"
done
diff -u batch.ptrace.aio batch.bpf.aio >/dev/null ||
	fail "aio_batch: bpf and ptrace recorded the vectored batch differently: $(diff batch.ptrace.aio batch.bpf.aio | head -5)"
rm -rf root
mkdir root
"$IOTAPE" replay batch.bpf.iotape --root root >batch.replay 2>&1 ||
	fail "aio_batch: replay of the bpf trace exited $?: $(cat batch.replay)"
grep -q "async I/O    4099 of 4099 requests replayed .* 0 results differ" batch.replay ||
	fail "aio_batch: replay of the bpf trace: $(grep -i async batch.replay)"
[ "$(stat -c %s "root$d/w/v")" = 20480 ] ||
	fail "aio_batch: the replayed vectored file is $(stat -c %s "root$d/w/v") bytes, not 20480"
echo "aio_batch: vectored iocbs alike; 104 requests past one call's 4096 said missing by both; replayed"

# 5. libaio's programs loaded at the first io_setup, and only then
held_progs() {	# the names of the BPF programs recorder $1 holds
	local id
	for id in $(cat /proc/$1/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -un); do
		bpftool prog show id "$id" 2>/dev/null | sed -n '1s/.* name \([^ ]*\) .*/\1/p'
	done | sort -u
}
for c in none aio; do
	rm -rf "$d/l" "$d/l.ran" "$d/l.go"
	mkdir "$d/l"
	run=true
	[ $c = aio ] && run="$PROGS/aio_batch $d/l 8 >/dev/null"
	"$IOTAPE" record -q --backend bpf -o lazy.$c.iotape -- \
		sh -c "$run; touch $d/l.ran; while [ ! -e $d/l.go ]; do sleep 0.05; done" &
	rp=$!
	for i in $(seq 600); do [ -e "$d/l.ran" ] && break; sleep 0.05; done
	[ -e "$d/l.ran" ] || { touch "$d/l.go"; wait $rp; fail "lazy ($c): the program did not run"; }
	held_progs $rp >lazy.$c.progs
	touch "$d/l.go"
	wait $rp || fail "lazy ($c): the recording exited $?"
	grep -qx iotape_enter lazy.$c.progs ||
		fail "lazy ($c): the recorder holds no iotape_enter: $(cat lazy.$c.progs)"
done
grep -q '^iotape_aio' lazy.none.progs &&
	fail "libaio's programs loaded for a program that made no context: $(cat lazy.none.progs)"
grep -qx iotape_aio_enter lazy.aio.progs && grep -qx iotape_aio_exit lazy.aio.progs ||
	fail "libaio's programs not loaded at the program's io_setup: $(tr '\n' ' ' <lazy.aio.progs)"
echo "lazy: libaio's programs loaded at the first io_setup, not without one"

# 4. an eventfd signalled by a request, io_cancel (aio_more needs
#    io_uring for its other cases)
mkdir "$d/m"
if ! "$PROGS/aio_more" "$d/m" >/dev/null 2>&1; then
	echo "aio_more does not run here (io_uring disabled?): case 4 left out"
	exit 0
fi
for b in ptrace bpf; do
	rm -rf "$d/m"
	mkdir "$d/m"
	"$IOTAPE" record -q --backend $b -o more.$b.iotape -- "$PROGS/aio_more" "$d/m" \
		>more.$b.out 2>more.$b.err || fail "aio_more ($b): $(cat more.$b.out more.$b.err)"
	"$IOTAPE" dump more.$b.iotape | grep -o "aio [a-z]* .*\|io_cancel(.*) = [^<]*" |
		sed 's/0x7[0-9a-f]*/CTX/g' >more.$b.aio
done
grep -q "aio submit pwrite(3<\"$d/m/c\">, 4096, 0) flags=0x1 resfd=4" more.bpf.aio &&
	grep -q "io_cancel(CTX, ..., ...) = -1 EINVAL" more.bpf.aio &&
	grep -q "aio complete pwrite(3<\"$d/m/c\">) data=0 = 4096" more.bpf.aio ||
	fail "aio_more: the bpf trace lacks the eventfd write, the io_cancel or the completion: $(cat more.bpf.aio)"
diff -u more.ptrace.aio more.bpf.aio >/dev/null ||
	fail "aio_more: bpf and ptrace differ: $(diff more.ptrace.aio more.bpf.aio | head -5)"
echo "aio_more: the eventfd write and io_cancel recorded alike"
exit 0
