#!/bin/sh
# validate_suite.sh - 'make validate-suite': 'iotape validate' on a suite
# of real workloads (tests/validate/*.sh), each recorded on one filesystem
# and compared, native runs against replays, on the others.
#
#   RUNS=3 (default)        native runs and replays per filesystem
#   RECS=N                  record each workload N times (default 1, at
#                           most RUNS): --recordings N, replayed in turn
#   CACHE=cold|hot          (default cold)
#   FS=ext4,xfs,btrfs       (default) the filesystems compared
#   ONLY="sqlite fio"       only these workloads
#   BACKEND=B               record with --backend B (default: auto, which
#                           is bpf where it loads)
#   RECORD_ON=FS            record every workload on FS instead of the
#                           filesystem the list gives it
#   TRACES=DIR              do not record: replay DIR/NAME/trace.iotape,
#                           kept by an earlier suite's OUT (validate
#                           --trace), so that two versions of the replayer
#                           are judged on the same traces
#   OUT=DIR                 where the tables go (default: a new
#                           /var/tmp/iotape-suite-out.XXXXXX); per workload
#                           NAME.txt (the table), NAME/ (trace, profiles,
#                           table.json); summary.txt at the end
#   INPUTS=DIR              make the inputs in DIR, or take those an earlier
#                           run made there, and keep them
#   TOUCH_MB=8192           memory written once before the first run (where
#                           free page reporting is stopped; 0: none)
# The inputs (a source tree of ~3,500 files from /usr/include and
# /usr/share/perl, its .tar.xz, a larger tree with /usr/lib/python3.11 and
# a git repository of that, iotape's own sources) are made once per run in
# a directory of their own.  Needs root.
set -eu
BUILD=${BUILD:-build}
IOTAPE=$PWD/$BUILD/iotape
RUNS=${RUNS:-3}
RECS=${RECS:-1}
CACHE=${CACHE:-cold}
FS=${FS:-ext4,xfs,btrfs}
SUITE=$PWD/tests/validate
[ "$(id -u)" = 0 ] || { echo "validate-suite: needs root (loop filesystems); run as root" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d /var/tmp/iotape-suite-out.XXXXXX)}
mkdir -p "$OUT"
if [ -n "${INPUTS:-}" ]; then
	IN=$INPUTS keep_in=1
	mkdir -p "$IN"
else
	IN=$(mktemp -d /var/tmp/iotape-suite-in.XXXXXX) keep_in=
fi

# Two things of this kind of VM make run times wander by tens of percent
# within minutes, whatever the workload: free page reporting (memory the
# guest frees goes back to the host, and its next use faults there) and a
# DAMON scheme that pages out memory it finds cold (here it kept the page
# cache at 50-80 MB, programs' own pages among what it pushed out).  Both
# are stopped for the suite and put back as they were when it ends.
# Free page reporting: stopped, and TOUCH_MB of memory written once
# (steady_memory(), tools/validate_lib.sh, as make validate does): memory
# reported to the host before the stop is still the host's, its first use
# faults there, and the first run to write that much took it (a dd of
# 384 MiB into the page cache took 3.0 s once, 0.09-0.14 s after,
# natively and recorded alike; seq's recording used 3.58 s of CPU against
# its native runs' 0.25 s).
NAME=validate-suite
M=$(mktemp -d /tmp/iotape-suite-touch.XXXXXX)
IMG=		# no loop image: cleanup() removes none
. tools/validate_lib.sh
damon_on=
restore_machine() {
	cleanup
	rmdir "$M" 2>/dev/null || true
	[ -z "$pr_old" ] || echo "$pr_old" >$PR
	for k in $damon_on; do echo on >"$k/state" 2>/dev/null || echo "validate-suite: could not restart $k" >&2; done
	[ -z "$pr_old$damon_on" ] || echo "validate-suite: free page reporting and DAMON put back as they were"
}
steady_memory "${TOUCH_MB:-8192}"
for k in /sys/kernel/mm/damon/admin/kdamonds/*; do
	[ -w "$k/state" ] && [ "$(cat "$k/state")" = on ] || continue
	grep -qx pageout "$k"/contexts/*/schemes/*/action 2>/dev/null || continue
	echo off >"$k/state" && damon_on="$damon_on $k" &&
		echo "validate-suite: DAMON ${k##*/} (a pageout scheme) stopped until the end"
done
trap '[ -n "$keep_in" ] || rm -rf "$IN"; restore_machine' EXIT
trap 'exit 130' INT TERM

# workload and the filesystem it is recorded on: ext4 mostly, and tmpfs,
# btrfs and xfs at least once each (the six before the last three of the
# third line were added on 2026-12-04, measured before any change was made
# for them; so were those three, later that day, and the four of the last
# line on 2026-12-05 morning, the next line's four that afternoon, and
# the last line's one that night)
WORKLOADS="postmark:ext4 fsync:ext4 gitclone:ext4 compileall:ext4 sqlite:btrfs fio:ext4
seq:ext4 tarxz:ext4 rsync:btrfs configure:tmpfs mozilla:ext4 make:tmpfs
gobuild:xfs zip:ext4 grep:btrfs repack:ext4 sort:tmpfs zstdpipe:ext4
javac:btrfs linkfarm:xfs patch:ext4
rmtree:btrfs setattr:ext4 sqlmmap:xfs gitstatus:ext4
gitswitch:ext4 gzipp:xfs hashsum:btrfs tarover:tmpfs
sqlwriters:ext4"

echo "validate-suite: inputs in $IN, tables in $OUT"
if [ -f "$IN/.made" ]; then
	echo "validate-suite: the inputs of an earlier run (INPUTS)"
else
	mkdir -p "$IN/src"
	for d in /usr/include/linux /usr/include/c++ /usr/include/x86_64-linux-gnu \
		/usr/include/asm-generic /usr/share/perl; do
		cp -a "$d" "$IN/src/"
	done
	(cd "$IN" && tar cf - src | xz -1 -T2 >src.tar.xz)
	# the larger tree: the source tree and a Python library
	mkdir -p "$IN/big"
	cp -a "$IN/src/." /usr/lib/python3.11 "$IN/big/"
	git init -q "$IN/repo"
	cp -a "$IN/big/." "$IN/repo/"
	(cd "$IN/repo" && git add -A && git -c user.name=suite -c user.email=suite@localhost \
		commit -q -m tree && git gc -q)
	mkdir -p "$IN/proj"
	git archive HEAD | tar -x -C "$IN/proj"
	cp "$BUILD/tests/progs/val_fsync" "$IN/"
	touch "$IN/.made"
fi
echo "validate-suite: $(find "$IN/src" | wc -l) entries, $(du -sm "$IN/src" | cut -f1) MB in the tree"

rc=0
for w in $WORKLOADS; do
	name=${w%%:*} on=${RECORD_ON:-${w#*:}}
	if [ -n "${ONLY:-}" ]; then
		case " $ONLY " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "validate-suite: $name (recorded on $on) $(date -u +%H:%M:%S)"
	r=0
	if [ -n "${TRACES:-}" ]; then
		[ -f "$TRACES/$name/trace.iotape" ] ||
			{ echo "validate-suite: $name: no $TRACES/$name/trace.iotape (TRACES)" >&2; rc=1; continue; }
		set -- --trace "$TRACES/$name/trace.iotape"
	else
		set -- --recordings "$RECS" --record-on "$on" --backend "${BACKEND:-auto}"
	fi
	"$IOTAPE" validate --fs "$FS" --runs "$RUNS" --cache "$CACHE" -q "$@" \
		--setup "sh $SUITE/$name.sh setup $IN" --keep "$OUT/$name" \
		-- sh "$SUITE/$name.sh" run >"$OUT/$name.txt" || r=$?
	cat "$OUT/$name.txt"
	case $r in
	0|6) ;;
	130|143) exit $r ;;
	*) echo "validate-suite: $name: iotape validate exited $r"; rc=1 ;;
	esac
done
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, os, statistics, sys
out = sys.argv[1]
cells, rank_a, rank_n = [], 0, 0
whys = {}
print(f"{'workload':12} {'fs':6} {'native':>8} {'+-%':>4} {'replay':>8} {'+-%':>4} {'err%':>7} "
      f"{'afap%':>7} {'rec cpu%':>8} {'user%':>6}  why")
for name in sorted(os.listdir(out)):
    p = os.path.join(out, name, "table.json")
    if not os.path.exists(p):
        continue
    t = json.load(open(p))
    rank_a += t["rank_agree"]; rank_n += t["rank_pairs"]
    tot = [r for r in t["rows"] if r["total"]][0]
    pct = lambda x: "-" if x is None else format(x * 100, "+.1f")
    rc = pct(t.get("cpu", {}).get("recorded_vs_native"))
    ru = pct(t.get("cpu", {}).get("user_vs_native"))
    short = {"recording": "rec", "replayer": "speed", "noise": "noise", "recordings": "recs",
             "work": "work", "work_varies": "varies"}
    for fs in t["filesystems"]:
        c = tot["cells"][fs]
        w = t.get("why", {}).get(fs, {})
        why = ""
        if w.get("miss"):
            why = "+".join(short.get(x, x) for x in w.get("causes", [])) or "?"
            whys[why] = whys.get(why, 0) + 1
            if w.get("phase"):
                why += f" ({w['phase']})"
        e = c["error_pct"]
        cells.append(e)
        f = lambda x, s=1: "-" if x is None else f"{x * s:.{0 if s == 100 else 2}f}"
        a = c.get("afap_error_pct")
        af = ("-" if a is None else format(a, "+.1f")) + ("^" if c.get("floor") else " ")
        print(f"{name:12} {fs:6} {f(c['native_median']):>8} {f(c['native_spread'], 100):>4} "
              f"{f(c['replay_median']):>8} {f(c['replay_spread'], 100):>4} "
              f"{'-' if e is None else format(e, '+.1f'):>6}{'*' if c['apart'] else ' '} "
              f"{af:>7} {rc:>8} {ru:>6}  {why}")
ok = [e for e in cells if e is not None]
print(f"\ntotals within 5 %: {sum(abs(e) <= 5 for e in ok)}/{len(cells)}; "
      f"median |error| {statistics.median(abs(e) for e in ok) if ok else float('nan'):.1f} %; "
      f"worst {max(ok, key=abs) if ok else float('nan'):+.1f} %; "
      f"same ranking where native differs > 10 %: {rank_a}/{rank_n} pairs")
if whys:
    print(f"misses: {sum(whys.values())}; why: " +
          ", ".join(f"{k} {v}" for k, v in sorted(whys.items(), key=lambda x: -x[1])))
print("afap%: one replay with --timing afap against the native median; ^: more than 5 % "
      "slow even so: the replayer's own work per call is the miss, not its timing")
print("rec cpu%, user%: the recording's CPU time, and its user time, (its processes' EXIT "
      "records) against the native runs' median (their rusage): the replay's think time "
      "follows it (user time alone where the recorder does not time the system's exactly)")
print("why (of a total that misses): what of the table is as large as the miss: rec, the "
      "recording's CPU time; speed, the replayer's own (afap); noise, the replay inside the "
      "native runs' range; recs, the recordings' replays as far apart (RECS > 1); work, the "
      "recording read or wrote more (or fewer) calls or bytes than every native run, the "
      "miss's way; varies, the native runs' reads or writes as far apart among themselves; "
      "?, none of them; in brackets the phase with the largest part of it "
      "('iotape validate' prints the numbers)")
PY
exit $rc
