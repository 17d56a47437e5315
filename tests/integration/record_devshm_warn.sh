#!/bin/bash
# record_devshm_warn.sh - a workload run under /dev/shm (a tmpfs, but
# under /dev, which a replay leaves out) is recorded, and its files are
# not replayed: 'record' says so before the program starts, 'replay' when
# it plans such a trace.  The same workload in /tmp gets neither warning.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record_lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot record here"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"

S=$(mktemp -d /dev/shm/iotape-shm.XXXXXX)
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-shm.XXXXXX")
trap 'rm -rf "$S" "$T"' EXIT
work='for i in 1 2 3 4 5 6 7 8; do echo $i >f$i; cat f$i >/dev/null; done; rm f1'

(cd "$S" && "$IOTAPE" record -o "$T/shm.iotape" -- sh -c "$work") 2>"$T/rec.err" ||
	fail "recording under /dev/shm failed: $(cat "$T/rec.err")"
grep -q "working directory $S is under /dev, which a replay leaves out" "$T/rec.err" ||
	fail "record did not say that $S is left out of a replay: $(cat "$T/rec.err")"
mkdir "$T/r1"
"$IOTAPE" replay "$T/shm.iotape" --root "$T/r1" --timing afap >"$T/rep.out" 2>"$T/rep.err" ||
	fail "replay failed: $(cat "$T/rep.err")"
grep -q "recorded calls name paths under /dev/shm, which the replay leaves out" "$T/rep.err" ||
	fail "replay did not say that the /dev/shm calls are left out: $(cat "$T/rep.err")"
[ ! -e "$T/r1$S" ] || fail "the replay made $S in its root"

mkdir "$T/w"
(cd "$T/w" && "$IOTAPE" record -o "$T/tmp.iotape" -- sh -c "$work") 2>"$T/rec2.err" ||
	fail "recording in $T/w failed: $(cat "$T/rec2.err")"
grep -q "under /dev" "$T/rec2.err" && fail "record warned about /dev for $T/w: $(cat "$T/rec2.err")"
mkdir "$T/r2"
"$IOTAPE" replay "$T/tmp.iotape" --root "$T/r2" --timing afap >"$T/rep2.out" 2>"$T/rep2.err" ||
	fail "replay of the /tmp recording failed: $(cat "$T/rep2.err")"
grep -q "/dev/shm" "$T/rep2.err" && fail "replay warned about /dev/shm for $T/w: $(cat "$T/rep2.err")"
[ -e "$T/r2$T/w/f8" ] || fail "the replay of the /tmp recording did not make f8"
echo "ok: record and replay say that a workload under /dev/shm is not replayed, and stay quiet elsewhere"
