#!/bin/bash
# replay_aio_reap.sh - each replayed io_getevents / io_pgetevents reaps
# what the recorded one did, so the filesystem sees the recorded queue.
#
# 1. fio ioengine=libaio, 4 MiB of random 4 KiB writes at iodepth 16,
#    submitting 4 at a time and reaping 2 to 16 a call: the replay's
#    profile has, call by call, the counts the recording reaped (the
#    replay reaped more whenever its requests completed sooner, and later
#    calls then fewer), and one completion line per request reaped;
# 2. tests/progs/aio_batch: 1,100 requests in one io_submit, reaped by
#    one io_pgetevents: the replay's call reaps all 1,100 (it reaped 256,
#    and the rest never), and the summary counts every completion; the
#    same with the trace of the bpf backend, where it loads (root, BTF).
# Both with --timing afap and with the recorded timing.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd fio
d=$(mktemp -d /tmp/iotape-reap.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"

# "reaped N": the result of every io_getevents / io_pgetevents of a dump,
# and the completion lines after it
counts() {
	awk '/ io_p?getevents\(/ { if (n) print "reaped", r, "lines", c
		r = "?"; if (match($0, /\) = -?[0-9]+/)) r = substr($0, RSTART + 4, RLENGTH - 4)
		c = 0; n = 1; next }
		n && /^[0-9]+ +[0-9.]+ +aio complete / { c++; next }
		n && !/^[0-9]+ +[0-9.]+ +aio / { print "reaped", r, "lines", c; n = 0 }
		END { if (n) print "reaped", r, "lines", c }' "$1"
}

check_reaps() {	# name trace
	local name=$1 t=$2 timing
	"$IOTAPE" dump "$t" >"$name.dump" || fail "$name: dump"
	counts "$name.dump" >"$name.rec"
	[ -s "$name.rec" ] || fail "$name: no io_getevents in the trace"
	for timing in afap original; do
		rm -rf root
		mkdir root
		"$IOTAPE" replay "$t" --root root --timing $timing -o "$name.$timing.prof" \
			>"$name.$timing.out" 2>&1 ||
			fail "$name ($timing): replay exited $?: $(cat "$name.$timing.out")"
		"$IOTAPE" dump "$name.$timing.prof" >"$name.$timing.pdump" || fail "$name: dump of the profile"
		counts "$name.$timing.pdump" >"$name.$timing.rep"
		diff "$name.rec" "$name.$timing.rep" >"$name.$timing.diff" ||
			fail "$name ($timing): the replay reaped other counts than recorded, call by call ($(grep -c '^<' "$name.$timing.diff") of $(wc -l <"$name.rec") calls differ): $(head -4 "$name.$timing.diff" | tr '\n' ' ')"
		grep -q "async I/O .* \([0-9]*\) completions reaped (\1 recorded), 0 results differ" \
			"$name.$timing.out" ||
			fail "$name ($timing): $(grep async "$name.$timing.out")"
	done
}

# 1. fio, completions reaped in batches of 2 to 16
"$IOTAPE" record -q -o fio.iotape -- fio --name=t --filename="$d/data" --rw=randwrite \
	--size=4m --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --iodepth_batch_submit=4 \
	--iodepth_batch_complete_min=2 --iodepth_batch_complete_max=16 --randrepeat=1 \
	--output=/dev/null 2>fio.err || fail "fio: record failed: $(cat fio.err)"
check_reaps fio fio.iotape
awk '$2 != 1 { m = 1 } END { exit !m }' <(awk '{ print $1, $2 }' fio.rec) ||
	fail "fio: no call reaped more than one completion: the case tests nothing"
echo "fio: $(wc -l <fio.rec) io_getevents reaped the recorded counts, call by call"

# 2. one io_pgetevents of 1,100
mkdir w
"$IOTAPE" record -q -o batch.iotape -- "$PROGS/aio_batch" "$d/w" 1100 >batch.out 2>&1 ||
	fail "aio_batch: record failed: $(cat batch.out)"
check_reaps batch batch.iotape
grep -q "^reaped 1100 lines 1100$" batch.afap.rep ||
	fail "aio_batch: the io_pgetevents of 1,100 reaped: $(cat batch.afap.rep)"
echo "aio_batch: one io_pgetevents of 1,100 completions reaped whole"

# 3. the bpf backend's trace of the same (its io_events read by its programs)
if "$IOTAPE" record -q --backend bpf -o probe.iotape -- true 2>/dev/null; then
	rm -rf w
	mkdir w
	"$IOTAPE" record -q --backend bpf -o bbatch.iotape -- "$PROGS/aio_batch" "$d/w" 1100 \
		>bbatch.out 2>&1 || fail "aio_batch (bpf): record failed: $(cat bbatch.out)"
	check_reaps bbatch bbatch.iotape
	grep -q "^reaped 1100 lines 1100$" bbatch.afap.rep ||
		fail "aio_batch (bpf): the io_pgetevents of 1,100 reaped: $(cat bbatch.afap.rep)"
	echo "aio_batch (bpf trace): reaped whole"
else
	echo "the bpf backend does not load here: its trace left out (record_bpf_aio.sh says why)"
fi
