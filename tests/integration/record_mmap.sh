#!/bin/bash
# record_mmap.sh - the pages of file mappings are recorded and replayed.
#
# A program reads a 64 MiB file through a read-only mapping (one byte per
# page), then writes 64 pages of another file through a shared mapping
# and msyncs it:
# 1. the trace holds a MapPages record of 16384 pages read at the munmap,
#    and one of 64 pages written at the msync; --no-fastpath records the
#    same; `iotape check` and `iotape report` count them;
# 2. with the replayed file's pages dropped from the cache after the
#    starting tree is built (POSIX_FADV_DONTNEED on that file only: the
#    machine's other caches are left alone), the replay reads >= 60 MiB
#    from the filesystem and writes the 64 pages, and `iotape report` of
#    its profile counts them in mapped read and mapped write;
# 2b. a child writes 32 pages of a shared mapping it inherited over
#    fork and msyncs: the trace holds them (alike without the fast
#    path), and a replay writes them;
# 2c. a file mapped, unlinked, then forked (tests/progs/map_unlinked.c):
#    the pages the parent and the child touched are in the trace, and a
#    replay (with a descriptor table per replayed process, and with one
#    for all) replays every record and its profile holds both;
# 2d. a memfd and a descriptor inherited from before the recording whose
#    file is unlinked: the summary counts both mappings as tied to no
#    file, and no pages go into the trace under a name no file has;
# 3. sqlite3 with PRAGMA mmap_size and WAL, and a local git clone
#    (--no-hardlinks): their pages are recorded (MapPages records) and a
#    replay of each ends with 0 mismatches and every record replayed;
#    recorded again with --no-fastpath, each syscall is called as many
#    times (errors too) and the same pages of the same files are recorded
#    as read.
# 3b. sqlite3 growing its mapping (mremap) and reading through it: the
#    pages of the whole database are recorded, at the mremaps and at the
#    munmap where the mapping ended up, and replayed.
# 3c. a shared writable mapping grown, moved, written and msynced: its
#    pages written once each, and replayed into its own file.
# 2c, 2d, 3, 3b and 3c run with --backend bpf too where it loads (its pages come
# from page faults; record_bpf_mmap.sh has its own cold-cache and shared
# writes tests).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_cmd sqlite3
need_cmd git
PY=$(command -v python3)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
# on a filesystem with a block device: ru_inblock counts its reads
in_scratch /var/tmp/iotape-mmap
BPF=
"$IOTAPE" record -q --backend bpf -o probe.iotape -- true 2>/dev/null && BPF=bpf
[ -n "$BPF" ] || echo "the bpf backend does not load here: 2c, 2d and 3 without it"

head -c 64M /dev/urandom >big
head -c 1M /dev/zero >w
mk_map_progs

for mode in fast ptrace; do
	"$IOTAPE" record $([ $mode = ptrace ] && echo --no-fastpath) -o $mode.iotape -- \
		"$PY" prog.py "$d/big" "$d/w" 2>$mode.err || fail "record ($mode): $(cat $mode.err)"
	"$IOTAPE" dump $mode.iotape | grep -o "mmap pages \"$d/[a-z]*\" at [a-z]*: .*" >$mode.pages
	grep -q "mmap pages \"$d/big\" at munmap: read 16384 (1 runs), written 0" $mode.pages ||
		fail "($mode) no record of the 16384 pages read: $(cat $mode.pages)"
	if [ -r /proc/kpageflags ]; then
		grep -q "mmap pages \"$d/w\" at msync: read 64 (1 runs), written 64 (1 runs)" $mode.pages ||
			fail "($mode) no record of the 64 pages written: $(cat $mode.pages)"
	fi
	grep -q "file mappings: [0-9]* pages read" $mode.err ||
		fail "($mode) the record summary does not count mapped pages: $(cat $mode.err)"
done
diff -u ptrace.pages fast.pages || fail "fast path and --no-fastpath recorded different pages"
"$IOTAPE" check fast.iotape >check.out || fail "check exited $?"
grep -q "mapped I/O   [0-9]* pages read" check.out || fail "check does not count mapped pages: $(cat check.out)"
"$IOTAPE" report fast.iotape >report.out || fail "report exited $?"
grep -q "^  mapped read .* 6[4-9]\.[0-9] MiB$" report.out ||
	fail "report has no mapped read row of >= 64 MiB: $(grep mapped report.out)"
echo "pages recorded alike with and without the fast path"

replay_cold fast.iotape root "$d/big" replay.out -o prof.iotape
grep -q "mapped pages .* written through file mappings" replay.out ||
	fail "the replay summary does not say what it did of the mapped pages: $(cat replay.out)"
if [ -r /proc/kpageflags ]; then
	grep -q "mapped pages .* 256.0 KiB written" replay.out ||
		fail "the replay did not write the 64 pages: $(grep mapped replay.out)"
fi
"$IOTAPE" report prof.iotape >preport.out || fail "report of the replay's profile exited $?"
grep -q "^  mapped read .* 6[4-9]\.[0-9] MiB$" preport.out ||
	fail "the replay's profile has no mapped read row of >= 64 MiB: $(grep mapped preport.out)"
if [ -r /proc/kpageflags ]; then
	grep -q "^  mapped write .* 256.0 KiB$" preport.out ||
		fail "the replay's profile has no mapped write row of 256 KiB: $(grep mapped preport.out)"
fi
echo "replay read $((rd >> 20)) MiB from the filesystem with a cold cache; its profile counts the pages"

# 2b. a mapping inherited over fork: the child's stores are its own
head -c 1M /dev/zero >wf
for mode in fast ptrace; do
	"$IOTAPE" record -q $([ $mode = ptrace ] && echo --no-fastpath) -o fork.$mode.iotape -- \
		"$PY" fork.py "$d/wf" 2>fork.$mode.err || fail "fork ($mode): $(cat fork.$mode.err)"
	"$IOTAPE" dump fork.$mode.iotape | grep -o "mmap pages \"$d/wf\" at [a-z]*: .*" >fork.$mode.pages
	want="mmap pages \"$d/wf\" at msync: read 32 (1 runs)"
	[ -r /proc/kpageflags ] && want="$want, written 32 (1 runs)"
	grep -q "$want" fork.$mode.pages ||
		fail "fork ($mode): no record of the child's 32 pages: $(cat fork.$mode.pages)"
done
diff -u fork.ptrace.pages fork.fast.pages || fail "fork: fast path and --no-fastpath differ"
mkdir froot
"$IOTAPE" replay fork.fast.iotape --root froot >fork.replay 2>&1 || fail "fork: replay: $(cat fork.replay)"
if [ -r /proc/kpageflags ]; then
	grep -q "mapped pages .* 128.0 KiB written" fork.replay ||
		fail "fork: the replay did not write the child's 32 pages: $(grep mapped fork.replay)"
fi
echo "a child's pages of a mapping it inherited are recorded and replayed"

# 2c. a mapping whose file's name is gone: mapped, unlinked, then forked;
# the child and the parent each read 8 pages and write 8 (map_unlinked.c)
for mode in fast ptrace $BPF; do
	"$IOTAPE" record -q $([ $mode = ptrace ] && echo --no-fastpath) \
		$([ $mode = bpf ] && echo --backend bpf) -o ul.$mode.iotape -- \
		"$PROGS/map_unlinked" "$d/ul" 2>ul.$mode.err || fail "unlinked ($mode): $(cat ul.$mode.err)"
	[ ! -e "$d/ul" ] || fail "unlinked ($mode): the program left its file"
	"$IOTAPE" dump ul.$mode.iotape | grep "   mmap pages \"$d/ul\" at msync: " >ul.$mode.pages
	[ "$(awk '{ print $1 }' ul.$mode.pages | sort -u | wc -l)" = 2 ] ||
		fail "unlinked ($mode): not one record for each of the two processes: $(cat ul.$mode.pages)"
	sed 's/.* read \([0-9]*\) .*/\1/' ul.$mode.pages | while read -r n; do
		[ "$n" -ge 16 ] || fail "unlinked ($mode): a record of $n pages read, not >= 16: $(cat ul.$mode.pages)"
	done || exit 1
	if [ -r /proc/kpageflags ] || [ $mode = bpf ]; then
		[ "$(grep -c 'written 8 (1 runs)' ul.$mode.pages)" = 2 ] ||
			fail "unlinked ($mode): not 8 pages written by each: $(cat ul.$mode.pages)"
	fi
done
# both ways the replayer gives a replayed process its descriptors
for files in own shared; do
	rm -rf uroot && mkdir uroot
	IOTAPE_REPLAY_FILES=$files "$IOTAPE" replay ul.fast.iotape --root uroot -o ul.$files.prof \
		>ul.$files.replay 2>&1 || fail "unlinked ($files): replay: $(cat ul.$files.replay)"
	grep -q "mapped pages .* (\([0-9]*\) of \1 records; 0 not replayed" ul.$files.replay ||
		fail "unlinked ($files): not every record of pages replayed: $(grep mapped ul.$files.replay)"
	[ "$("$IOTAPE" dump ul.$files.prof | grep -c "   mmap pages \"$d/ul\" at msync: ")" = 2 ] ||
		fail "unlinked ($files): the profile has not the pages of both processes: $("$IOTAPE" dump ul.$files.prof | grep 'mmap pages')"
	[ ! -e "uroot$d/ul" ] || fail "unlinked ($files): the replay left the file"
done
echo "pages of a mapping whose file was unlinked are recorded and replayed, in the child too"
# 2d. a descriptor the trace never saw opened, its file unlinked before
# the recording, and a memfd: no file to tie their pages to; counted
head -c 64K /dev/zero >pre
cat >untied.py <<'PY'
import mmap, os
fd = os.memfd_create("shm")
os.ftruncate(fd, 65536)
m = mmap.mmap(fd, 65536)
m[0] = 1
m.close()
m = mmap.mmap(3, 65536)
s = m[0]
m.close()
PY
exec 3<>pre
rm pre
for b in ptrace $BPF; do
	"$IOTAPE" record --backend $b -o untied.iotape -- "$PY" untied.py 2>untied.err ||
		fail "untied ($b): record: $(cat untied.err)"
	grep -q "record: 2 file mappings of descriptors the trace has no file for" untied.err ||
		fail "untied ($b): the summary does not count the 2 mappings tied to no file: $(cat untied.err)"
	! "$IOTAPE" dump untied.iotape | grep "mmap pages .*deleted" ||
		fail "untied ($b): pages recorded under a name no file has"
done
exec 3>&-
echo "mappings tied to no file are counted"

# 3. programs that read through mappings
cat >s.sql <<'SQL'
PRAGMA journal_mode=WAL;
PRAGMA mmap_size=268435456;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
	INSERT INTO t SELECT x, hex(randomblob(50)) FROM c;
PRAGMA wal_checkpoint(TRUNCATE);
SELECT count(*) FROM t WHERE b LIKE '%AB%';
SQL
mk_git_src src
for w in sqlite git $([ -n "$BPF" ] && echo sqlite.bpf git.bpf); do
	b=ptrace
	[ "${w#*.}" = bpf ] && b=bpf
	rm -rf "$d/db" "$d/db-wal" "$d/db-shm" "$d/dst"
	case $w in
	sqlite*) "$IOTAPE" record --backend $b -o $w.iotape -- sqlite3 "$d/db" <s.sql >/dev/null 2>$w.err ;;
	git*) "$IOTAPE" record --backend $b -o $w.iotape -- git clone -q --no-hardlinks "$d/src" "$d/dst" \
		2>$w.err ;;
	esac || fail "$w: record failed: $(cat $w.err)"
	n=$("$IOTAPE" dump $w.iotape | grep -c "   mmap pages ")
	[ "$n" -gt 0 ] || fail "$w: no pages of its mappings in the trace"
	rm -rf root && mkdir root
	replay_clean "$w" $w.iotape root $w.replay
	grep -q "mapped pages .* (\([0-9]*\) of \1 records" $w.replay ||
		fail "$w: not every record of pages replayed: $(grep mapped $w.replay)"
	echo "$w: $n records of mapped pages, replayed with 0 mismatches"
done
# 3b. sqlite3 growing its mapping of the database (mremap, moved by the
# kernel as it grows), then reading every row through it: the trace holds
# the mremap calls and the munmap of the mapping where it ended up, and
# the pages read at the mremaps and the munmap cover the database; a
# replay has 0 mismatches and replays every record
cat >grow.sql <<'SQL'
PRAGMA mmap_size=268435456;
CREATE TABLE t(a, b);
BEGIN;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
	INSERT INTO t SELECT x, randomblob(500) FROM c;
COMMIT;
SELECT count(*), sum(length(b)) FROM t;
SQL
for b in ptrace $([ -n "$BPF" ] && echo bpf); do
	rm -f "$d/grow.db"
	"$IOTAPE" record -q --backend $b -o grow.$b.iotape -- sqlite3 "$d/grow.db" <grow.sql \
		>/dev/null 2>grow.err || fail "grow ($b): record failed: $(cat grow.err)"
	"$IOTAPE" dump grow.$b.iotape >grow.dump || fail "grow ($b): dump failed"
	n=$(grep -c ' mremap(' grow.dump) || true
	[ "$n" -ge 2 ] || fail "grow ($b): $n mremap calls in the trace (sqlite3 makes some 7)"
	grep -q ' munmap(.*= 0' grow.dump || fail "grow ($b): the mapping's munmap is not in the trace"
	pages=$(( $(stat -c %s "$d/grow.db") / 4096 ))
	got=$(grep "mmap pages \"$d/grow.db\"" grow.dump |
		sed -n 's/.* at \(mremap\|munmap\): read \([0-9]*\) .*/\2/p' | awk '{ s += $1 } END { print s + 0 }')
	[ "$got" -ge $((pages * 9 / 10)) ] ||
		fail "grow ($b): $got pages of the database read through its mapping, not most of its $pages"
	rm -rf root && mkdir root
	replay_clean "grow ($b)" grow.$b.iotape root grow.replay
	grep -q "mapped pages .* (\([0-9]*\) of \1 records" grow.replay ||
		fail "grow ($b): not every record of pages replayed: $(grep mapped grow.replay)"
	echo "grow ($b): $n mremaps, $got of the database's $pages pages read through its mapping, replayed"
done

# 3c. a shared writable mapping grown (python's mmap.resize: ftruncate,
# mremap, moved), written after the move and msynced: the msync's pages
# hold the page written before the move and the 64 after it, once each;
# a replay writes them through the file the mapping moved with (not the
# one an earlier mapping at the new address had: the replay dropped no
# mapping at its munmap, whose address the trace does not keep)
cat >resize.py <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 4 * 4096)
m = mmap.mmap(fd, 4 * 4096)
m[0] = 1
m.resize(1024 * 4096)
for i in range(512, 512 + 64):
    m[i * 4096] = 2
m.flush()
m.close()
os.close(fd)
PY
for b in ptrace $([ -n "$BPF" ] && echo bpf); do
	rm -f "$d/rs"
	"$IOTAPE" record -q --backend $b -o rs.$b.iotape -- "$PY" resize.py "$d/rs" 2>rs.err ||
		fail "resize ($b): record failed: $(cat rs.err)"
	"$IOTAPE" dump rs.$b.iotape | grep -q ' mremap(' || fail "resize ($b): no mremap in the trace"
	"$IOTAPE" dump rs.$b.iotape | grep -q "mmap pages \"$d/rs\" at msync: read [0-9]* (.*), written 65 " ||
		fail "resize ($b): the msync's pages are not the 65 written: $("$IOTAPE" dump rs.$b.iotape | grep "pages \"$d/rs")"
	rm -rf root && mkdir root
	replay_clean "resize ($b)" rs.$b.iotape root rs.replay -o rs.prof
	"$IOTAPE" dump rs.prof | grep -q "mmap pages \"$d/rs\" at msync: read [0-9]* (.*), written 65 " ||
		fail "resize ($b): the replay did not write the 65 pages: $(grep mapped rs.replay)"
	echo "resize ($b): 65 pages written after a move, recorded and replayed"
done

# the same two recorded with --no-fastpath: the same calls, each syscall
# as many times, and the same pages of the same files
counts() {
	"$IOTAPE" report --by syscall "$1" | awk 'f && NF > 2 { print $1, $2, $3 } /^Syscalls/ { f = 1 }' | sort
	# pages written are left out: those the kernel writes back before the
	# munmap are clean by then (mmap.c), whichever way it was recorded;
	# and pages read of files not the workload's own (locale files): the
	# kernel's fault-around maps the neighbours of a touched page that
	# happen to be in the page cache
	"$IOTAPE" dump "$1" | grep -o 'mmap pages ".*' | sed "s/, written .*//; \|\"$d/|!s/: read .*//; s|$d/||g" |
		sort
}
for w in sqlite git; do
	rm -rf "$d/db" "$d/db-wal" "$d/db-shm" "$d/dst"
	case $w in
	sqlite) "$IOTAPE" record -q --no-fastpath -o $w.nofp.iotape -- sqlite3 "$d/db" <s.sql >/dev/null 2>$w.err ;;
	git) "$IOTAPE" record -q --no-fastpath -o $w.nofp.iotape -- git clone -q --no-hardlinks "$d/src" \
		"$d/dst" 2>$w.err ;;
	esac || fail "$w --no-fastpath: record failed: $(cat $w.err)"
	grep -q "fastpath on" <("$IOTAPE" dump $w.iotape | head -20) ||
		fail "$w: the first recording did not use the fast path"
	counts $w.iotape >$w.fast.counts
	counts $w.nofp.iotape >$w.nofp.counts
	diff -u $w.fast.counts $w.nofp.counts || fail "$w: fast path and --no-fastpath recorded different calls or pages"
	echo "$w: fast path and --no-fastpath: $(grep -c . $w.fast.counts) lines of counts and pages the same"
done
exit 0
