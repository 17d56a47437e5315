#!/bin/bash
# record_fastpath.sh - the in-process fast path records what ptrace records.
#
# 1. cp -a, tar c, tar x, du, rm -rf, find and make of a small C tree, and
#    the recorder's own test programs: recorded once with the fast path and
#    once with --no-fastpath, from identical trees at the same path, the
#    two traces give the same events (per thread, in order, with arguments
#    and results) and the same states of the paths the program owns (in
#    this test's own directory, and gcc's temp files): /tmp itself, /usr
#    and the like change when other processes make or install things.
#    Times, pids, addresses, pipe inodes and gcc's random temp names are
#    masked.
# 2. fp_stress: threads, fork, vfork, a signal handler calling wrappers
#    inside wrappers, exec after close_range, the shared memory unmapped
#    under the library, a child killed in the middle of a call: exactly the
#    program's own count of fchmod calls is recorded, and the killed
#    child's read is kept as unfinished.
# 3. The header says which path recorded; a static program is recorded
#    all the same (the fast path cannot load there).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_fastpath_lib
d=$(mktemp -d /tmp/iotape-fp.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C

mk_tree base 150
mk_proj proj '#include <stdio.h>'
tar cf tree.tar base proj

# The comparison: tests/integration/trace_cmp.py

# same NAME SETUP CMD - run CMD in w/ after SETUP, twice, and compare
same() {
	local name=$1 setup=$2 cmd=$3 mode
	for mode in slow fast; do
		rm -rf w && mkdir w && (cd w && eval "$setup") || fail "$name: setup failed"
		local opt=
		[ $mode = slow ] && opt=--no-fastpath
		(cd w && timeout 120 "$IOTAPE" record --backend ptrace -q $opt -o "$d/$name.$mode.iotape" -- \
			sh -c "$cmd" >/dev/null 2>"$d/$name.$mode.err") ||
			fail "$name ($mode) failed: $(tail -3 "$d/$name.$mode.err")"
		"$IOTAPE" dump --states "$d/$name.$mode.iotape" >"$d/$name.$mode.txt" ||
			fail "$name: dump failed"
	done
	grep -q '^# record.fastpath *on$' "$d/$name.fast.txt" || fail "$name: header does not say fastpath on"
	grep -q '^# record.fastpath *off$' "$d/$name.slow.txt" || fail "$name: header does not say fastpath off"
	python3 "$SRCDIR/tests/integration/trace_cmp.py" "$d/$name.slow.txt" "$d/$name.fast.txt" \
		"$d/w" "$d" --no-fastpath "fast path" >"$d/$name.cmp" ||
		{ cat "$d/$name.cmp" >&2; fail "$name: the fast path recorded something else"; }
	echo "$name: same events either way: $(tail -1 "$d/$name.cmp")"
}

# cp -a reads a directory sorted by inode number: it copies from one tree
# both times (a fresh copy has other inode numbers, so another order)
same cp    "true" "cp -a ../base copy"
same tar-c "cp -a ../base base" "tar cf out.tar base"
same tar-x "cp ../tree.tar ." "tar xf tree.tar"
# (no pipes: how much a reader gets per read depends on timing)
same du    "cp -a ../base base" "du -s base; du -a base >du.out"
same rm    "cp -a ../base base" "rm -rf base"
same find  "cp -a ../base base" "find base -type f >find.out; ls -lR base >ls.out"
same make  "cp -a ../proj proj" "make -s -C proj"
same fileops "true" "$PROGS/rec_fileops"
same procs "true" "$PROGS/rec_procs"

# 2. the awkward cases, counted
timeout 120 "$IOTAPE" record --backend ptrace -o stress.iotape -- "$PROGS/fp_stress" "$d/stress.file" \
	>stress.out 2>stress.err || fail "fp_stress under the recorder: exit $? ($(tail -2 stress.err))"
read -r expect killed <stress.out
got=$("$IOTAPE" dump --count stress.iotape | awk '$NF == "fchmod" { print $(NF-1) + 0 }')
[ "$got" = "$expect" ] || fail "fp_stress made $expect fchmod calls, the trace holds ${got:-none}"
"$IOTAPE" dump --pid "$killed" stress.iotape | grep -q '^[0-9]* *[0-9.]* read(.*<unfinished \.\.\.>)' ||
	fail "the read the killed child was in is not in the trace as unfinished"
share=$(sed -n 's/.*(\([0-9.]*\)% in-process, [0-9]* ptrace stops).*/\1/p' stress.err)
awk -v s="${share:-0}" 'BEGIN { exit !(s > 50) }' ||
	fail "fp_stress: only ${share:-0}% of its calls took the fast path: is it working at all?"
echo "fp_stress: $got of $expect fchmod calls recorded, $share% in-process, killed read kept"

# 3. a static program: no preload possible, recorded through ptrace alone
if printf 'int main(void){return 0;}' | cc -static -x c -o static - 2>/dev/null; then
	"$IOTAPE" record --backend ptrace -q -o static.iotape -- ./static || fail "static program: exit $?"
	"$IOTAPE" dump static.iotape | grep -q 'execve(".*static"' || fail "static program: no execve"
fi
# the library cannot be found: a warning, and the run goes on through ptrace
IOTAPE_FASTPATH_LIB=/nonexistent "$IOTAPE" record --backend ptrace -o nolib.iotape -- cp -a base nolib.copy 2>nolib.err ||
	fail "without the library: exit $?"
grep -q 'fast path off' nolib.err || fail "no warning when the library is missing: $(cat nolib.err)"
"$IOTAPE" dump nolib.iotape | grep -q '^# record.fastpath *off (unavailable)$' ||
	fail "header does not say the fast path was unavailable"
echo "ok"
