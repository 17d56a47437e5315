#!/bin/bash
# replay_dotdot_rename.sh - chdirs through ".." while another process
# renames (tests/progs/dotdot_rename, 20,000 rounds): the replay looks
# "d/s/.." up with openat2 and RESOLVE_IN_ROOT, which fails a ".." step
# with EAGAIN when a rename or mount runs anywhere meanwhile, to be tried
# again; the replay took it as the answer (5-3,838 mismatches in 10 of 12
# replays; namazu's chdirs 1 replay in 9, a stat in rdiff-backup's).  Now
# it tries again.  Recorded with the default backend, replayed 3 times
# while the renames replay beside.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/dotdot_rename" ] || fail "$PROGS/dotdot_rename is not built (make tests)"
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w"
"$IOTAPE" record -q -o "$T/t.iotape" -- "$PROGS/dotdot_rename" "$T/w" 20000 || fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" | grep -q "chdir(\"$T/w/d/s/\.\.\") = 0" ||
	fail "the trace holds no chdir through d/s/.."
rm -rf "$T/w"
for i in 1 2 3; do
	rm -rf "$T/r" && mkdir "$T/r"
	WHY="a lookup through .. failed" \
		replay_clean "round $i" "$T/t.iotape" "$T/r" "$T/out" --timing afap
done
echo "ok: 40,000 chdirs through .. beside 20,000 renames, 0 mismatches in 3 replays"
