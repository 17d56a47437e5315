#!/bin/bash
# dump_check.sh - 'iotape dump' and 'iotape check' on the golden traces of
# tests/data/ (see tests/data/README): the dumps must match the committed
# text byte for byte; check must accept the clean files and flag the
# unclosed one; and, when the writer program is built, traces written by
# the current writer must dump to the same text.
set -u
. "$(dirname "$0")/lib.sh"

need_iotape_cmd dump
need_iotape_cmd check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$DATA"

# 1. golden dumps (relative names, so messages are stable)
for n in basic profile many; do
	"$IOTAPE" dump "$n.iotape" >"$tmp/$n.out" 2>"$tmp/$n.err" ||
		fail "dump $n.iotape exited $?: $(cat "$tmp/$n.err")"
	[ -s "$tmp/$n.err" ] && fail "dump $n.iotape wrote to stderr: $(cat "$tmp/$n.err")"
	diff -u "$n.dump" "$tmp/$n.out" || fail "dump of $n.iotape differs from $n.dump"
done
"$IOTAPE" dump --count basic.iotape >"$tmp/count" || fail "dump --count exited $?"
diff -u basic.count "$tmp/count" || fail "dump --count differs from basic.count"
"$IOTAPE" dump basic.iotape --count | cmp -s basic.count - || fail "an option after FILE is not taken"
"$IOTAPE" dump --states --pid 101 basic.iotape >"$tmp/pid" || fail "dump --pid exited $?"
diff -u basic.pid101.dump "$tmp/pid" || fail "dump --states --pid 101 differs"
# --pid keeps only that process's threads (101 and 102)
grep -v '^#' "$tmp/pid" | awk '$1 != 101 && $1 != 102 { bad = 1 } END { exit bad }' ||
	fail "dump --pid 101 printed lines of other processes"
"$IOTAPE" dump --no-procs basic.iotape | grep -E -e '--- |\+\+\+ ' &&
	fail "dump --no-procs printed process lines"
# -y: descriptors with their paths, on the shell of a real recorded trace
# (read, pread64, fcntl, close, dup2 of two descriptors, pipes, /dev/null)
"$IOTAPE" dump -y --pid 26184 "$SRCDIR/traces/mozilla.iotape" >"$tmp/y" ||
	fail "dump -y exited $?"
diff -u mozilla-sh.y.dump "$tmp/y" || fail "dump -y differs from mozilla-sh.y.dump"
grep -q '^26184 .* dup2(12<pipe:\[668709\]>, 1</dev/null>) = 1<pipe:\[668709\]> ' "$tmp/y" ||
	fail "dump -y did not print both descriptors of dup2 and its result"
"$IOTAPE" dump --pid 26184 "$SRCDIR/traces/mozilla.iotape" | grep -v '^#' | grep -q '[0-9]<' &&
	fail "dump without -y printed descriptor paths"
"$IOTAPE" dump --decode-fds basic.iotape | grep -q '= 5</work/src/a> ' ||
	fail "dump --decode-fds did not print the path of a descriptor open returned"

# 2. an unclosed trace: every event printed, one line on stderr, exit 3
"$IOTAPE" dump unclosed.iotape >"$tmp/u.out" 2>"$tmp/u.err"
rc=$?
[ $rc = 3 ] || fail "dump of an unclosed trace exited $rc, not 3"
diff -u unclosed.dump "$tmp/u.out" || fail "dump of unclosed.iotape differs"
[ "$(wc -l <"$tmp/u.err")" = 1 ] || fail "expected one message line: $(cat "$tmp/u.err")"
grep -q "^iotape: dump: unclosed.iotape: not closed cleanly.*iotape check --repair" "$tmp/u.err" ||
	fail "unclear message: $(cat "$tmp/u.err")"

# 3. check: summaries of clean files, exit 0
"$IOTAPE" check basic.iotape profile.iotape >"$tmp/check" 2>&1 || fail "check exited $?"
diff -u basic-profile.check "$tmp/check" || fail "check summary differs"
"$IOTAPE" check -q basic.iotape many.iotape >"$tmp/q" 2>&1 || fail "check -q exited $?"
[ -s "$tmp/q" ] && fail "check -q printed: $(cat "$tmp/q")"
[ -z "$("$IOTAPE" check basic.iotape --quiet 2>&1)" ] || fail "check FILE --quiet printed something"
"$IOTAPE" check unclosed.iotape >"$tmp/c.out" 2>"$tmp/c.err"
[ $? = 3 ] || fail "check of an unclosed trace did not exit 3"
grep -q '^  index        absent' "$tmp/c.out" || fail "check did not say the index is absent"
grep -q '^  clean close  no' "$tmp/c.out" || fail "check did not say clean close no"
# the worst status wins: unreadable (1) over damaged (3)
"$IOTAPE" check -q unclosed.iotape /nonexistent.iotape 2>/dev/null
[ $? = 1 ] || fail "check of a missing and a damaged file did not exit 1"

# 4. repair an unclosed copy: all events kept, then it passes check
cp unclosed.iotape "$tmp/u.iotape"
"$IOTAPE" check --repair "$tmp/u.iotape" >"$tmp/r.out" 2>&1 || fail "check --repair exited $?: $(cat "$tmp/r.out")"
grep -q '21 events kept' "$tmp/r.out" || fail "repair did not report 21 events: $(cat "$tmp/r.out")"
"$IOTAPE" check -q "$tmp/u.iotape" || fail "a repaired file does not pass check"
"$IOTAPE" dump "$tmp/u.iotape" | grep -v '^#' >"$tmp/u2" || fail "dump of the repaired file failed"
grep -v '^#' unclosed.dump | diff -u - "$tmp/u2" || fail "repair changed the events"
cp unclosed.iotape "$tmp/u-in.iotape"
"$IOTAPE" check --repair -o "$tmp/copy.iotape" "$tmp/u-in.iotape" >/dev/null || fail "repair -o failed"
"$IOTAPE" check -q "$tmp/copy.iotape" || fail "repair -o output does not pass check"
cmp -s unclosed.iotape "$tmp/u-in.iotape" || fail "repair -o changed its input"

# 5. a closed pipe is not an error
out=$("$IOTAPE" dump many.iotape 2>"$tmp/pipe.err" | head -n 3)
[ "$(echo "$out" | wc -l)" = 3 ] || fail "dump | head did not give 3 lines"
[ -s "$tmp/pipe.err" ] && fail "dump | head wrote to stderr: $(cat "$tmp/pipe.err")"
"$IOTAPE" dump many.iotape | true
st=${PIPESTATUS[0]}
[ "$st" -lt 128 ] || fail "dump died of a signal ($st) on a closed pipe"

# 6. usage
"$IOTAPE" dump --help | grep -q 'Examples:' || fail "dump --help has no examples"
"$IOTAPE" check --help | grep -q 'Exit status' || fail "check --help has no exit status"
"$IOTAPE" dump --bogus basic.iotape 2>/dev/null
[ $? = 2 ] || fail "dump --bogus did not exit 2"
"$IOTAPE" dump 2>/dev/null
[ $? = 2 ] || fail "dump without FILE did not exit 2"
"$IOTAPE" check -o x basic.iotape 2>/dev/null
[ $? = 2 ] || fail "check -o without --repair did not exit 2"

# 7. the current writer: same events, same text (the golden files are
# format 1.0; the first line names the writer's format version)
mk=$SRCDIR/$BUILD/tests/bench/mktraces
cur=$("$IOTAPE" version 2>/dev/null | sed -n 's/.*format \([0-9]*\.[0-9]*\).*/\1/p')
if [ -x "$mk" ]; then
	mkdir "$tmp/gen"
	"$mk" "$tmp/gen" || fail "mktraces failed"
	for n in basic profile many; do
		"$IOTAPE" dump "$tmp/gen/$n.iotape" >"$tmp/gen/$n.out" || fail "dump of a fresh $n failed"
		head -n 1 "$tmp/gen/$n.out" | grep -q ", format ${cur:-?}\$" ||
			fail "a fresh $n.iotape is not of format ${cur:-?}: $(head -n 1 "$tmp/gen/$n.out")"
		sed '1s/, format [0-9.]*$/, format 1.0/' "$tmp/gen/$n.out" | diff -u "$n.dump" - ||
			fail "a freshly written $n.iotape dumps differently"
	done
	"$IOTAPE" dump "$tmp/gen/unclosed.iotape" 2>/dev/null | sed '1s/, format [0-9.]*$/, format 1.0/' |
		diff -u unclosed.dump - || fail "a freshly written unclosed.iotape dumps differently"
	# a 1.1 index carries a checksum, and check accepts it
	"$IOTAPE" check -q "$tmp/gen/basic.iotape" "$tmp/gen/many.iotape" ||
		fail "check rejects freshly written traces"
	# a byte of that index changed: every event still printed, the
	# index reported, exit 3; repair gives a file that passes check
	f=$tmp/idx.iotape
	cp "$tmp/gen/basic.iotape" "$f"
	size=$(stat -c %s "$f")
	ilen=$(tail -c 8 "$f" | head -c 4 | od -An -tu4 | tr -d ' ')
	off=$((size - 8 - ilen + 3))
	old=$(od -An -tu1 -j "$off" -N 1 "$f" | tr -d ' ')
	printf "\\$(printf %03o $((old ^ 0x10)))" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	cmp -s "$f" "$tmp/gen/basic.iotape" && fail "the index byte was not changed"
	"$IOTAPE" dump "$f" >"$tmp/idx.out" 2>"$tmp/idx.err"
	rc=$?
	[ $rc = 3 ] || fail "dump of a trace with a damaged index exited $rc, not 3"
	sed '1s/, format [0-9.]*$/, format 1.0/' "$tmp/idx.out" | diff -u basic.dump - ||
		fail "a damaged index lost events"
	grep -q "index .*damaged.*all 39 events were read.*iotape check --repair" "$tmp/idx.err" ||
		fail "unclear message for a damaged index: $(cat "$tmp/idx.err")"
	"$IOTAPE" check "$f" >"$tmp/idx.out" 2>&1
	rc=$?
	[ $rc = 3 ] || fail "check of a trace with a damaged index exited $rc, not 3"
	grep -q "its index is damaged .*39 complete events; run 'iotape check --repair'" "$tmp/idx.out" ||
		fail "check's message for a damaged index: $(cat "$tmp/idx.out")"
	"$IOTAPE" check --repair "$f" >/dev/null 2>&1 || fail "repair of a damaged index failed"
	"$IOTAPE" check -q "$f" || fail "a file with a rewritten index does not pass check"
else
	echo "note: $mk is not built ('make BUILD=$BUILD $BUILD/tests/bench/mktraces'); golden files only"
fi

# 8. untimed (lib.sh), through which the tests compare dumps: what a run
# changes goes, every note after it too (the bpf backend's), the rest stays
cat >"$tmp/timed" <<'L'
100    0.000123 write(3, ..., 5000) = 5000 <0.000010> [on cpu 0.000008] [data 5000] [slept before 0.002000]
100    0.000200 openat(AT_FDCWD, "a <1> [b]", O_RDONLY) = 3 <0.000010>
101    1.500000 write(4, ..., 4096) = 4096 <0.000020> [zeros] [slept before 0.1] [not replayed]
101    1.600000 fsync(4) = 0 <0.000030> [on cpu 0.000001] [result differs from the trace]
L
cat >"$tmp/want" <<'L'
write(3, ..., 5000) = 5000 [data 5000]
openat(AT_FDCWD, "a <1> [b]", O_RDONLY) = 3
write(4, ..., 4096) = 4096 [zeros] [not replayed]
fsync(4) = 0 [result differs from the trace]
L
untimed <"$tmp/timed" | diff -u "$tmp/want" - || fail "untimed leaves what a run changes"
untimed -p <"$tmp/timed" | cut -d' ' -f1 | tr '\n' ' ' | grep -qx '100 100 101 101 ' ||
	fail "untimed -p does not keep the pids: $(untimed -p <"$tmp/timed")"
echo "dump_check: ok"
