#!/bin/bash
# bad_input.sh - damaged and foreign files given to 'iotape dump' and
# 'iotape check': truncated at many offsets, flipped bytes, wrong magic, a
# newer major version, empty, a directory, missing, garbage, a zstd file
# that is not a trace.  Each must give ONE line on stderr naming the file,
# a non-zero exit, no crash (exit >= 128) and no hang; for damaged traces
# everything before the damage is still printed; 'check --repair' then
# makes the file pass 'check'.
set -u
. "$(dirname "$0")/lib.sh"

need_iotape_cmd dump
need_iotape_cmd check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk=$SRCDIR/tools/mkcorrupt.sh
T="timeout -k 5 20"

# run CMD FILE: sets rc, out (stdout file), err (stderr file)
run() {
	out=$tmp/out err=$tmp/err
	$T "$IOTAPE" "$1" "$2" >"$out" 2>"$err"
	rc=$?
	[ $rc -lt 124 ] || fail "iotape $1 $2: exit $rc (crash or hang)"
}

# one_line CMD FILE: exactly one message line, naming the file
one_line() {
	[ "$(wc -l <"$err")" = 1 ] ||
		fail "iotape $1 $2: expected one line on stderr, got: $(cat "$err")"
	grep -qF "iotape: $1: $2: " "$err" ||
		fail "iotape $1 $2: the message does not name the file: $(cat "$err")"
}

events() { grep -v -c -e '^#' -e ' --- ' -e ' +++ ' "$1"; }

intact=$tmp/intact.dump
"$IOTAPE" dump "$DATA/many.iotape" >"$intact" || fail "dump of the intact trace failed"
total=$(events "$intact")
[ "$total" = 600 ] || fail "the intact trace has $total events, not 600"
size=$(wc -c <"$DATA/many.iotape")
cend=$("$mk" chunk-end "$DATA/many.iotape")
[ "$cend" -lt "$size" ] || fail "no index trailer found in many.iotape"

# 1. truncated at many offsets
prev=0
for off in $(seq 0 $((size / 16 + 1)) "$size") $((cend - 1)) "$cend" $((cend + 1)) $((size - 1)); do
	f=$tmp/t$off.iotape
	"$mk" truncate "$DATA/many.iotape" "$off" "$f"
	run dump "$f"
	[ $rc = 0 ] && fail "iotape dump on a file truncated at $off exited 0"
	one_line dump "$f"
	# what was printed is the start of the intact dump
	n=$(wc -l <"$out")
	head -n "$n" "$intact" | cmp -s - "$out" ||
		fail "dump of a file truncated at $off is not a prefix of the intact dump"
	ev=$(events "$out")
	drc=$rc
	if [ $rc = 3 ]; then
		[ "$ev" -ge "$prev" ] || fail "truncated at $off: $ev events, fewer than at a shorter cut ($prev)"
		prev=$ev
	fi
	# an index cut off (or part of it) loses no event
	if [ "$off" -ge "$cend" ] && [ "$ev" != 600 ]; then
		fail "truncated in the index at $off: $ev events printed, not 600"
	fi
	run check "$f"
	[ $rc = "$drc" ] || fail "truncated at $off: check exited $rc, dump $drc"
	one_line check "$f"
	if [ $rc = 3 ]; then
		# check counts what dump printed
		c=$(sed -n 's/^  events *\([0-9]*\).*/\1/p' "$out")
		[ "$c" = "$ev" ] || fail "truncated at $off: check counts $c events, dump printed $ev"
	fi
done
[ "$prev" = 600 ] || fail "the longest cuts kept $prev events, not 600"
# a cut inside the last chunk keeps the chunks before it
"$mk" truncate "$DATA/many.iotape" $((cend - 1)) "$tmp/last.iotape"
run dump "$tmp/last.iotape"
[ $rc = 3 ] || fail "a cut in the last chunk did not exit 3"
grep -q 'truncated at frame [0-9]*, byte [0-9]* (events up to [0-9.]* s kept); run .iotape check --repair.' "$err" ||
	fail "unclear truncation message: $(cat "$err")"
ev=$(events "$out")
[ "$ev" -ge 550 ] || fail "a cut in the last chunk kept $ev events"
grep -q '+++ exited' "$out" && fail "a cut in the last chunk printed the process exit it held"

# 2. repair makes a truncated file pass check, keeping what dump printed
for off in 1500 $((cend - 1)) "$cend"; do
	f=$tmp/r$off.iotape
	"$mk" truncate "$DATA/many.iotape" "$off" "$f"
	run dump "$f"
	ev=$(events "$out")
	$T "$IOTAPE" check --repair "$f" >"$tmp/rep" 2>&1 || fail "check --repair of a cut at $off exited $?: $(cat "$tmp/rep")"
	grep -q "$ev events kept" "$tmp/rep" || fail "repair at $off: expected $ev events kept: $(cat "$tmp/rep")"
	run check "$f"
	[ $rc = 0 ] || fail "a repaired file (cut at $off) does not pass check: $(cat "$err")"
	run dump "$f"
	[ $rc = 0 ] || fail "dump of a repaired file exited $rc"
	[ "$(events "$out")" = "$ev" ] || fail "repair at $off changed the event count"
done

# 3. flipped bytes: in a chunk, in the header, in the index
for off in $((cend / 2)) $((cend * 3 / 4)) $((cend - 30)) 5 $((size - 20)); do
	f=$tmp/x$off.iotape
	"$mk" flip "$DATA/many.iotape" "$off" "$f"
	for cmd in dump check; do
		run $cmd "$f"
		[ $rc != 0 ] || [ "$off" -ge "$cend" ] ||
			fail "iotape $cmd on a file with byte $off flipped exited 0"
		[ $rc = 0 ] || one_line $cmd "$f"
		if [ $cmd = dump ]; then
			n=$(wc -l <"$out")
			head -n "$n" "$intact" | cmp -s - "$out" ||
				fail "dump with byte $off flipped is not a prefix of the intact dump"
		fi
	done
	if [ "$off" -gt 5 ] && [ "$off" -lt "$cend" ]; then
		grep -q 'corrupt frame' "$err" || fail "flip at $off: no 'corrupt frame' message: $(cat "$err")"
		$T "$IOTAPE" check --repair "$f" >/dev/null 2>&1 || fail "repair of a flip at $off failed"
		run check "$f"
		[ $rc = 0 ] || fail "a repaired file (flip at $off) does not pass check: $(cat "$err")"
	fi
done

# 4. files that are not (readable) traces: one line, exit 1, nothing printed
"$mk" garbage 5000 "$tmp/garbage.iotape"
: >"$tmp/empty.iotape"
mkdir "$tmp/dir.iotape"
for f in "$DATA/bad-magic.iotape" "$DATA/bad-newer-major.iotape" "$DATA/not-iotape.zst" \
	 "$tmp/garbage.iotape" "$tmp/empty.iotape" "$tmp/dir.iotape" "$tmp/missing.iotape"; do
	for cmd in dump check; do
		run $cmd "$f"
		[ $rc = 1 ] || fail "iotape $cmd $f exited $rc, not 1"
		one_line $cmd "$f"
		[ $cmd = dump ] && [ -s "$out" ] && fail "iotape dump $f printed: $(head -3 "$out")"
	done
	$T "$IOTAPE" check --repair "$f" >/dev/null 2>"$err"
	rc=$?
	[ $rc = 1 ] || fail "check --repair $f exited $rc, not 1"
	one_line check "$f"
done
grep -q 'newer iotape' <("$IOTAPE" dump "$DATA/bad-newer-major.iotape" 2>&1) ||
	fail "a newer major version is not named as such"
grep -q 'not an iotape' <("$IOTAPE" dump "$DATA/bad-magic.iotape" 2>&1) ||
	fail "a wrong magic is not named as such"
grep -q 'Is a directory' <("$IOTAPE" check "$tmp/dir.iotape" 2>&1) ||
	fail "a directory is not named as such"
echo "bad_input: ok"
