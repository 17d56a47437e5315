#!/bin/bash
# replay_map_writes.sh - pages a program wrote through a shared mapping
# are dirtied through a shared mapping in the replay too, a store a page,
# so that each takes the filesystem's write fault (btrfs reserves and
# copies on write there, ext4 opens a journal handle) as the program's
# did; written with pwrite (before 2026-12-07), 215 MiB took btrfs
# 0.10 s where a mapping's stores took 0.82-0.97 s.  A Python program
# dirties 32 MiB of a file through a mapping and syncs it; the replay,
# watched by strace, must write none of those bytes with a write call,
# and leave the file as long as the program did.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd strace
need_python
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c "
import mmap, os
fd = os.open('f', os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 32 << 20)
m = mmap.mmap(fd, 32 << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
for i in range(0, 32 << 20, 4096):
    m[i] = 7
m.flush()
m.close()
os.close(fd)
") || fail "record: exit $?"
# the starting tree (the interpreter's files) first, unwatched
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --prepare-only >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "prepare exit $?"; }
# (a sanitizer build's leak check cannot run under strace's ptrace)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=write,pwrite64,writev,pwritev,pwritev2 -o "$T/st" \
	"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --no-prepare >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
grep -q "32.0 MiB written through file mappings" "$T/out" ||
	{ cat "$T/out"; fail "the summary does not count 32 MiB written through mappings"; }
written=$(awk -F'= ' '/^[0-9]+ +(write|pwrite64|writev|pwritev2?)\(/ && $NF + 0 > 0 { s += $NF } END { print s + 0 }' "$T/st")
[ "$written" -lt $((1 << 20)) ] ||
	fail "the replayer wrote $written bytes with write calls: the mapped pages went as writes"
sz=$(stat -c %s "$T/r$T/w/f")
[ "$sz" = $((32 << 20)) ] || fail "the replayed file is $sz bytes, not 32 MiB"
echo "ok: 32 MiB dirtied through a mapping, $written bytes written by write calls, the file $sz bytes"
