#!/bin/bash
# iotape bench on tmpfs and a loop ext4: the table has a row per phase and a
# column per configuration, every configuration produced a profile, and no
# mount, loop device or image is left behind - also after SIGINT mid-run.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root_loop
need_cmd mkfs.ext4
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mk_tree "$T/src" 60
"$IOTAPE" record -q -o "$T/copy.iotape" -- sh -c "cp -a '$T/src' '$T/dst' && sync && du '$T/dst' >/dev/null && rm -rf '$T/dst'" \
	|| fail "record failed"
"$IOTAPE" bench "$T/copy.iotape" --fs tmpfs,ext4 --timing afap -o "$T/prof" --scratch "$T" \
	>"$T/out" 2>"$T/err" || { cat "$T/err"; fail "bench failed"; }
cat "$T/out"
for c in tmpfs ext4; do
	[ -s "$T/prof/$c.1.iotape" ] || fail "no profile for $c"
	"$IOTAPE" check -q "$T/prof/$c.1.iotape" || fail "profile for $c does not check"
	grep -q "$c" "$T/out" || fail "table has no column for $c"
done
grep -qw cp "$T/out" || fail "table has no cp phase"
grep -qw rm "$T/out" || fail "table has no rm phase"
no_leftovers "$T"

# a --setup that fails: the configuration is FAILED, and stderr says why
# (a command that runs bench keeps only its stderr), exit 1
"$IOTAPE" bench "$T/copy.iotape" --fs tmpfs --setup 'exit 3' -o "$T/prof3" --scratch "$T" \
	>"$T/out3" 2>"$T/err3"
rc=$?
cat "$T/err3"
[ $rc = 1 ] || fail "bench with a failing --setup exited $rc, expected 1"
grep -q 'tmpfs run 1: FAILED: the --setup command failed' "$T/err3" ||
	fail "stderr does not say why the run failed"
no_leftovers "$T"

# SIGINT while a configuration runs: everything is undone, exit 130
# (many runs, and the signal once the first is done: mid-run, however fast)
"$IOTAPE" bench "$T/copy.iotape" --fs ext4,xfs,btrfs --runs 30 -o "$T/prof2" --scratch "$T" \
	>"$T/out2" 2>"$T/err2" &
pid=$!
for i in $(seq 1 300); do
	grep -q 'run 1/30 done' "$T/err2" 2>/dev/null && break
	sleep 0.1
done
sleep 0.2
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] || { cat "$T/err2"; fail "bench after SIGINT exited $rc, expected 130"; }
no_leftovers "$T"
echo "ok"
