#!/bin/bash
# mpi_clients.sh - iotape-mpi under mpirun, ranks on this one host
# (--oversubscribe): 2 ranks replay a recorded workload as 2 clients and
# rank 0 writes one profile with both (2x the calls of one replay, each
# rank's tree equal to a single replay's); a rank killed mid-run ends the
# launch with a message naming it, within a bound, with no process and no
# file of the run left behind.
set -u
. "$(dirname "$0")/lib.sh"
MPI=$SRCDIR/$BUILD/iotape-mpi
need_cmd mpirun
[ -x "$MPI" ] || fail "iotape-mpi is not built although mpirun is here (is mpicc missing?)"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one host, no network to speak of: loopback TCP and shared memory only
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT

A=$T/A
mkdir -p "$A"
mk_tree "$A/src" 16
(cd "$A" && "$IOTAPE" record -q -o "$T/w.iotape" -- sh -c \
	'cp -a src dst && tar cf t.tar dst && rm -rf src') || fail "recording the workload failed"
mkdir "$T/one" "$T/r"
"$IOTAPE" replay "$T/w.iotape" --root "$T/one" --timing afap -q -o "$T/one.prof" ||
	fail "single replay failed"
timeout 120 $MPIRUN -np 2 "$MPI" replay "$T/w.iotape" --root "$T/r" --timing afap \
	-o "$T/mpi.prof" >"$T/mpi.out" 2>&1
rc=$?
cat "$T/mpi.out"
[ $rc = 0 ] || fail "mpirun -np 2 iotape-mpi replay: exit $rc"
one=$(events "$T/one.prof") two=$(events "$T/mpi.prof")
[ -n "$one" ] && [ "$one" -gt 100 ] || fail "single profile: $one events"
[ "$two" = $((2 * one)) ] || fail "2 ranks: $two events in rank 0's profile, expected 2 x $one"
"$IOTAPE" report "$T/mpi.prof" --by client >"$T/rep" || fail "report --by client failed"
grep -Eq "^  client 1 +$one " "$T/rep" || { cat "$T/rep"; fail "client 1 is not in the profile"; }
[ "$(ls "$T/r" | tr '\n' ' ')" = "client-0 client-1 " ] || fail "the ranks' roots: $(ls "$T/r")"
listing "$T/one$A" >"$T/one.list"
for i in 0 1; do
	listing "$T/r/client-$i$A" | diff -u "$T/one.list" - || fail "rank $i's tree differs"
done
echo "ok: 2 ranks, one profile on rank 0 with both ($two = 2 x $one events)"

# a rank killed mid-run: --timing raw keeps the recorded sleeps
(cd "$A" && "$IOTAPE" record -q -o "$T/slow.iotape" -- /usr/bin/python3 -c '
import time
open("a", "w").close()
for i in range(40):
    time.sleep(0.1)
    open("x%d" % i, "w").close()') || fail "recording the slow workload failed"
mkdir "$T/k"
timeout 60 $MPIRUN -np 2 "$MPI" replay "$T/slow.iotape" --root "$T/k" --timing raw \
	-o "$T/k.prof" >"$T/k.out" 2>&1 &
bg=$!
for _ in $(seq 200); do
	[ -e "$T/k/client-1$A/a" ] && [ -e "$T/k/client-0$A/a" ] && break
	sleep 0.1
done
victim=
for p in $(pgrep -f "iotape-mpi replay $T/slow.iotape"); do
	tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
done
[ -n "$victim" ] || { kill $bg; fail "rank 1 not found"; }
kill -9 "$victim"
wait $bg
rc=$?
cat "$T/k.out"
[ $rc != 0 ] || fail "a killed rank: mpirun exited 0"
[ $rc != 124 ] || fail "a killed rank: the launch did not end (timeout)"
grep -Eiq "rank 1 .*(killed|signal 9)" "$T/k.out" || fail "no message naming the killed rank"
sleep 1
pgrep -f "iotape-mpi replay $T/slow.iotape" && fail "a rank is left running"
[ -e "$T/k.prof" ] && fail "a profile was written for a launch that failed"
[ "$(ls "$T/k" | tr '\n' ' ')" = "client-0 client-1 " ] || fail "something beside the ranks' roots: $(ls "$T/k")"
echo "ok: a killed rank ends the launch (exit $rc), named, nothing left"
