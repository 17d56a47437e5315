#!/bin/bash
# replay_listing_race.sh - a directory opened by one process, filled by
# another, then read (getdents) by the first, with nothing between the two
# but time.  The plan ordered the listing's open after the other
# process's creates before it, but not its reads of the entries: an afap
# replay read the directory before the files were made (stress-ng's dir
# stressor: 21 listings of 87 differed; dbench: 1).  Now a read of a
# directory's entries follows the creates and removals in it that ended
# before it, as its open does.  Recorded with ptrace (fast path and not)
# and bpf where it loads; replayed as fast as it goes, 3 times each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp listrace

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w"
	mkdir -p "$T/w/d"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PY" -c '
import os, time
fd = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
if os.fork() == 0:
    for i in range(40):
        open("d/f%d" % i, "w").close()
    os._exit(0)
time.sleep(0.3)
n = len(list(os.scandir(fd)))
os.wait()
assert n == 40, n
') 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	for i in 1 2 3; do
		rm -rf "$T/root"
		mkdir "$T/root"
		"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap --verify >"$T/out" 2>&1 ||
			fail "$b: replay $i failed or mismatched: $(grep -A4 '^  mismatches' "$T/out")"
	done
	echo "$b: the listing read after the other process's 40 creates, 3 replays, 0 mismatches"
done
echo "ok: reads of a directory's entries follow the changes in it"
