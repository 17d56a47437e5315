#!/bin/sh
# run.sh - 'make stress': long fault and load tests (not in 'make check').
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD IOTAPE=$PWD/$BUILD/iotape PROGS=$PWD/$BUILD/tests/progs DATA=$PWD/tests/data SRCDIR=$PWD
pass=0 fail=0 skip=0
for t in tests/stress/*.sh; do
	[ "$(basename "$t")" = run.sh ] && continue
	echo "== $t"
	timeout 3600 bash "$t"; rc=$?
	case $rc in 0) pass=$((pass+1));; 77) skip=$((skip+1));; *) fail=$((fail+1)); echo "FAIL $t ($rc)";; esac
done
echo "stress: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
