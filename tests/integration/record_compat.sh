#!/bin/bash
# record_compat.sh - a 32-bit program run by the recorded one (ldd runs
# /lib/ld-linux.so.2): its calls are not recorded, by either backend (the
# tables are x86_64's), and until 2026-12-07 nothing said so (its 266
# bytes written into ldd's pipe were missing from mkinitramfs's trace).
# Now the recorder says it, with -q too.  Needs libc6-i386 (make check
# installs it).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
[ -x /lib/ld-linux.so.2 ] || fail "/lib/ld-linux.so.2 is missing: apt-get install -y libc6-i386"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	"$IOTAPE" record -q --backend "$b" -o "$T/t.iotape" -- sh -c "/lib/ld-linux.so.2 --version >$T/v; true" \
		2>"$T/err" || fail "$b: record: exit $?: $(cat "$T/err")"
	[ -s "$T/v" ] || fail "$b: the 32-bit loader printed nothing"
	grep -q 'warning: 1 execs of 32-bit programs (the first [^)]*ld-linux.so.2): their calls are not recorded' "$T/err" ||
		fail "$b: no word of the 32-bit program: $(cat "$T/err")"
	"$IOTAPE" record -q --backend "$b" -o "$T/t.iotape" -- sh -c "true" 2>"$T/err" ||
		fail "$b: record: exit $?"
	! grep -q '32-bit' "$T/err" || fail "$b: a 64-bit program said to be 32-bit: $(cat "$T/err")"
	echo "ok ($b): the 32-bit program's run said, and no other"
done
