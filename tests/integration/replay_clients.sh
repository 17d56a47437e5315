#!/bin/bash
# replay_clients.sh - replay --clients N: record a small real workload
# (cp -a, tar c/x, chmod, ln -s, rm -rf), replay it once and as 4 clients
# at once; the profile of the 4 holds exactly 4x the calls of one, each
# client's tree ROOT/client-i equals the single replay's (paths, types,
# sizes, modes), report --by client splits it, diff shows the client
# table.  A hostile trace that climbs to "/../client-0" from every client
# stays in each client's own tree.  A client killed mid-run is named, the
# others are stopped, nothing is left running.
set -u
. "$(dirname "$0")/lib.sh"
"$IOTAPE" record --help >/dev/null 2>&1 || skip "recorder not built"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
need_cmd tar

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-clients.XXXXXX")
trap 'rm -rf "$T"' EXIT


A=$T/A
mkdir -p "$A"
mk_tree "$A/src" 24
(cd "$A" && "$IOTAPE" record -q -o "$T/w.iotape" -- sh -c \
	'cp -a src dst && tar cf t.tar dst && mkdir out && tar xf t.tar -C out &&
	 chmod 0640 out/dst/f6.c && ln -s out/dst lnk && rm -rf dst') ||
	fail "recording the workload failed"

mkdir "$T/one" "$T/many"
"$IOTAPE" replay "$T/w.iotape" --root "$T/one" --timing afap -o "$T/one.prof" -q ||
	fail "single replay failed"
"$IOTAPE" replay "$T/w.iotape" --root "$T/many" --clients 4 --timing afap \
	-o "$T/many.prof" >"$T/many.out" 2>&1 || { cat "$T/many.out"; fail "replay --clients 4 failed"; }
cat "$T/many.out"
grep -q "clients      4" "$T/many.out" || fail "the summary does not name the 4 clients"

one=$(events "$T/one.prof") many=$(events "$T/many.prof")
[ -n "$one" ] && [ "$one" -gt 100 ] || fail "single profile: $one events"
[ "$many" = $((4 * one)) ] || fail "4 clients: $many events, expected 4 x $one"
echo "ok: one profile of 4 clients, $many = 4 x $one events"

# why calls were skipped: the merged profile's reasons are the four
# clients' summed (4 x the single profile's)
why1=$("$IOTAPE" check "$T/one.prof" | sed -n 's/^  skipped      \(.*\): calls the replay.*/\1/p')
why4=$("$IOTAPE" check "$T/many.prof" | sed -n 's/^  skipped      \(.*\): calls the replay.*/\1/p')
[ -n "$why1" ] || fail "check of the single profile gives no reasons for its skipped calls"
want=$(echo "$why1" | awk -v RS=', ' '{ n = $NF; $NF = ""; printf "%s%s%d", sep, $0, 4 * n; sep = ", " }')
[ "$why4" = "$want" ] || fail "the merged profile's reasons: '$why4', not '$want'"
echo "ok: skipped by reason, 4 clients: $why4"

[ "$(ls "$T/many" | tr '\n' ' ')" = "client-0 client-1 client-2 client-3 " ] ||
	fail "ROOT holds more than the clients' trees: $(ls "$T/many")"
listing "$T/one$A" >"$T/one.list"
[ "$(wc -l <"$T/one.list")" -gt 40 ] || fail "the single replay left too small a tree"
for i in 0 1 2 3; do
	listing "$T/many/client-$i$A" >"$T/c$i.list"
	diff -u "$T/one.list" "$T/c$i.list" || fail "client $i's tree differs from the single replay's"
done
echo "ok: four trees equal to the single replay's ($(wc -l <"$T/one.list") entries)"

"$IOTAPE" report "$T/many.prof" --by client >"$T/rep" || fail "report --by client failed"
cat "$T/rep"
for i in 0 1 2 3; do
	grep -Eq "^  client $i +$one " "$T/rep" || fail "report --by client: client $i has not $one calls"
done
grep -q "^4 clients: [0-9]* ops/s" "$T/rep" || fail "report --by client: no throughput line"
"$IOTAPE" report "$T/many.prof" --by client --json | grep -q '"client": 3, "count": '"$one" ||
	fail "report --by client --json: no client 3 with $one calls"
# report of the whole: phases are the workload's, with every client's calls
"$IOTAPE" report "$T/many.prof" --by phase | grep -E "^  total " | grep -q " $many " ||
	fail "report --by phase: the total is not $many calls"
"$IOTAPE" diff "$T/one.prof" "$T/many.prof" >"$T/diff" || fail "diff failed"
grep -A3 "^clients " "$T/diff" | grep -Eq " +4 +[0-9]+ +[0-9]+ " ||
	{ cat "$T/diff"; fail "diff: no client table with 4 clients"; }
echo "ok: report --by client, diff's client table"

# a hostile trace aimed at "/../client-0": each client stays in its tree
W=$SRCDIR/$BUILD/tests/unit/test_replay_hostile
if [ -x "$W" ]; then
	"$W" --write "$T/h.iotape" /../client-0 || fail "cannot write the hostile trace"
	mkdir "$T/h"
	timeout 120 "$IOTAPE" replay "$T/h.iotape" --root "$T/h" --clients 2 --timing afap \
		--sparse-prepare -q >"$T/h.out" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$T/h.out"; fail "hostile replay --clients 2 exited $rc"; }
	[ "$(ls "$T/h" | tr '\n' ' ')" = "client-0 client-1 " ] ||
		fail "the hostile trace made something beside the clients: $(ls "$T/h")"
	listing "$T/h/client-0" | grep -v '^big ' >"$T/h0"
	listing "$T/h/client-1" | grep -v '^big ' >"$T/h1"
	grep -q "^client-0" "$T/h1" || fail "client 1's climb to /../client-0 did not land in its own tree"
	diff -u "$T/h0" "$T/h1" || fail "client 1 reached client 0's tree (the trees differ)"
	echo "ok: /../client-0 from client 1 stays in client 1's tree"
fi

# a client killed mid-run: named, the others stopped, no process left
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
(cd "$A" && "$IOTAPE" record -q -o "$T/slow.iotape" -- /usr/bin/python3 -c '
import time
open("a", "w").close()
for i in range(40):
    time.sleep(0.1)
    open("x%d" % i, "w").close()
open("b", "w").close()') || fail "recording the slow workload failed"
mkdir "$T/k"
# --timing raw keeps the sleeps (original fits think time to CPU time)
timeout 60 "$IOTAPE" replay "$T/slow.iotape" --root "$T/k" --clients 3 -o "$T/k.prof" --timing raw \
	>"$T/k.out" 2>&1 &
bg=$!
for _ in $(seq 100); do
	[ -e "$T/k/client-2$A/a" ] && break
	sleep 0.1
done
main=$(pgrep -P $bg)
kids=$(pgrep -P "$main")
[ "$(echo "$kids" | wc -w)" = 3 ] || fail "expected 3 client processes, found: $kids"
victim=$(echo "$kids" | sed -n 2p)
kill -9 "$victim"
wait $bg
rc=$?
cat "$T/k.out"
[ $rc = 1 ] || fail "a killed client: exit $rc, expected 1"
grep -Eq "client [0-9] \(pid $victim\) was killed by SIGKILL; stopping the other clients" "$T/k.out" ||
	fail "no message naming the killed client"
for p in $main $kids; do
	kill -0 "$p" 2>/dev/null && fail "process $p is left running"
done
[ -e "$T/k/client-0$A/b" ] && fail "the other clients were not stopped (client 0 finished)"
echo "ok: a killed client is named, the others are stopped, nothing is left"
