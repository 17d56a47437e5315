#!/bin/bash
# record_async.sh - asynchronous I/O is recorded and replayed, not lost.
#
# fio with ioengine=libaio and io_uring (plain, and with fixedbufs and
# registerfiles), random writes and sequential reads of 4 MiB in 4 KiB
# blocks at iodepth 8:
# 1. the trace holds as many async requests, and bytes, as fio's own JSON
#    report says it issued, and a completion for each;
# 2. --no-fastpath records the same requests (opcode, length, offset, in
#    order) and the same completions;
# 3. `iotape check` and `iotape report` count them (report: the bytes in
#    its async read/write class);
# 4. a replay issues every request with no result differing, and leaves
#    the file at its size; the replay's profile holds the requests with
#    their completions: `iotape report` of it has the same async row
#    (requests and bytes), and `iotape diff` of trace and profile counts
#    them on both sides, and the replay never had more requests in
#    flight than fio's iodepth allows; the merged profile of two clients
#    counts both, each client's row with its requests' bytes; an io_uring replay's ring has the recorded
#    DEFER_TASKRUN and TASKRUN_FLAG (strace);
# 5. a ring that polls its submissions (SQPOLL): the record summary and
#    `iotape check` say how many requests the trace misses;
# 6. tests/progs/uring_ops: one of each io_uring request decoded (mkdirat,
#    openat, write, writev, read_fixed, a registered file, fsync,
#    fallocate, statx, read, readv, close, renameat, unlinkat, a linked
#    write -> fsync, a nop): each is in the dump by name with its path
#    (the nop with none), alike with and without the fast path, none
#    "not decoded", and a replay
#    makes the same tree (sub/b of 65536 bytes, sub/d, no sub/a, sub/c);
# 7. tests/progs/aio_more: a ring in the program's memory (NO_MMAP, where
#    the kernel has it), a ring entered by a registered index, eventfds
#    signalled by a libaio request and by a ring, an io_cancel: recorded
#    alike with and without the fast path, replayed with 0 mismatches,
#    none of those calls left out, the same file sizes.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd fio
need_cmd python3
need_cmd strace
in_scratch /tmp/iotape-async

uring=1
if ! fio --name=probe --filename="$d/probe" --size=64k --bs=4k --rw=write \
	--ioengine=io_uring >/dev/null 2>&1; then
	echo "io_uring is not available here (kernel.io_uring_disabled?): its cases are left out"
	uring=0
fi
rm -f "$d/probe"

# the submit and complete lines of a dump: "op len off" and results
cat >req.py <<'PY'
import re, sys
subs, comps, nbytes = [], [], 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"(aio|io_uring) submit (\w+)\([^)]*?, (\d+), (\d+)\)", line)
    if m:
        subs.append("%s %s %s" % (m.group(2), m.group(3), m.group(4)))
        nbytes += int(m.group(3))
        continue
    m = re.search(r"(aio|io_uring) complete (\w+)\(.*= (-?\d+)", line)
    if m:
        comps.append("%s %s" % (m.group(2), m.group(3)))
if sys.argv[2] == "count":
    print(len(subs), nbytes, len(comps))
elif sys.argv[2] == "depth":
    # the most requests in flight: submitted, completion not yet seen
    n = top = 0
    for line in open(sys.argv[1], errors="replace"):
        if re.search(r"(aio|io_uring) submit ", line):
            n += 1
            top = max(top, n)
        elif re.search(r"(aio|io_uring) complete ", line):
            n -= 1
    print(top)
else:
    print("\n".join(subs + ["--"] + sorted(comps)))
PY

run() {	# name rw engine [fio options...]
	local name=$1 rw=$2 engine=$3 mode want got dir r
	shift 3
	dir=$(case $rw in *read*) echo read ;; *) echo write ;; esac)
	for mode in fast ptrace; do
		rm -f "$d/$name.dat"
		# a read job reads a file laid out before the recording
		case $rw in *read*) fio --name=lay --filename="$d/$name.dat" --size=4m \
			--bs=64k --rw=write --ioengine=psync >/dev/null 2>&1 ;; esac
		"$IOTAPE" record --backend ptrace $([ $mode = ptrace ] && echo --no-fastpath) -o "$name.$mode.iotape" -- \
			fio --name=t --filename="$d/$name.dat" --rw="$rw" --size=4m --bs=4k \
			--iodepth=8 --ioengine="$engine" "$@" --output-format=json \
			--output="$name.$mode.json" 2>"$name.$mode.err" ||
			fail "$name: record failed: $(cat "$name.$mode.err")"
		"$IOTAPE" dump -y "$name.$mode.iotape" >"$name.$mode.dump" || fail "$name: dump"
		want=$(python3 -c "import json,sys; j=json.load(open('$name.$mode.json'))['jobs'][0]['$dir']; print(j['total_ios'], j['io_bytes'], j['total_ios'])")
		got=$(python3 req.py "$name.$mode.dump" count)
		[ "$got" = "$want" ] ||
			fail "$name ($mode): the trace holds requests, bytes, completions $got; fio says $want"
		grep -q "async I/O: ${want%% *} requests" "$name.$mode.err" ||
			fail "$name ($mode): the record summary does not count them: $(cat "$name.$mode.err")"
	done
	python3 req.py "$name.fast.dump" list >"$name.fast.req"
	python3 req.py "$name.ptrace.dump" list >"$name.ptrace.req"
	diff -u "$name.ptrace.req" "$name.fast.req" >/dev/null ||
		fail "$name: fast path and --no-fastpath recorded different requests: $(diff "$name.ptrace.req" "$name.fast.req" | head -5)"
	"$IOTAPE" check "$name.fast.iotape" >"$name.check" || fail "$name: check exited $?"
	grep -q "async I/O    ${want%% *} requests" "$name.check" ||
		fail "$name: check does not count the requests: $(cat "$name.check")"
	grep -q "never seen complete\|not decoded" "$name.check" &&
		fail "$name: check says something was not captured: $(cat "$name.check")"
	"$IOTAPE" report "$name.fast.iotape" >"$name.report" || fail "$name: report exited $?"
	grep -q "^  async $dir  *${want%% *} .* 4.0 MiB$" "$name.report" ||
		fail "$name: report has no async $dir row of ${want%% *} requests and 4.0 MiB: $(grep async "$name.report")"
	rm -rf root
	mkdir root
	"$IOTAPE" replay "$name.fast.iotape" --root root --timing afap -o "$name.prof" \
		>"$name.replay" 2>&1 || fail "$name: replay exited $?: $(cat "$name.replay")"
	"$IOTAPE" report "$name.prof" >"$name.preport" || fail "$name: report of the profile exited $?"
	grep -q "^  async $dir  *${want%% *} .* 4.0 MiB$" "$name.preport" ||
		fail "$name: the profile's report has no async $dir row of ${want%% *} requests and 4.0 MiB: $(grep async "$name.preport")"
	"$IOTAPE" diff "$name.fast.iotape" "$name.prof" >"$name.diff" || fail "$name: diff exited $?"
	# the queue no deeper than fio's 8 (16: a completion is written after
	# the call that reaped it, which may have submitted one more)
	"$IOTAPE" dump "$name.prof" >"$name.pdump" || fail "$name: dump of the profile"
	top=$(python3 req.py "$name.pdump" depth)
	[ "$top" -le 16 ] || fail "$name: the replay had $top requests in flight, fio at most 8"
	grep -q "^async $dir  *${want%% *}  *1.000 " "$name.diff" ||
		fail "$name: diff does not count the requests on both sides: $(grep async "$name.diff")"
	r=$(grep "async I/O" "$name.replay")
	echo "$r" | grep -q "${want%% *} of ${want%% *} requests replayed" ||
		fail "$name: not every request was replayed: $r"
	echo "$r" | grep -q ", 0 results differ" || fail "$name: results differ: $r"
	[ "$(stat -c %s "root$d/$name.dat")" = "$(stat -c %s "$d/$name.dat")" ] ||
		fail "$name: the replayed file is $(stat -c %s "root$d/$name.dat") bytes, not $(stat -c %s "$d/$name.dat")"
	echo "$name: ${want%% *} requests recorded alike with and without the fast path, replayed"
}

run aio-randwrite randwrite libaio
run aio-read read libaio
# the profile of many clients holds every client's requests
rm -rf root
mkdir root
"$IOTAPE" replay aio-randwrite.fast.iotape --root root --timing afap --clients 2 -o c2.prof \
	>c2.replay 2>&1 || fail "--clients 2: replay exited $?: $(cat c2.replay)"
"$IOTAPE" report c2.prof >c2.report || fail "--clients 2: report exited $?"
grep -q "^  async write  *2048 .* 8.0 MiB$" c2.report ||
	fail "--clients 2: the merged profile has no async write row of 2048 requests, 8.0 MiB: $(grep async c2.report)"
# each client's row counts its requests' bytes (and its mapped pages'),
# as the total does: the rows add up to the total, 4 MiB async each
"$IOTAPE" report c2.prof --json >c2.json || fail "--clients 2: report --json exited $?"
python3 - c2.json <<'PY' || fail "--clients 2: report's client rows: $(grep -A3 '"clients"' c2.json)"
import json, sys
j = json.load(open(sys.argv[1]))
b = [c["bytes"] for c in j["clients"]]
print("client bytes", b, "total", j["total"]["bytes"])
sys.exit(not (len(b) == 2 and sum(b) == j["total"]["bytes"] and min(b) >= 4 << 20))
PY
if [ $uring = 1 ]; then
	run uring-randwrite randwrite io_uring
	# the replay's ring has the recorded flags that change when
	# completions are posted (DEFER_TASKRUN 0x2000, TASKRUN_FLAG 0x200)
	rec=$(sed -n 's/.*io_uring setup .* flags=\(0x[0-9a-f]*\).*/\1/p' uring-randwrite.fast.dump | head -1)
	rm -rf root
	mkdir root
	# (LeakSanitizer cannot run under strace: a sanitizer build's leaks
	# are checked by the other replays)
	ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	strace -X raw -f -e trace=io_uring_setup -o setup.st "$IOTAPE" replay -q \
		uring-randwrite.fast.iotape --root root --timing afap || fail "uring-randwrite: replay under strace"
	got=$(sed -n 's/.*io_uring_setup([0-9]*, {flags=\(0x[0-9a-f]*\),.*/\1/p' setup.st | head -1)
	[ -n "$rec" ] && [ -n "$got" ] && [ $((rec & 0x2200)) = $((got & 0x2200)) ] ||
		fail "uring-randwrite: ring set up with flags ${rec:-?} when recorded, ${got:-?} by the replay"
	run uring-read read io_uring
	run uring-fixed-randwrite randwrite io_uring --fixedbufs --registerfiles
	run uring-fixed-randread randread io_uring --fixedbufs --registerfiles

	# 5. SQPOLL: said, with the count the ring's head gives
	if fio --name=probe --filename="$d/probe" --size=64k --bs=4k --rw=write \
		--ioengine=io_uring --sqthread_poll=1 >/dev/null 2>&1; then
		"$IOTAPE" record --backend ptrace -o sq.iotape -- fio --name=t --filename="$d/sq.dat" \
			--rw=randwrite --size=1m --bs=4k --iodepth=8 --ioengine=io_uring \
			--sqthread_poll=1 >/dev/null 2>sq.err || fail "sqpoll: record failed"
		grep -q "SQPOLL.*256 requests taken by the kernel are missing" sq.err ||
			fail "sqpoll: the record summary does not say what is missing: $(cat sq.err)"
		"$IOTAPE" check sq.iotape >sq.check || fail "sqpoll: check exited $?"
		grep -q "not captured 256 io_uring requests the kernel took" sq.check ||
			fail "sqpoll: check does not say what is missing: $(cat sq.check)"
		echo "sqpoll: 256 requests said to be missing"
	else
		echo "SQPOLL does not run here: that case is left out"
	fi

	# 6. every opcode decoded, with paths, and replayed under the root
	for mode in fast ptrace; do
		rm -rf "$d/u"
		mkdir "$d/u"
		"$IOTAPE" record --backend ptrace $([ $mode = ptrace ] && echo --no-fastpath) -o u.$mode.iotape -- \
			"$PROGS/uring_ops" "$d/u" 2>u.$mode.err || fail "uring_ops ($mode): $(cat u.$mode.err)"
		"$IOTAPE" dump u.$mode.iotape | grep -o "io_uring [a-z]* .*" |
			sed 's/ data=0x[0-9a-f]*//' >u.$mode.req
	done
	diff -u u.ptrace.req u.fast.req >/dev/null ||
		fail "uring_ops: fast path and --no-fastpath differ: $(diff u.ptrace.req u.fast.req | head -5)"
	for want in "submit mkdirat(\"$d/u/sub\", 0755)" \
		"submit openat(\"$d/u/sub/a\", 0644) flags=0x42" \
		"submit write([0-9]*<\"$d/u/sub/a\">, 8192, 0)" \
		"submit writev([0-9]*<\"$d/u/sub/a\">, 8192, 8192, \[4096, 4096\])" \
		"submit read_fixed([0-9]*<\"$d/u/sub/a\">, 8192, 0)" \
		"submit write(fixed:0<\"$d/u/sub/a\">, 4096, 16384) flags=0x1" \
		"submit fsync([0-9]*<\"$d/u/sub/a\">" \
		"submit fallocate([0-9]*<\"$d/u/sub/a\">, 65536, 0)" \
		"submit statx(\"$d/u/sub/a\", mask=0x200)" \
		"submit readv([0-9]*<\"$d/u/sub/a\">, 8192, 0, \[4096, 4096\])" \
		"submit close([0-9]*<\"$d/u/sub/a\">" \
		"submit renameat(\"$d/u/sub/a\", \"$d/u/sub/b\")" \
		"submit unlinkat(\"$d/u/sub/c\")" \
		"submit write([0-9]*<\"$d/u/sub/d\">, 4096, 0) flags=0x4" \
		"complete fsync([0-9]*<\"$d/u/sub/d\">) = 0" \
		"submit nop(-1, 0, 0)"; do
		grep -q "$want" u.fast.req || fail "uring_ops: no '$want' in the dump: $(cat u.fast.req)"
	done
	"$IOTAPE" check u.fast.iotape >u.check || fail "uring_ops: check exited $?"
	grep -q "not decoded\|never seen complete" u.check && fail "uring_ops: $(cat u.check)"
	rm -rf root
	mkdir root
	"$IOTAPE" replay u.fast.iotape --root root >u.replay 2>&1 || fail "uring_ops: replay: $(cat u.replay)"
	grep -q "async I/O    21 of 21 requests replayed .* 0 results differ" u.replay ||
		fail "uring_ops: replay: $(grep -i 'async\|mismatch' u.replay)"
	[ "$(stat -c %s "root$d/u/sub/b")" = 65536 ] && [ -f "root$d/u/sub/d" ] &&
		[ ! -e "root$d/u/sub/a" ] && [ ! -e "root$d/u/sub/c" ] ||
		fail "uring_ops: the replayed tree differs: $(ls -lR "root$d/u")"
	echo "uring_ops: 21 requests of 15 opcodes decoded alike with and without the fast path, replayed"

	# 7. rings in the program's memory (NO_MMAP), entered by a registered
	#    index, an eventfd signalled by libaio and by a ring, io_cancel
	for mode in fast ptrace; do
		rm -rf "$d/m"
		mkdir "$d/m"
		"$IOTAPE" record --backend ptrace $([ $mode = ptrace ] && echo --no-fastpath) -o m.$mode.iotape -- \
			"$PROGS/aio_more" "$d/m" >m.$mode.out 2>m.$mode.err ||
			fail "aio_more ($mode): $(cat m.$mode.out m.$mode.err)"
		grep -q "could not find" m.$mode.err && fail "aio_more ($mode): $(cat m.$mode.err)"
		"$IOTAPE" dump m.$mode.iotape | grep -o "io_uring [a-z]* .*\|aio [a-z]* .*\|io_cancel(.*) = [^<]*\|eventfd2(.*) = [^<]*" |
			sed 's/0x7[0-9a-f]*/CTX/g' >m.$mode.req
	done
	diff -u m.ptrace.req m.fast.req >/dev/null ||
		fail "aio_more: fast path and --no-fastpath differ: $(diff m.ptrace.req m.fast.req | head -5)"
	want="register ring_fds \[0\]|submit write([0-9]*<\"$d/m/b\">, 4096, 4096)|register ring_fds off|eventfd2(0, 0x80000) = 4|submit pwrite([0-9]*<\"$d/m/c\">, 4096, 0) flags=0x1 resfd=4|io_cancel(CTX, ..., ...) = -1 EINVAL|register eventfd \[4\]|submit write([0-9]*<\"$d/m/d\">, 4096, 0)"
	grep -q "nommap ok" m.fast.out && want="$want|submit write([0-9]*<\"$d/m/a\">, 4096, 4096)"
	IFS='|'
	for w in $want; do
		grep -q "$w" m.fast.req || fail "aio_more: no '$w' in the dump: $(cat m.fast.req)"
	done
	unset IFS
	rm -rf root
	mkdir root
	"$IOTAPE" replay m.fast.iotape --root root -o m.prof >m.replay 2>&1 ||
		fail "aio_more: replay: $(cat m.replay)"
	grep -q "async I/O    6 of 6 requests replayed .* 0 results differ" m.replay &&
		grep -q "mismatches   0" m.replay || fail "aio_more: replay: $(cat m.replay)"
	"$IOTAPE" dump m.prof | grep "io_cancel\|eventfd2\|read(4, \|io_uring_register" | grep "not replayed" &&
		fail "aio_more: a call was not replayed"
	[ "$(stat -c %s root$d/m/a root$d/m/b root$d/m/c root$d/m/d | tr '\n' ' ')" = "8192 8192 4096 4096 " ] ||
		fail "aio_more: the replayed files differ: $(ls -l root$d/m)"
	echo "aio_more: NO_MMAP ring, registered ring index, eventfds, io_cancel recorded alike and replayed"
fi
exit 0
