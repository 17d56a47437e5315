#!/bin/bash
# replay_epipe_room.sh - `cat parts | gzip -dc | cmp - whole`, the parts
# out of order: cmp exits at the first difference, gzip dies of SIGPIPE,
# and cat's last write, blocked in a full pipe, meets EPIPE having moved
# nothing.  A pipe is full when its 16 buffers are, however few bytes
# they hold; the replay's, its writes sharing buffers as its reader's
# pace has it, had room there: the write got a count (53248, or 1 from
# the byte written once the pipe polled writable) in 4 of 5 replays.
# Now it fills the room and waits for the reader's end, as recorded.
# (A write that moved bytes and then met its reader's end can find the
# replay's pipe full the other way round; that is not checked here.)
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd gzip
need_cmd cmp
record_tmp epipe-room

mkdir w
seq 1 600000 | awk '{ print $1, $1 * 7 % 1000, "x" $1 }' >w/whole
split -n l/6 -d w/whole w/part.
gzip -1 w/part.0?
cmd='cat part.03.gz part.00.gz part.01.gz part.02.gz part.04.gz part.05.gz | gzip -dc | cmp - whole'

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	(cd w && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c "$cmd" \
		>/dev/null 2>"$T/err")
	"$IOTAPE" dump "$T/t.iotape" | grep -q ' write(1, ..., [0-9]*) = -1 EPIPE' ||
		{ echo "$b: cat's last write did not meet EPIPE here (its reader was done first)"; continue; }
	for i in 1 2 3 4; do
		rm -rf "$T/root"
		mkdir "$T/root"
		"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap >"$T/out" 2>&1 ||
			fail "$b, replay $i: exit $?: $(tail -n 1 "$T/out")"
		# (the converse, a write that moved bytes before the reader's
		# end, can find the replay's pipe full: not this test's)
		! grep '= -1 EPIPE.*, replayed:' "$T/out" ||
			fail "$b, replay $i: a write that met EPIPE did not"
	done
	echo "$b: the writes that met EPIPE did so in 4 replays"
done
echo "ok: a write into a pipe full of part-filled buffers meets EPIPE when replayed"
