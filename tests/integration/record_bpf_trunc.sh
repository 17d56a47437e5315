#!/bin/bash
# record_bpf_trunc.sh - files changed right after they are opened, and
# files truncated by name: `record --backend bpf` (and mixed) write the
# same path states as `--backend ptrace`, which lstat()s at the entry stop.
#
# 1. tests/progs/rec_trunc fd: five existing files, each opened without
#    O_TRUNC and changed at once through its descriptor (ftruncate down
#    and up, an appending write, fchmod, fallocate).  No call names a
#    path as it changes it, so the guard stops none; the recorder's
#    lstat() at the drain comes after the change.  The states must be the
#    files as they were: the kernel's inode at the open's exit.
# 2. rec_trunc path: the same, then the calls that truncate a path (open
#    with O_TRUNC, with O_CREAT|O_TRUNC, creat, truncate): the guard stops
#    each of those four before it runs, and the traces are the same.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
d=$(mktemp -d /tmp/iotape-btrunc.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

setup() {
	rm -rf w && mkdir w
	head -c 1000 /dev/urandom >w/f1
	head -c 2000 /dev/urandom >w/f2
	head -c 3000 /dev/urandom >w/f3
	head -c 4000 /dev/urandom >w/f4 && chmod 0640 w/f4
	head -c 5000 /dev/urandom >w/f5
	for i in 1 2 3 4; do head -c $((i * 700)) /dev/urandom >w/t$i; done
	# an old time: a state taken after the change would have a new one
	touch -d '2020-01-02 03:04:05' w/f* w/t*
}

for mode in fd path; do
	for b in ptrace bpf mixed; do
		setup
		(cd w && "$IOTAPE" record --backend $b -o "$d/$mode.$b.iotape" -- "$PROGS/rec_trunc" $mode \
			>/dev/null 2>"$d/$mode.$b.err") ||
			fail "rec_trunc $mode ($b): exit $? ($(tail -2 "$d/$mode.$b.err"))"
		"$IOTAPE" dump --states "$d/$mode.$b.iotape" >"$d/$mode.$b.txt" || fail "$mode ($b): dump failed"
	done
	for b in bpf mixed; do
		python3 "$SRCDIR/tests/integration/trace_cmp.py" "$d/$mode.ptrace.txt" "$d/$mode.$b.txt" \
			"$d/w" "$d" ptrace $b >"$d/$mode.$b.cmp" ||
			{ cat "$d/$mode.$b.cmp" >&2; fail "rec_trunc $mode: --backend $b recorded other events or states"; }
	done
	# what the states must say: the files before the program
	for f in f1:1000 f2:2000 f3:3000 f4:4000 f5:5000; do
		grep -q "state \"$d/w/${f%:*}\" S_IFREG|0[0-9]* size=${f#*:} " "$d/$mode.bpf.txt" ||
			fail "rec_trunc $mode (bpf): the state of ${f%:*} is not its size before: $(grep "w/${f%:*}\"" "$d/$mode.bpf.txt")"
	done
	grep -q "state \"$d/w/f4\" S_IFREG|0640 " "$d/$mode.bpf.txt" ||
		fail "rec_trunc $mode (bpf): the state of f4 is not its mode before: $(grep 'w/f4"' "$d/$mode.bpf.txt")"
	echo "rec_trunc $mode: same events and path states under ptrace, bpf and mixed"
done
grep -q '; 0 stops before calls' fd.bpf.err ||
	fail "rec_trunc fd (bpf): the guard stopped: $(grep stops fd.bpf.err)"
grep -q '; 4 stops before calls' path.bpf.err ||
	fail "rec_trunc path (bpf): not 4 stops, one per truncation by name: $(grep stops path.bpf.err)"
echo "guard stops: none for changes through a descriptor, one per truncation by name"
