#!/bin/bash
# record_real.sh - record real programs (cp -a, tar c, tar x, du, rm -rf,
# make of three C files) on a generated tree, and check that the number
# of calls of each recorded syscall equals what `strace -f -c` counts for
# the same command on an identical copy of the tree.
#
# Not compared, for documented reasons:
#   execve      strace searches PATH itself; iotape runs the command through
#               execvp, whose failed attempts are real calls it records
#   mmap/munmap iotape keeps file mappings only (anonymous ones are memory)
#   exit/exit_group  strace -c counts calls that return
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_cmd strace
need_ptrace
d=$(mktemp -d /tmp/iotape-rec.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C

mk_tree base 200
mk_proj proj
tar cf tree.tar base proj

# counts FILE - "name calls" per line from a strace -c style table
counts() {
	awk '$NF ~ /^[a-z_0-9]+$/ && $(NF-1) ~ /^[0-9]+$/ {
		n = ($(NF-1) ~ /^[0-9]+$/ && $(NF-2) ~ /^[0-9]+$/ && NF == 6) ? $(NF-2) : $(NF-1)
		print $NF, n }' "$1" | grep -Ev '^(execve|mmap|munmap|exit|exit_group|total) ' | sort
}

"$IOTAPE" dump --help >/dev/null 2>&1 || skip "iotape dump is not built yet"

run_case() {	# name, setup, command (run in the work dir)
	local name=$1 setup=$2 cmd=$3 w rc
	for w in s i; do
		rm -rf "w$w" && mkdir "w$w" && (cd "w$w" && tar xf ../tree.tar && eval "$setup")
	done
	# the same path length for both, so that nothing differs but the tracer
	mv ws work || return 1
	(cd work && strace -f -c -o ../$name.strace sh -c "$cmd" >/dev/null 2>$name.serr)
	rc=$?
	mv work ws
	[ $rc = 0 ] || { echo "$name: strace exited $rc: $(head -c 300 $name.serr)"; return 1; }
	mv wi work || return 1
	(cd work && "$IOTAPE" record -q -o ../$name.iotape -- sh -c "$cmd" >/dev/null 2>$name.ierr)
	rc=$?
	mv work wi
	[ $rc = 0 ] || { echo "$name: iotape record exited $rc: $(head -c 300 $name.ierr)"; return 1; }
	"$IOTAPE" dump --count $name.iotape >$name.count ||
		{ echo "$name: iotape dump --count failed"; return 1; }
	# strace lists every syscall: keep those in iotape's table
	counts $name.strace | while read -r sc n; do
		grep -q "^SC($sc," "$SRCDIR/format/syscalls.def" && echo "$sc $n"
	done >$name.s
	counts $name.count >$name.i
	# an empty count on both sides would compare equal: the command ran
	# and made calls, so both must have some
	[ -s $name.s ] || { echo "$name: no syscall counted by strace"; return 1; }
	[ -s $name.i ] || { echo "$name: no syscall counted in the trace"; return 1; }
	diff -u $name.s $name.i >$name.diff || {
		echo "$name: calls per syscall differ (- strace, + iotape):"; cat $name.diff; return 1; }
	echo "$name: $(wc -l <$name.i) syscalls agree ($(awk '{s+=$2} END {print s}' $name.i) calls)"
}

bad=0
run_case cp "" "cp -a base copy" || bad=1
run_case tarc "" "tar cf out.tar base" || bad=1
run_case tarx "" "mkdir x && tar xf ../tree.tar -C x" || bad=1
run_case du "" "du -s base" || bad=1
run_case rm "" "rm -rf base" || bad=1
if command -v make >/dev/null && command -v cc >/dev/null; then
	run_case make "" "make -s -C proj" || bad=1
fi
[ $bad = 0 ] || fail "counts differ (see above)"
echo ok
