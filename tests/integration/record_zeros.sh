#!/bin/bash
# Writes of zeros (tests/progs/zero_writes, through write, pwrite,
# writev, pwritev and pwritev2) are flagged in the trace, alike with and
# without the fast path, and a write's data that is not all zeros is not
# (one byte at the end of a buffer of zeros is enough); a replay writes
# zeros where the program wrote zeros and its own pattern elsewhere, so
# a filesystem that compresses or finds zeros sees what the program wrote.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/zero_writes" ] || fail "$PROGS/zero_writes is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/w"

# the write family's calls, without pid, time and duration
writes() {
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed |
		grep -E '^p?write'
}
for m in fast slow; do
	args=()
	[ $m = slow ] && args=(--no-fastpath)
	"$IOTAPE" record --backend ptrace -q "${args[@]}" -o "$T/$m.iotape" -- "$PROGS/zero_writes" "$T/w" ||
		fail "zero_writes: record ($m) failed"
	writes "$T/$m.iotape" >"$T/$m.writes"
done
cat >"$T/want" <<'W'
write(3, ..., 8192) = 8192 [zeros]
pwrite64(3, ..., 4096, 8192) = 4096
writev(3, [iov 8192], 2) = 8192 [zeros]
pwritev(3, [iov 8192], 2, 20480, 0) = 8192
pwritev2(3, [iov 4096], 1, 28672, 0, 0) = 4096 [zeros]
write(3, ..., 4096) = 4096
write(3, ..., 2097152) = 2097152 [zeros]
W
diff -u "$T/want" "$T/fast.writes" || fail "zero_writes: the fast path's trace flags other writes as zeros"
diff -u "$T/want" "$T/slow.writes" || fail "zero_writes: the --no-fastpath trace flags other writes as zeros"

# offset, length, z (zeros) or d (data), as tests/progs/zero_writes.c lays them out
ranges='0 8192 z
8192 4096 d
12288 8192 z
20480 8192 d
28672 4096 z
32768 4096 d
36864 2097152 z'
for m in fast slow; do
	rm -rf "$T/root" && mkdir "$T/root"
	"$IOTAPE" replay --verify "$T/$m.iotape" --root "$T/root" >"$T/$m.out" 2>&1 ||
		fail "zero_writes ($m): replay --verify exited $?: $(cat "$T/$m.out")"
	grep -Eq '^  mismatches +0$' "$T/$m.out" || fail "zero_writes ($m): $(cat "$T/$m.out")"
	f="$T/root$T/w/zeros"
	[ "$(stat -c %s "$f")" = $((36864 + 2097152)) ] || fail "zero_writes ($m): $f is $(stat -c %s "$f") bytes"
	while read -r off len kind; do
		# the pattern of a data write may hold a zero byte, never 4 KiB of them
		if cmp -s -i "$off:0" -n "$len" "$f" /dev/zero; then
			[ "$kind" = z ] || fail "zero_writes ($m): the data written at $off replayed as zeros"
		else
			[ "$kind" = d ] || fail "zero_writes ($m): the zeros written at $off ($len bytes) replayed as data"
		fi
	done <<<"$ranges"
done
echo ok
