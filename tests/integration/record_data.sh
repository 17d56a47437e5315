#!/bin/bash
# record --data keeps the bytes the write family wrote (tests/progs/
# data_writes: write, pwrite64, writev, pwritev, pwritev2 of known text),
# alike with and without the fast path, and a replay into a fresh root
# writes them: the file's sha256 is the native run's.  Without --data
# nothing is kept and the replay writes its pattern.  Writes over the
# per-call cap or past the total cap are flagged and counted by the
# recorder's summary, check and report.  libaio's write requests keep
# theirs too (the rest of async writes: record_async_data.sh).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/data_writes" ] || fail "$PROGS/data_writes is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/w"
# a write larger than the fast path logs in-process (256 KiB): it takes
# the stop, where its bytes are read at the exit
BIG=600000

"$PROGS/data_writes" "$T/w" $BIG || fail "data_writes: native run failed"
want=$(cd "$T/w" && sha256sum data big)

# the write family's calls, without pid, time and duration
writes() {
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed |
		grep -E '^p?write'
}
replay_sums() {	# trace -> the sha256 of the replayed files
	rm -rf "$T/root" && mkdir "$T/root"
	"$IOTAPE" replay --verify "$1" --root "$T/root" >"$T/replay.out" 2>&1 ||
		fail "replay --verify $1 exited $?: $(cat "$T/replay.out")"
	grep -Eq '^  mismatches +0$' "$T/replay.out" || fail "$1: $(cat "$T/replay.out")"
	(cd "$T/root$T/w" && sha256sum data big)
}

for m in fast slow; do
	args=()
	[ $m = slow ] && args=(--no-fastpath)
	"$IOTAPE" record "${args[@]}" --data=1M -o "$T/$m.iotape" -- "$PROGS/data_writes" "$T/w" $BIG \
		2>"$T/$m.err" || fail "data_writes: record --data ($m) failed: $(cat "$T/$m.err")"
	grep -q "data: .* kept of 7 writes, every write's bytes" "$T/$m.err" ||
		fail "record --data ($m): the summary does not say 7 writes were kept: $(cat "$T/$m.err")"
	writes "$T/$m.iotape" >"$T/$m.writes"
	[ "$(replay_sums "$T/$m.iotape")" = "$want" ] ||
		fail "record --data ($m): the replayed files differ from the native run's"
	grep -q "^  data  .* 7 writes write the program's own bytes" "$T/replay.out" ||
		fail "replay ($m): $(cat "$T/replay.out")"
done
cat >"$T/want" <<W
write(3, ..., 5000) = 5000 [data 5000]
pwrite64(3, ..., 3000, 20000) = 3000 [data 3000]
writev(3, [iov 7000], 2) = 7000 [data 7000]
pwritev(3, [iov 3100], 3, 30000, 0) = 3100 [data 3100]
pwritev2(3, [iov 7000], 2, 40000, 0, 0) = 7000 [data 7000]
write(3, ..., 4096) = 4096 [zeros]
write(3, ..., 4) = 4 [data 4]
write(3, ..., $BIG) = $BIG [data $BIG]
W
diff -u "$T/want" "$T/fast.writes" || fail "record --data: the fast path's trace keeps other bytes"
diff -u "$T/want" "$T/slow.writes" || fail "record --data: the --no-fastpath trace keeps other bytes"
"$IOTAPE" check "$T/fast.iotape" | grep -q "^  data  .* 7 writes with their bytes kept" ||
	fail "check does not count the kept writes: $("$IOTAPE" check "$T/fast.iotape")"

# without --data: nothing kept, nothing flagged, the replay's own pattern
"$IOTAPE" record -q -o "$T/plain.iotape" -- "$PROGS/data_writes" "$T/w" $BIG ||
	fail "data_writes: record failed"
! writes "$T/plain.iotape" | grep -q '\[data' || fail "record without --data kept data"
! "$IOTAPE" check "$T/plain.iotape" | grep -q '^  data' || fail "check of a trace without --data counts data"
[ "$(replay_sums "$T/plain.iotape")" != "$want" ] ||
	fail "a replay without --data wrote the program's bytes"

# caps: per call (4K: the writes of 5000, 7000, 7000 and $BIG bytes are
# over it) and in all (8000 bytes: the first two writes fill it)
for m in fast slow; do
	args=()
	[ $m = slow ] && args=(--no-fastpath)
	"$IOTAPE" record "${args[@]}" --data=4K -o "$T/cap.iotape" -- "$PROGS/data_writes" "$T/w" $BIG \
		2>"$T/cap.err" || fail "record --data=4K ($m) failed"
	grep -q "data: .* kept of 3 writes; 4 writes' bytes not kept" "$T/cap.err" ||
		fail "record --data=4K ($m): $(cat "$T/cap.err")"
	"$IOTAPE" check "$T/cap.iotape" | grep -q "^  not captured the bytes of 4 writes" ||
		fail "check --data=4K ($m): $("$IOTAPE" check "$T/cap.iotape")"
	[ "$(writes "$T/cap.iotape" | grep -c '\[data not kept\]')" = 4 ] ||
		fail "record --data=4K ($m): not 4 writes flagged: $(writes "$T/cap.iotape")"
	"$IOTAPE" record "${args[@]}" --data-total 8000 -o "$T/total.iotape" -- \
		"$PROGS/data_writes" "$T/w" $BIG 2>"$T/total.err" || fail "record --data-total ($m) failed"
	grep -q "data: 7.8 KiB kept of 2 writes; 5 writes' bytes not kept" "$T/total.err" ||
		fail "record --data-total 8000 ($m): $(cat "$T/total.err")"
	"$IOTAPE" report "$T/total.iotape" | grep -q "data: 2 writes with their bytes kept" ||
		fail "report --data-total 8000 ($m): $("$IOTAPE" report "$T/total.iotape" | head)"
done

# async write requests keep theirs, read at io_submit (aio_batch 10: a
# PWRITEV of 16384 in three iovecs, a PWRITE of 4096 and ten of 512
# bytes, of its buffer of zeros; a PREADV): said by the summary and
# check, and a replay leaves the files the native run left (zeros, not its
# pattern); with --data=4K the PWRITEV is over the cap: not kept, said
rm -rf "$T/a" && mkdir "$T/a"
"$IOTAPE" record --data -o "$T/aio.iotape" -- "$PROGS/aio_batch" "$T/a" 10 >"$T/aio.out" 2>"$T/aio.err" ||
	fail "record --data of aio_batch: $(cat "$T/aio.out" "$T/aio.err")"
grep -q "data: .* kept of .* writes and 12 async write requests, every write's bytes" "$T/aio.err" ||
	fail "record --data of aio_batch: the async writes' bytes not said kept: $(cat "$T/aio.err")"
"$IOTAPE" check "$T/aio.iotape" >"$T/aio.check"
grep -q "^  data  .* 12 async write requests with their bytes kept (25.0 KiB)" "$T/aio.check" ||
	fail "check of aio_batch --data: $(cat "$T/aio.check")"
! grep -q "not captured the bytes" "$T/aio.check" ||
	fail "check of aio_batch --data: $(cat "$T/aio.check")"
rm -rf "$T/root" && mkdir "$T/root"
"$IOTAPE" replay --verify "$T/aio.iotape" --root "$T/root" >"$T/replay.out" 2>&1 ||
	fail "replay of aio_batch --data: $(cat "$T/replay.out")"
for f in v b; do
	cmp "$T/a/$f" "$T/root$T/a/$f" || fail "replay of aio_batch --data: $f differs"
done
"$IOTAPE" record --data=4K -o "$T/aio4.iotape" -- "$PROGS/aio_batch" "$T/a" 10 >"$T/aio.out" 2>"$T/aio.err" ||
	fail "record --data=4K of aio_batch: $(cat "$T/aio.out" "$T/aio.err")"
grep -q "every write's bytes" "$T/aio.err" &&
	fail "record --data=4K of aio_batch says every write's bytes were kept: $(cat "$T/aio.err")"
grep -q "data: not kept: the bytes of 1 async write requests (16.0 KiB" "$T/aio.err" ||
	fail "record --data=4K of aio_batch: the PWRITEV's bytes not said to be unkept: $(cat "$T/aio.err")"
"$IOTAPE" check "$T/aio4.iotape" | grep -q "^  not captured the bytes of 1 async write requests (16.0 KiB)" ||
	fail "check of aio_batch --data=4K: $("$IOTAPE" check "$T/aio4.iotape")"
"$IOTAPE" record -o "$T/aio0.iotape" -- "$PROGS/aio_batch" "$T/a" 10 >/dev/null 2>&1 ||
	fail "record of aio_batch failed"
"$IOTAPE" check "$T/aio0.iotape" | grep -q "not captured the bytes" &&
	fail "check of aio_batch without --data: $("$IOTAPE" check "$T/aio0.iotape")"
echo ok
