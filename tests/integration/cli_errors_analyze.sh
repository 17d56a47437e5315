#!/bin/bash
# cli_errors_analyze.sh - command-line errors of report, diff, export and
# bench: an output that names an input is refused and the input kept; a
# write error on standard output or a file exits 1 with the errno, and a
# partial output file is removed; bad numbers, a format that is not one and
# options without their value are named; diff wants two files; bench labels
# --dir / safely, checks --dir first and leaves no empty profile directory.
# Every check runs and reports; the script fails if any did.  The full-disk
# and --dir / checks need root (a small tmpfs, a directory in /).
set -u
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
full=$tmp/full
cleanup() {
	mountpoint -q "$full" 2>/dev/null && umount "$full"
	rm -rf "$tmp"
}
trap cleanup EXIT
T=$DATA/basic.iotape
nbad=0

bad() { echo "FAIL: $*" >&2; nbad=$((nbad + 1)); }

# skip_rest REASON: the checks that follow cannot run; a check that already
# failed keeps the script failing, a skip never hides it
skip_rest() {
	[ $nbad = 0 ] || { echo "$nbad check(s) failed; then: $*" >&2; exit 1; }
	skip "$*"
}

# run ARGS...: sets rc; stdout in $tmp/out, stderr in $tmp/err
run() {
	timeout -k 5 60 "$IOTAPE" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect NAME RC PATTERN: exit status RC and PATTERN (grep -E) on stderr
expect() {
	if [ "$rc" != "$2" ]; then
		bad "$1: exit $rc, expected $2: $(head -c 300 "$tmp/err")"
	elif ! grep -qE -e "$3" "$tmp/err"; then
		bad "$1: stderr lacks /$3/: $(head -c 300 "$tmp/err")"
	fi
}

# 1. an output that is an input: exit 2, the input unchanged
for c in "export IN -f csv -o IN" "report IN -o IN" "report IN --html IN" \
	 "diff IN $T -o IN" "diff $T IN --html IN"; do
	cp "$T" "$tmp/in.iotape"
	# shellcheck disable=SC2086
	run ${c//IN/$tmp/in.iotape}
	expect "$c" 2 "is (an|the) input trace"
	cmp -s "$T" "$tmp/in.iotape" || bad "$c: the input was changed"
done
run report "$T" -o "$tmp/same" --html "$tmp/same"
expect "report -o X --html X" 2 "the same file"

# 2. a write error on standard output
for c in "export $T -f csv" "export $T -f chrome" "export $T -f json" "report $T" \
	 "report $T --json" "diff $T $T"; do
	# shellcheck disable=SC2086
	timeout -k 5 60 "$IOTAPE" $c >/dev/full 2>"$tmp/err"
	rc=$?
	expect "$c >/dev/full" 1 "writing standard output: No space left on device"
done

# 3. numbers that are not
for v in abc -1 3x ""; do
	run report "$T" --top "$v"
	expect "report --top '$v'" 2 "--top $v: "
done
run bench "$T" --runs 3x --dir "$tmp" -o "$tmp/b3"
expect "bench --runs 3x" 2 "--runs 3x"

# 4. export: the format from the extension only where it names one
run export "$T" -o "$tmp/r.json"
[ $rc = 0 ] && grep -q '"kind": "trace"' "$tmp/r.json" ||
	bad "export -o r.json: not the report as JSON (exit $rc)"
run export "$T" -o "$tmp/e.CSV"
[ $rc = 0 ] && head -n1 "$tmp/e.CSV" | grep -q '^t_enter_ns,' ||
	bad "export -o e.CSV: not CSV (exit $rc)"
for o in e.txt e; do
	run export "$T" -o "$tmp/$o"
	expect "export -o $o" 2 "-o $tmp/$o: .*--format"
	[ -e "$tmp/$o" ] && bad "export -o $o: the file was made"
done
run export "$T" -f xml
expect "export -f xml" 2 "--format xml: .*chrome, csv or json"

# 5. an option without its value; diff with one file
for c in "diff $T $T -o" "diff $T $T --html" "report $T -o" "report $T --html" \
	 "export $T -f csv -o"; do
	opt=${c##* }
	# shellcheck disable=SC2086
	run $c
	expect "$c" 2 "$opt needs a FILE"
done
run report "$T" --top
expect "report --top" 2 "--top needs a number"
run diff "$T"
expect "diff A" 2 "nothing to compare"

# 6. bench --dir: checked before the profile directory is made; no images
run bench "$T" --dir "$tmp/nonexistent" -o "$tmp/b5"
expect "bench --dir nonexistent" 1 "--dir $tmp/nonexistent: No such file"
[ -e "$tmp/b5" ] && bad "bench --dir nonexistent: left $tmp/b5 behind"
mkdir -p "$tmp/d/x"
run bench "$T" --dir "$tmp/d/x" --timing afap -o "$tmp/b6"
[ $rc = 0 ] || bad "bench --dir: exit $rc: $(head -c 300 "$tmp/err")"
grep -q "images of" "$tmp/err" && bad "bench --dir announces loop images: $(cat "$tmp/err")"
[ -s "$tmp/b6/dir-x.1.iotape" ] || bad "bench --dir: no profile dir-x.1.iotape"

[ "$(id -u)" = 0 ] ||
	skip_rest "needs root for the full-disk and --dir / checks (a tmpfs mount, a directory in /)"

# 6b. --dir /: a label that makes a file name
run bench "$T" --dir / --timing afap -o "$tmp/b7"
[ $rc = 0 ] || bad "bench --dir /: exit $rc: $(head -c 300 "$tmp/err")"
[ -s "$tmp/b7/dir-root.1.iotape" ] || bad "bench --dir /: no profile dir-root.1.iotape"

# 7. a full disk: exit 1 with ENOSPC, no partial file left
mkdir -p "$full"
mount -t tmpfs -o size=64k none "$full" || skip_rest "cannot mount a tmpfs"
head -c 65536 /dev/zero >"$full/fill" 2>/dev/null
for c in "export $T -f csv -o OUT" "export $T -f chrome -o OUT" "export $T -f json -o OUT" \
	 "report $T -o OUT" "report $T --html OUT" "diff $T $T -o OUT" \
	 "diff $T $T --html OUT"; do
	# shellcheck disable=SC2086
	run ${c//OUT/$full/out}
	expect "$c (full disk)" 1 "$full/out: write failed: No space left on device; the partial (file|page) was removed"
	[ -e "$full/out" ] && bad "$c (full disk): $full/out was left behind"
	rm -f "$full/out"
done

[ $nbad = 0 ] || { echo "$nbad check(s) failed" >&2; exit 1; }
echo "cli errors of report, diff, export and bench ok"
