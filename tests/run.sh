#!/bin/bash
# run.sh [--unit] [NAME...] - run iotape's tests and print one summary line:
#   check: N passed, N failed, N skipped
# Unit tests are cmocka binaries; integration tests are shell scripts
# (exit 0 pass, 77 skipped with the reason on stdout/stderr, else fail).
# Logs go to $BUILD/test-logs/.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
export IOTAPE=$PWD/$BUILD/iotape
export PROGS=$PWD/$BUILD/tests/progs
export DATA=$PWD/tests/data
export SRCDIR=$PWD
logs=$BUILD/test-logs
rm -rf "$logs"; mkdir -p "$logs"
pass=0 fail=0 skip=0
failed=()
only_unit=0
[ "${1:-}" = --unit ] && { only_unit=1; shift; }
filter=("$@")

wanted() {
	[ ${#filter[@]} -eq 0 ] && return 0
	local f; for f in "${filter[@]}"; do [[ "$1" == *"$f"* ]] && return 0; done
	return 1
}

run_one() {	# name, timeout, command...
	local name=$1 tmo=$2; shift 2
	wanted "$name" || return 0
	local log=$logs/$(echo "$name" | tr '/' '_').log start rc
	start=$(date +%s.%N)
	timeout -k 10 "$tmo" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	local secs; secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	case $rc in
	0)  pass=$((pass+1)); printf '  PASS  %-44s %6.1fs\n' "$name" "$secs" ;;
	77) skip=$((skip+1)); printf '  SKIP  %-44s %s\n' "$name" "$(tail -n1 "$log" | cut -c1-60)" ;;
	*)  fail=$((fail+1)); failed+=("$name")
	    [ $rc = 124 ] && echo "timed out after ${tmo}s" >>"$log"
	    printf '  FAIL  %-44s (exit %d, log %s)\n' "$name" "$rc" "$log"
	    tail -n 15 "$log" | sed 's/^/        | /' ;;
	esac
}

for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" 600 "$t"
done
if [ $only_unit = 0 ]; then
	if [ -x "$BUILD/fuzz-replay" ]; then
		run_one "fuzz/corpus-replay" 600 "$BUILD/fuzz-replay" tests/fuzz/corpus
	fi
	if [ -x "$BUILD/fuzz-replay-plan" ]; then
		run_one "fuzz/corpus-plan" 600 "$BUILD/fuzz-replay-plan" tests/fuzz/corpus
	fi
	for t in tests/integration/*.sh; do
		[ -f "$t" ] || continue
		case $t in */lib.sh|*_lib.sh) continue ;; esac	# sourced helpers
		run_one "integration/$(basename "$t" .sh)" 900 bash "$t"
	done
fi
if [ $fail -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
echo "check: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
