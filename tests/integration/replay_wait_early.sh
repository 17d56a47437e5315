#!/bin/bash
# replay_wait_early.sh - a parent whose wait4 entered before its child's
# first call (tests/progs/wait_early: the child computes before it makes
# any).  Planned in entry order, the wait came before anything of the
# child's process was known: it was linked to no process, and the replay
# returned it at once, so the parent's next calls ran beside the child's
# (a shell's phase mark after a 6 s Go build came 0.2 ms after the build
# started).  The replay must reap the child after its last call: the
# parent's open of parent.out starts after the child's exit_group, with
# every backend that records here.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/wait_early" ] || fail "$PROGS/wait_early is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
record_backends "$T"

# first SECONDS of the line of $1's dump that matches $2
at() { "$IOTAPE" dump "$1" | grep -E "$2" | head -1 | awk '{ print $2 }'; }

for m in "${BACKENDS[@]}"; do
	backend_opts $m
	mkdir w.$m
	(cd w.$m && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/$m.iotape" -- "$PROGS/wait_early") ||
		fail "record ($m): exit $?"
	"$IOTAPE" dump $m.iotape >$m.dump
	pid=$(awk '/--- start/ { print $1; exit }' $m.dump)
	w=$(grep -E "^$pid +[0-9.]+ wait4\(" $m.dump | head -1 | awk '{ print $2 }')
	c=$(grep -vE "^$pid |---|\+\+\+|mmap pages" $m.dump | grep -E '^[0-9]+ +[0-9.]+ [a-z_0-9]+\(' |
		head -1 | awk '{ print $2 }')
	[ -n "$w" ] && [ -n "$c" ] || fail "($m) no wait4 of the parent or no call of the child: $(cat $m.dump)"
	awk -v w="$w" -v c="$c" 'BEGIN { exit !(w < c) }' ||
		fail "($m) the parent's wait4 ($w s) did not enter before the child's first call ($c s)"
	mkdir r.$m
	"$IOTAPE" replay $m.iotape --root r.$m --timing afap --verify -o p.$m.iotape >r.$m.out 2>&1
	rc=$?
	[ $rc = 0 ] || { cat r.$m.out; fail "($m) replay --verify: exit $rc"; }
	x=$(at p.$m.iotape '^[0-9]+ +[0-9.]+ exit_group\(')
	o=$(at p.$m.iotape '^[0-9]+ +[0-9.]+ openat\(.*parent\.out')
	[ -n "$x" ] && [ -n "$o" ] || fail "($m) the profile has no child's exit_group or no open of parent.out"
	awk -v x="$x" -v o="$o" 'BEGIN { exit !(o >= x) }' ||
		fail "($m) the parent opened parent.out at $o s, before the child's exit_group at $x s: its wait4 did not wait"
	echo "ok ($m): wait4 entered at $w s, the child's first call at $c s; replayed, parent.out at $o s after the child's exit at $x s"
done
