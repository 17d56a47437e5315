#!/bin/bash
# replay_map_writes.sh - pages a program wrote through a shared mapping
# are dirtied through a shared mapping in the replay too, a store a page,
# so that each takes the filesystem's write fault (btrfs reserves and
# copies on write there, ext4 opens a journal handle) as the program's
# did; written with pwrite (before 2026-12-07), 215 MiB took btrfs
# 0.10 s where a mapping's stores took 0.82-0.97 s.  A Python program
# dirties every other page of a 32 MiB file through one mapping and syncs
# it; the replay, watched by strace, must write none of those bytes with
# a write call, map the file for them once, not once a run of pages
# (4,096 mappings and unmappings before 2026-12-07: gdbm's replay +29 %
# slower than its native runs as fast as it went), and leave the file as
# long as the program did.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd strace
need_python
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w" "$T/r"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c "
import mmap, os
fd = os.open('f', os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 32 << 20)
m = mmap.mmap(fd, 32 << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
for i in range(0, 32 << 20, 8192):
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
	strace -f -qq -e trace=write,pwrite64,writev,pwritev,pwritev2,mmap -o "$T/st" \
	"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --no-prepare >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
# (16 MiB or more: where the page cache keeps large folios, a store
# dirties its folio, and the recorder sees the folio's pages dirty)
mib=$(sed -nE 's/.* ([0-9]+)\.[0-9] MiB written through file mappings.*/\1/p' "$T/out")
[ -n "$mib" ] && [ "$mib" -ge 16 ] && [ "$mib" -le 32 ] ||
	{ cat "$T/out"; fail "the summary does not count 16-32 MiB written through mappings"; }
maps=$(grep -cE '^[0-9]+ +mmap\(NULL, [0-9]+, PROT_READ\|PROT_WRITE, MAP_SHARED, [0-9]+, ' "$T/st")
[ "$maps" -ge 1 ] && [ "$maps" -le 4 ] ||
	fail "the replayer made $maps shared file mappings for the program's one"

written=$(awk -F'= ' '/^[0-9]+ +(write|pwrite64|writev|pwritev2?)\(/ && $NF + 0 > 0 { s += $NF } END { print s + 0 }' "$T/st")
[ "$written" -lt $((1 << 20)) ] ||
	fail "the replayer wrote $written bytes with write calls: the mapped pages went as writes"
sz=$(stat -c %s "$T/r$T/w/f")
[ "$sz" = $((32 << 20)) ] || fail "the replayed file is $sz bytes, not 32 MiB"
echo "ok: 16 MiB dirtied through $maps mapping(s), $written bytes written by write calls, the file $sz bytes"
