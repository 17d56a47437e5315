#!/bin/bash
# replay_fifo.sh - FIFOs opened by their paths: `mkfifo p; cat p >got &
# echo hello >p`, and the same through a FIFO of the starting tree.  The
# writer's open waits for the reader's; replayed with O_NONBLOCK it got
# ENXIO, and the reader's read 0 bytes (its open and read followed the
# write, a change of the path, and ran after the writer closed).  Now
# the writer's open waits for a reader, the two opens do not follow each
# other, and the reads follow the writes through the FIFO: three replays
# of each with --verify, every one without a mismatch, and got holds
# the 6 bytes written.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-fifo.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/w" "$T/w2"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/made.iotape" -- \
	sh -c 'mkfifo p && { cat p >got & } && echo hello >p && wait') || fail "record: exit $?"
[ "$(cat "$T/w/got")" = hello ] || fail "the recorded run did not pass hello through the FIFO"
mkfifo "$T/w2/q"
(cd "$T/w2" && "$IOTAPE" record -q -o "$T/tree.iotape" -- \
	sh -c '{ cat q >got & } && echo hello >q && wait') || fail "record (starting tree): exit $?"
"$IOTAPE" dump -s "$T/tree.iotape" | grep -q "state \"$T/w2/q\" S_IFIFO" ||
	fail "the trace has no state of the FIFO q of the starting tree"
for t in made tree; do
	for i in 1 2 3; do
		R=$T/r.$t.$i
		mkdir "$R"
		"$IOTAPE" replay "$T/$t.iotape" --root "$R" --timing afap --verify >"$T/out" 2>&1
		rc=$?
		[ $rc = 0 ] || { cat "$T/out"; fail "$t, replay $i: exit $rc (4: results differ)"; }
		d=$T/w; [ $t = tree ] && d=$T/w2
		s=$(stat -c %s "$R$d/got") || fail "$t, replay $i: no got"
		[ "$s" = 6 ] || fail "$t, replay $i: got holds $s bytes, 6 written"
	done
done
echo "ok: both FIFOs replayed 3 times each with no mismatch, 6 bytes through each"
