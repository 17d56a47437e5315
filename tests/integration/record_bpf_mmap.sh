#!/bin/bash
# record_bpf_mmap.sh - `record --backend bpf` records the pages of file
# mappings (the programs' fault, fault-around, read-in and dirtied-folio
# records; record/bpf_mmap.c) and a replay reads and writes them.
#
# 1. A program reads a 64 MiB file through a read-only mapping (one byte
#    per page) after that file's pages were dropped from the cache
#    (POSIX_FADV_DONTNEED on that file only), then writes 64 pages of
#    another file through a shared mapping and msyncs it: the bpf trace
#    holds >= 60 MiB of pages read at the munmap and the 64 pages written
#    at the msync; with the replayed file's pages dropped, the replay
#    reads >= 60 MiB from the filesystem and writes the 64 pages.
# 2. A child writes 32 pages of a shared mapping it inherited over fork
#    and msyncs: the trace holds them and a replay writes them.
# record_mmap.sh runs its unlinked-file, untied-descriptor, sqlite and git
# cases with --backend bpf too.
# Other recordings on the machine (loaded programs of the same names) do
# not matter: each recorder follows its own program.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
# on a filesystem with a block device: ru_inblock counts its reads
in_scratch /var/tmp/iotape-bpfmmap
need_bpf

head -c 64M /dev/urandom >big
head -c 1M /dev/zero >w
mk_map_progs
drop_pages big
"$IOTAPE" record --backend bpf -o bpf.iotape -- "$PY" prog.py "$d/big" "$d/w" 2>bpf.err ||
	fail "record: $(cat bpf.err)"
"$IOTAPE" dump bpf.iotape | grep -o "mmap pages \"$d/[a-z]*\" at [a-z]*: .*" >bpf.pages
n=$(sed -n "s|^mmap pages \"$d/big\" at munmap: read \([0-9]*\) .*|\1|p" bpf.pages | head -1)
[ -n "$n" ] && [ "$n" -ge $((60 << 8)) ] ||
	fail "the trace holds ${n:-no} pages read of the 64 MiB file, not >= 15360: $(cat bpf.pages)"
# read: 64, or more if w's pages left the cache (a cold fault's read-around
# counts: record/README.md)
grep -q "mmap pages \"$d/w\" at msync: read [0-9]* (1 runs), written 64 (1 runs)" bpf.pages ||
	fail "no record of the 64 pages written: $(cat bpf.pages)"
grep -q "file mappings: [0-9]* pages read and [0-9]* written" bpf.err ||
	fail "the record summary does not count mapped pages: $(cat bpf.err)"
grep -q "every mapping taken" bpf.err || fail "a mapping was left untaken: $(cat bpf.err)"
echo "bpf trace: $n pages read through the mapping of the cold 64 MiB file, 64 written"

replay_cold bpf.iotape root "$d/big" replay.out
grep -q "mapped pages .* 256.0 KiB written" replay.out ||
	fail "the replay did not write the 64 pages: $(grep mapped replay.out)"
echo "replay read $((rd >> 20)) MiB from the filesystem with a cold cache and wrote the 64 pages"

# 2. a mapping inherited over fork: the child's stores are its own
head -c 1M /dev/zero >wf
"$IOTAPE" record -q --backend bpf -o fork.iotape -- "$PY" fork.py "$d/wf" 2>fork.err ||
	fail "fork: record: $(cat fork.err)"
"$IOTAPE" dump fork.iotape | grep -q "mmap pages \"$d/wf\" at msync: read [0-9]* (1 runs), written 32 (1 runs)" ||
	fail "fork: no record of the child's 32 pages: $("$IOTAPE" dump fork.iotape | grep 'mmap pages')"
mkdir froot
"$IOTAPE" replay fork.iotape --root froot >fork.replay 2>&1 || fail "fork: replay: $(cat fork.replay)"
grep -q "mapped pages .* 128.0 KiB written" fork.replay ||
	fail "fork: the replay did not write the child's 32 pages: $(grep mapped fork.replay)"
echo "a child's pages of a mapping it inherited are recorded and replayed"

exit 0
