#!/bin/bash
# iotape validate on tmpfs and a loop ext4, one run each, with a workload of
# known structure: a sleep before the first phase mark, phases "a" and "b"
# of known sleeps.  The table has the rows (start), a, b, total and a column
# per filesystem, the native times are at least the sleeps, the exit status
# agrees with the totals; nothing is left mounted or attached, also after
# SIGINT in the middle; a command that fails (recorded or natively) is
# refused with its status.  With --recordings 2 on tmpfs, the two
# recordings are named with their own times and their replays'.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root_loop
need_cmd mkfs.ext4
need_cmd python3
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
# mark a as 'iotape validate --help' shows (the line "NAME", stamped by
# validate as it comes), mark b in the older form with its own time
cat >"$T/w.sh" <<'W'
mark() {
	test -e "/dev/null/iotape-phase/$1" || :
	[ -z "${IOTAPE_PHASE_LOG:-}" ] || echo "$1" >>"$IOTAPE_PHASE_LOG"
}
sleep 0.3
mark a
head -c 200000 /dev/zero >f1
sleep 0.2
test -e /dev/null/iotape-phase/b || :
[ -z "${IOTAPE_PHASE_LOG:-}" ] || echo "b $(date +%s.%N)" >>"$IOTAPE_PHASE_LOG"
cat f1 >f2
sleep 0.4
W
"$IOTAPE" validate --fs tmpfs,ext4 --runs 1 --scratch "$T" --keep "$T/keep" --html "$T/v.html" \
	-- sh "$T/w.sh" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
[ $rc = 0 ] || [ $rc = 6 ] || fail "validate exited $rc, expected 0 or 6"
# the text table: a row per phase in order, then the total
rows=$(awk 'NR > 2 && NF == 0 { exit } NR > 2 { print $1 }' "$T/out" | tr '\n' ' ')
[ "$rows" = "(start) a b total " ] || fail "rows are '$rows', expected '(start) a b total '"
head -1 "$T/out" | grep -q 'tmpfs.*ext4' || fail "no columns for tmpfs and ext4"
# a workload this small still gets filesystems of the size it was
# recorded on (4 GiB), not a few hundred MiB, where filesystems run short
# of space
grep -q 'filesystems of 4096 MiB' "$T/err" || fail "images not of 4 GiB: $(grep 'filesystems of' "$T/err")"
grep -q '^totals within 5 %: [0-2]/2' "$T/out" || fail "no summary of the 2 totals"
[ -s "$T/keep/trace.iotape" ] || fail "no trace kept"
# each native run's marks are kept as "NAME SECONDS" lines, the FIFO gone
for f in "$T"/keep/native-tmpfs-1.phases "$T"/keep/native-ext4-1.phases; do
	[ -f "$f" ] && [ ! -p "$f" ] || fail "$f is not a file of the run's marks"
	awk 'NF != 2 || $2 !~ /^[0-9]+\.[0-9]+$/ { exit 1 } END { exit NR != 2 }' "$f" ||
		fail "$f does not hold the marks a and b with their times: $(cat "$f")"
	[ "$(cut -d' ' -f1 "$f" | tr '\n' ' ')" = "a b " ] || fail "$f: marks not a, b: $(cat "$f")"
done
grep -q '<th colspan="7">ext4</th>' "$T/v.html" || fail "the HTML page has no ext4 column (with afap %)"
grep -q 'afap%' "$T/out" || fail "the table has no afap% column"
grep -q 'ext4: replay --timing afap: [0-9.]* s' "$T/err" || fail "the afap replay is not said"
[ -s "$T/keep/replay-ext4-afap/ext4.1.iotape" ] || fail "no afap profile kept"
[ "$(grep -c '<tr><td>' "$T/v.html")" = 4 ] || fail "the HTML page does not have 4 rows"
[ -s "$T/keep/replay-ext4-1/ext4.1.iotape" ] || fail "no replay profile kept"
python3 - "$T/keep/table.json" "$rc" "$T/out" <<'PY' || fail "table.json does not hold what the run measured"
import json, sys
t = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in t["rows"]}
assert [r["name"] for r in t["rows"]] == ["(start)", "a", "b", "total"], t["rows"]
assert t["filesystems"] == ["tmpfs", "ext4"] and t["runs"] == 1
for fs in ("tmpfs", "ext4"):
    nat = {n: rows[n]["cells"][fs]["native"] for n in rows}
    # each phase lasts at least its sleep; the total at least all three
    assert nat["(start)"][0] >= 0.3 and nat["a"][0] >= 0.2 and nat["b"][0] >= 0.4, nat
    parts = nat["(start)"][0] + nat["a"][0] + nat["b"][0]
    assert abs(parts - nat["total"][0]) < 1e-6, (parts, nat["total"])
    rep = rows["total"]["cells"][fs]
    assert len(rep["replay"]) == 1 and rep["replay"][0] > 0, rep
    # the programs map their libraries and write to descriptors they
    # inherited: neither is replayed, and the table counts them
    assert rep["skipped"] > 0, rep
    # one replay --timing afap: the 0.9 s of sleeps not slept, so far
    # below the native run, and no floor
    assert len(rep["afap"]) == 1 and 0 < rep["afap"][0] < nat["total"][0] / 2, rep
    assert rep["afap_error_pct"] < -50 and rep["floor"] is False, rep
ok = int(sys.argv[2]) == 0
assert t["ok"] == ok, (t["ok"], ok)
# the CPU time of the recording and of each native run (its rusage: the
# programs ran, so more than none)
cpu = t["cpu"]
assert len(cpu["recorded"]) == 1 and cpu["recorded"][0] >= 0, cpu
for fs in ("tmpfs", "ext4"):
    assert len(cpu["native"][fs]) == 1 and cpu["native"][fs][0] > 0, cpu
    assert 0 <= cpu["native_user"][fs][0] <= cpu["native"][fs][0], cpu
assert 0 <= cpu["recorded_user"][0] <= cpu["recorded"][0], cpu
assert cpu["recorded_vs_native"] is not None, cpu
# why a total misses: every filesystem's entry, a line under the table for
# each that misses (and none where none does)
text = open(sys.argv[3]).read()
misses = 0
for fs in ("tmpfs", "ext4"):
    w, e = t["why"][fs], rows["total"]["cells"][fs]["error_pct"]
    assert w["miss"] == (abs(e) > 5), (fs, w, e)
    # the sleeps are the timing: most of the replay
    assert 0.5 < w["timing_share"] <= 1, w
    assert set(w["causes"]) <= {"recording", "replayer", "noise"}, w
    if w["miss"]:
        misses += 1
        assert ("\n  %s %+.1f %%: " % (fs, e)) in text, (fs, e)
assert ("why the totals that miss, miss" in text) == (misses > 0), misses
PY
grep -q "^CPU time (user + system of the command's processes): recorded [0-9.]* s; native tmpfs [0-9.]* s" \
	"$T/out" || fail "the table does not say the CPU time of the recording and the native runs"
no_leftovers "$T"

# --recordings 2: recorded twice, the second between the native runs, each
# replayed in turn; the lines under the table name both recordings with
# their own time and their replay's, and table.json holds the same
# (--no-afap: no afap replay, no column)
"$IOTAPE" validate --fs tmpfs --record-on tmpfs --runs 2 --recordings 2 --scratch "$T" \
	--no-afap --keep "$T/keep2" -- sh -c 'echo x >f; sleep 0.2' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
[ $rc = 0 ] || [ $rc = 6 ] || fail "validate --recordings 2 exited $rc, expected 0 or 6"
grep -q 'afap' "$T/out" "$T/err" && fail "--no-afap: an afap replay or column"
[ -e "$T/keep2/replay-tmpfs-afap" ] && fail "--no-afap: an afap replay was made"
grep -q 'recording 2/2: [0-9.]* s' "$T/err" || fail "the second recording is not said"
grep -q 'tmpfs: replay 2/2 (recording 2): ' "$T/err" || fail "replay 2 is not of recording 2"
[ -s "$T/keep2/trace.iotape" ] && [ -s "$T/keep2/trace-2.iotape" ] || fail "two traces not kept"
awk '$1 == "recording" { on = 1; next } on && NF == 3 { print }' "$T/out" >"$T/recs"
[ "$(awk '$1 == 1 || $1 == 2' "$T/recs" | wc -l)" = 2 ] || fail "no line for each recording: $(cat "$T/recs")"
awk '($1 == 1 || $1 == 2) && !($2 >= 0.2 && $3 >= 0.2) { exit 1 }' "$T/recs" ||
	fail "a recording's own time or its replay's is not the sleep's at least: $(cat "$T/recs")"
grep -q '^+-%' "$T/recs" || fail "no spread of the recordings"
python3 - "$T/keep2/table.json" <<'PY' || fail "table.json does not hold the two recordings"
import json, sys
t = json.load(open(sys.argv[1]))
recs = t["recordings"]
assert len(recs) == 2, recs
for r in recs:
    assert r["total"] >= 0.2, r
    assert len(r["replays"]["tmpfs"]["runs"]) == 1 and r["replays"]["tmpfs"]["median"] >= 0.2, r
assert t["recordings_spread"] is not None and t["recordings_replay_spread"]["tmpfs"] is not None
assert len(t["cpu"]["recorded"]) == 2 and len(t["cpu"]["native"]["tmpfs"]) == 2, t["cpu"]
PY
no_leftovers "$T"
"$IOTAPE" validate --runs 2 --recordings 3 -- true 2>/dev/null; [ $? = 2 ] ||
	fail "--recordings 3 with --runs 2: not a usage error"
"$IOTAPE" validate --recordings 2 --trace "$T/keep2/trace.iotape" -- true 2>/dev/null; [ $? = 2 ] ||
	fail "--recordings 2 with --trace: not a usage error"

# a command that fails is refused with its status: when recorded, and when
# it fails only natively ($IOTAPE_PHASE_LOG is set in native runs only)
"$IOTAPE" validate --fs tmpfs --runs 1 --scratch "$T" -q -- sh -c 'exit 3' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 7 ] || fail "a failing command: exit $rc, expected 7"
grep -q 'exited with status 3 while recorded' "$T/err" || fail "the status is not said"
"$IOTAPE" validate --fs tmpfs --runs 1 --scratch "$T" -q -- \
	sh -c 'test -z "$IOTAPE_PHASE_LOG"' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 7 ] || fail "a command failing natively: exit $rc, expected 7"
grep -q 'exited with status 1 natively on tmpfs' "$T/err" || fail "the native failure is not said"
[ -s "$T/out" ] && fail "a table was printed for a refused command"
"$IOTAPE" validate --fs tmpfs --runs 1 --scratch "$T" -q --setup 'exit 4' -- true 2>"$T/err"
rc=$?
[ $rc = 7 ] || fail "a failing --setup: exit $rc, expected 7"
no_leftovers "$T"

# bad command lines
# a command that leaves a daemon to do its work (a server's script: the
# daemon in a session of its own, the command gone at once): a recording
# follows the daemon to its end, and so must a native run, its CPU time
# counted (a loop of 300,000 shell additions, ~0.2-0.5 s here; the command
# alone uses a few ms)
cat >"$T/d.sh" <<'W'
setsid sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; echo $i >daemon.out' \
	</dev/null >/dev/null 2>&1 &
exit 0
W
"$IOTAPE" validate --fs tmpfs --record-on tmpfs --runs 1 --scratch "$T" --keep "$T/keepd" -q \
	-- sh "$T/d.sh" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || [ $rc = 6 ] || { cat "$T/out" "$T/err"; fail "validate of a daemon's work exited $rc"; }
python3 - "$T/keepd/table.json" <<'PY' || { cat "$T/out"; fail "the daemon's CPU time is not the native run's"; }
import json, sys
cpu = json.load(open(sys.argv[1]))["cpu"]
rec, nat = cpu["recorded"][0], cpu["native"]["tmpfs"][0]
# the daemon's loop is in both, or the native run stopped at the command's end
assert rec > 0.05 and nat > 0.05 and nat > rec / 4, cpu
PY
"$IOTAPE" dump "$T/keepd/trace.iotape" | grep -q 'daemon.out' || fail "the recording did not follow the daemon"
no_leftovers "$T"
echo "a daemon's work: its CPU time counted natively as recorded"

# a command whose work is not the same from run to run (a counter kept
# outside: its first run, the recording, copies 20 blocks, each later one
# 20,000): the table says how many reads each made, natively as the kernel
# counts them, and puts the replay's miss (fast: it repeats the
# recording's 20) at the command's own work
cat >"$T/c.sh" <<W
mark() {
	test -e "/dev/null/iotape-phase/\$1" || :
	[ -z "\${IOTAPE_PHASE_LOG:-}" ] || echo "\$1" >>"\$IOTAPE_PHASE_LOG"
}
n=\$(cat "$T/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/count"
if [ "\$n" = 0 ]; then k=20; else k=20000; fi
mark copy
dd if=/dev/zero of=/dev/null bs=64k count=\$k 2>/dev/null
mark end
echo done >out
W
"$IOTAPE" validate --fs tmpfs --record-on tmpfs --runs 2 --no-afap --scratch "$T" \
	--keep "$T/keepc" -- sh "$T/c.sh" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 6 ] || { cat "$T/out" "$T/err"; fail "validate of a command doing other work natively exited $rc, expected 6"; }
python3 - "$T/keepc/table.json" <<'PY' || { cat "$T/out"; fail "the reads are not counted, or the miss not put at them"; }
import json, sys
t = json.load(open(sys.argv[1]))
io = t["io"]
rec = io["recorded"][0]
assert len(io["native"]["tmpfs"]) == 2, io
for n in io["native"]["tmpfs"]:
    # dd's 20,000 reads of 64 KiB, and the shell's few
    assert 20000 <= n["reads"] < 20000 + 200, n
    assert n["bytes_read"] >= 20000 * 65536, n
# the recording's 20 and the shell's, its execs counted
assert 20 <= rec["reads"] < 200 and rec["execs"] >= 3, rec
# dd writes each block to /dev/null: its writes too
for k in ("reads", "bytes_read", "writes", "bytes_written"):
    assert k in io["apart"], io
w = t["why"]["tmpfs"]
assert w["miss"] and "work" in w["causes"], w
# the phase "copy" (dd alone): its reads natively counted at the marks
ph = {p["name"]: p for p in io["phases"]}
assert set(ph) == {"(start)", "copy", "end"}, ph.keys()
for n in ph["copy"]["native"]["tmpfs"]:
    assert 20000 <= n["reads"] < 20000 + 100 and n["writes"] >= 20000, n
assert ph["copy"]["recorded"][0]["reads"] < 100, ph["copy"]
assert "reads" in ph["copy"]["apart"], ph["copy"]
# the other phases copy nothing
for p in ("(start)", "end"):
    for n in ph[p]["native"]["tmpfs"] + ph[p]["recorded"]:
        assert n["reads"] < 100 and n["writes"] < 100, (p, n)
PY
grep -q "^Reads and writes of the command's processes (recorded: its read- and write-family calls; native: as the kernel counts them, /proc/PID/io; 2 runs): read calls recorded [0-9]*, native 200[0-9][0-9] " "$T/out" ||
	{ cat "$T/out"; fail "the table does not say the reads of the recording and the native runs"; }
grep -q "^  phase copy: read calls recorded [0-9]*, native 200[0-9][0-9] (200[0-9][0-9] to 200[0-9][0-9]) -99" "$T/out" ||
	{ cat "$T/out"; fail "the phase's reads are not said"; }
grep -q "^  tmpfs -[0-9.]* %: .*the command's own work: the recording's [a-zA-Z ]* [0-9.]*, the native runs' [0-9.]* to [0-9.]* (-99" "$T/out" ||
	{ cat "$T/out"; fail "the miss is not put at the command's own work"; }
no_leftovers "$T"
echo "a command doing other work natively: its reads counted, the miss put at them"

"$IOTAPE" validate --fs nofs -- true 2>/dev/null; [ $? = 2 ] || fail "--fs nofs: not a usage error"
"$IOTAPE" validate --runs 0 -- true 2>/dev/null; [ $? = 2 ] || fail "--runs 0: not a usage error"
"$IOTAPE" validate --fs ext4 2>/dev/null; [ $? = 2 ] || fail "no COMMAND: not a usage error"
"$IOTAPE" validate --backend strace -- true 2>/dev/null; [ $? = 2 ] ||
	fail "--backend strace: not a usage error"

# --backend bpf records with the BPF backend, where it loads here
if "$IOTAPE" record -q --backend bpf -o "$T/probe.iotape" -- true 2>/dev/null; then
	"$IOTAPE" validate --fs tmpfs --runs 1 --record-on tmpfs --backend bpf --scratch "$T" \
		--keep "$T/keep-bpf" -q -- sh -c 'echo x >f' >"$T/out" 2>&1
	rc=$?
	[ $rc = 0 ] || [ $rc = 6 ] || fail "validate --backend bpf exited $rc: $(cat "$T/out")"
	"$IOTAPE" dump "$T/keep-bpf/trace.iotape" | grep -q '^# record.backend bpf' ||
		fail "validate --backend bpf did not record with bpf"
	no_leftovers "$T"
fi

# SIGINT in the middle: everything is undone, exit 130
"$IOTAPE" validate --fs ext4,tmpfs --runs 5 --scratch "$T" -- sh "$T/w.sh" >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 300); do
	grep -q 'ext4: native run 1/5' "$T/err" 2>/dev/null && break
	sleep 0.1
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
cat "$T/err"
[ $rc = 130 ] || fail "validate after SIGINT exited $rc, expected 130"
grep -q 'interrupted by signal 2' "$T/err" || fail "the interruption is not said"
pgrep -f "$T/w.sh" >/dev/null && fail "the workload still runs: $(pgrep -af "$T/w.sh")"
no_leftovers "$T"
echo "ok"
