#!/bin/bash
# What replay and the analysis commands say about an interrupt and about
# traces that were not closed cleanly or have a damaged header:
# - SIGINT during a replay in the raw recorded timing (which keeps the
#   sleeps: the recorded timing fits think times to CPU time) stops it within a second
#   (threads asleep in a think time too), exits 130 with a message, and
#   leaves a profile that passes 'check' and holds the calls that ran;
# - a trace whose index is missing (recorder killed) makes report, export
#   and replay warn "not closed cleanly" and exit 3, as dump and check do;
# - a truncated trace is described alike (same frame, same byte) by dump
#   and report;
# - a damaged header is not sent to 'check --repair', which cannot help;
# - --include naming no recorded path is warned about; --root "" and an
#   unknown option are one-line usage errors; -o naming the trace itself
#   is refused and leaves it as it was.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_iotape_cmd report
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# --- interrupt -------------------------------------------------------
mkdir -p "$T/w"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/slow.iotape" -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8; do echo $i > f$i; sleep 0.4; done') ||
	fail "record failed"
mkdir "$T/r1"
set -m	# a job of its own: SIGINT is not ignored in it
"$IOTAPE" replay "$T/slow.iotape" --root "$T/r1" -t raw -o "$T/p1.iotape" >"$T/out1" 2>&1 &
pid=$!
sleep 1.3
kill -INT $pid
start=$(date +%s%N)
wait $pid
rc=$?
set +m
waited=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$T/out1"
[ $rc = 130 ] || fail "replay interrupted by SIGINT exited $rc, not 130"
grep -q 'interrupted by SIGINT after .* ops reached; the profile .*p1.iotape holds them' \
	"$T/out1" || fail "no message saying the replay was interrupted"
# not a timing threshold on the replay's speed: a stop that waited for the
# remaining 2 s of recorded sleeps would show the threads were not woken
[ $waited -lt 1500 ] || fail "the replay took $waited ms to stop after SIGINT"
"$IOTAPE" check "$T/p1.iotape" >/dev/null || fail "the interrupted profile does not pass check"
w=$T/r1$T/w
[ -f "$w/f1" ] || fail "f1 was not made before the interrupt"
[ -f "$w/f8" ] && fail "f8 was made although the replay was interrupted"
all=$("$IOTAPE" dump "$T/slow.iotape" | grep -c ' = ')
part=$("$IOTAPE" dump "$T/p1.iotape" | grep -c ' = ')
[ "$part" -gt 0 ] && [ "$part" -lt "$all" ] ||
	fail "the profile holds $part of $all calls: expected some, not all"
"$IOTAPE" dump -H "$T/p1.iotape" 2>/dev/null | grep -q 'replay.interrupted.*SIGINT' ||
	"$IOTAPE" dump "$T/p1.iotape" | head -40 | grep -q 'replay.interrupted.*SIGINT' ||
	fail "the profile's header does not say it was interrupted"

# --- traces not closed cleanly, damaged headers --------------------------
# a recording of a few hundred calls, then the same without its index
(cd "$T/w" && "$IOTAPE" record -q --flush-events 200 -o "$T/full.iotape" -- sh -c 'ls -la /usr/bin >/dev/null; cat /etc/passwd >/dev/null') ||
	fail "record failed"
size=$(stat -c %s "$T/full.iotape")
# the index is the last frame (FORMAT.md, "The index trailer"): the file
# ends with u32 L, "IOTX", and the frame starts 16 + L bytes before its end
[ "$(tail -c 4 "$T/full.iotape")" = IOTX ] || fail "the trace has no index trailer"
L=$(tail -c 8 "$T/full.iotape" | head -c 4 | od -An -tu4 | tr -d ' ')
idx=$(( size - 16 - L ))
[ "$idx" -gt 0 ] || fail "could not find the index of the trace"
head -c "$idx" "$T/full.iotape" >"$T/noidx.iotape"
"$IOTAPE" check "$T/noidx.iotape" >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "check of a trace without its index did not exit 3: $(cat "$T/err")"
grep -q 'not closed cleanly' "$T/err" || fail "check: $(cat "$T/err")"
for c in report "export -f csv -o $T/x.csv"; do
	# shellcheck disable=SC2086
	"$IOTAPE" $c "$T/noidx.iotape" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 3 ] || fail "$c of a trace without its index exited $rc, not 3"
	grep -q 'noidx.iotape: not closed cleanly' "$T/err" || fail "$c said: $(cat "$T/err")"
done
mkdir "$T/r2"
"$IOTAPE" replay "$T/noidx.iotape" --root "$T/r2" -t afap -q 2>"$T/err"
rc=$?
[ $rc = 3 ] || fail "replay of a trace without its index exited $rc, not 3"
grep -q 'not closed cleanly.*replaying the complete part' "$T/err" ||
	fail "replay -q said: $(cat "$T/err")"

# truncated inside the chunks: dump and report name the same place
cut=$(( idx * 2 / 3 ))
head -c "$cut" "$T/full.iotape" >"$T/trunc.iotape"
"$IOTAPE" dump "$T/trunc.iotape" >/dev/null 2>"$T/err.dump"
"$IOTAPE" report "$T/trunc.iotape" >/dev/null 2>"$T/err.report"
d=$(grep -o 'truncated at frame [0-9]*, byte [0-9]* (events up to [0-9.]* s kept)' "$T/err.dump")
r=$(grep -o 'truncated at frame [0-9]*, byte [0-9]* (events up to [0-9.]* s kept)' "$T/err.report")
[ -n "$d" ] && [ "$d" = "$r" ] ||
	fail "dump and report describe the damage differently: '$(cat "$T/err.dump")' vs '$(cat "$T/err.report")'"

# the header cut: nothing to repair, and no advice to try
head -c 40 "$T/full.iotape" >"$T/hdr.iotape"
for c in report replay; do
	extra=; [ $c = replay ] && { mkdir -p "$T/r3"; extra="--root $T/r3"; }
	# shellcheck disable=SC2086
	"$IOTAPE" $c "$T/hdr.iotape" $extra >/dev/null 2>"$T/err"
	[ $? = 1 ] || fail "$c of a cut header did not exit 1"
	grep -q 'header is damaged (nothing can be read or repaired)' "$T/err" ||
		fail "$c of a cut header said: $(cat "$T/err")"
	grep -q 'check --repair' "$T/err" && fail "$c sends a cut header to check --repair"
done

# --- why calls were skipped, kept in the profile ------------------------
# (the summary's reasons in the header: check, report and its JSON)
mkdir "$T/r5"
"$IOTAPE" replay "$SRCDIR/tests/data/two-writers.iotape" --root "$T/r5" -t afap -o "$T/why.prof" \
	>"$T/why.out" 2>&1 || { cat "$T/why.out"; fail "replay of two-writers.iotape failed"; }
sum=$(sed -n 's/^  ops .* skipped (\(.*\))$/\1/p' "$T/why.out")
[ -n "$sum" ] || fail "the summary gives no reasons: $(cat "$T/why.out")"
"$IOTAPE" check "$T/why.prof" | grep -qF "  skipped      $sum: calls the replay did not make" ||
	fail "check does not give the summary's reasons ($sum): $("$IOTAPE" check "$T/why.prof")"
"$IOTAPE" report "$T/why.prof" | grep -qF "  skipped by reason: $sum" ||
	fail "report does not give the summary's reasons ($sum)"
n=$(sed -n 's/^  ops .* replayed, \([0-9]*\) skipped.*/\1/p' "$T/why.out")
js=$("$IOTAPE" report --json "$T/why.prof" | grep -o '"skipped_by": {[^}]*}')
t=$(echo "$js" | grep -o ': [0-9]*' | awk '{ s += $2 } END { print s + 0 }')
[ "$t" = "$n" ] || fail "report --json's skipped_by ($js) sums to $t, not the $n skipped"
# a profile from before has no reasons, and says nothing of them
"$IOTAPE" check "$SRCDIR/tests/data/profile.iotape" | grep -q '^  skipped ' &&
	fail "check invents reasons for an old profile"

# --- options -----------------------------------------------------------
mkdir "$T/r4"
"$IOTAPE" replay "$T/full.iotape" --root "$T/r4" -t afap --include /no/such/prefix >/dev/null 2>"$T/err"
grep -q 'no recorded call names a path under --include /no/such/prefix' "$T/err" ||
	fail "--include naming no recorded path was not warned about: $(cat "$T/err")"
"$IOTAPE" replay "$T/full.iotape" --root "" 2>"$T/err"
[ $? = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "--root \"\": $(cat "$T/err")"
"$IOTAPE" replay "$T/full.iotape" --root "$T/r4" --bogus 2>"$T/err"
[ $? = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "unknown option '--bogus'" "$T/err" ||
	fail "--bogus: $(cat "$T/err")"
cp "$T/full.iotape" "$T/same.iotape"
"$IOTAPE" replay "$T/same.iotape" --root "$T/r4" --force -o "$T/same.iotape" 2>"$T/err"
[ $? = 2 ] || fail "replay -o naming its own trace: $(cat "$T/err")"
cmp -s "$T/full.iotape" "$T/same.iotape" || fail "replay -o naming its own trace changed it"
echo ok
