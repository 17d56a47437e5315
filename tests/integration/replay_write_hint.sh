#!/bin/bash
# replay_write_hint.sh - fcntl F_SET_RW_HINT, the lifetime of a file's
# data that RocksDB sets on each table and log it writes (db_bench with
# compactions: 141 calls by bpf, 212 by ptrace).  Its value is behind the
# pointer, which the trace did not keep: every such call was left out of
# the replay as unsupported, and the replayed files had no hint.  Each
# backend now keeps the value; the replay sets it and asks F_GET_RW_HINT
# again, a value the kernel refuses (EINVAL) refused again: all 64 bits
# kept, as RocksDB passes a pointer to an int (db_bench recorded by
# ptrace: 130 calls, all refused, 126 of them with the top bit set by
# the bytes past the int).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd python3
tmp_dir /var/tmp/iotape-test
cat >"$T/hint.py" <<'PY'
import fcntl, struct, sys
F_GET_RW_HINT, F_SET_RW_HINT = 1035, 1036
with open(sys.argv[1] + "/short", "wb") as f:
    fcntl.fcntl(f, F_SET_RW_HINT, struct.pack("Q", 2))	# RWH_WRITE_LIFE_SHORT
    f.write(b"x" * 4096)
    got = struct.unpack("Q", fcntl.fcntl(f, F_GET_RW_HINT, bytes(8)))[0]
    assert got == 2, got
with open(sys.argv[1] + "/long", "wb") as f:
    fcntl.fcntl(f, F_SET_RW_HINT, struct.pack("Q", 4))	# RWH_WRITE_LIFE_LONG
    # refused (EINVAL), as is what RocksDB passes: a pointer to an int,
    # 4 bytes of its stack past it
    for bad in (99, 0x8000000000000002):
        try:
            fcntl.fcntl(f, F_SET_RW_HINT, struct.pack("Q", bad))
            sys.exit("a hint of %#x was taken" % bad)
        except OSError:
            pass
PY
mkdir "$T/w"
python3 "$T/hint.py" "$T/w" 2>/dev/null || skip "this kernel has no F_SET_RW_HINT"
backends="ptrace"
bpf_loads "$T" && backends="ptrace bpf"
for b in $backends nofast; do
	opt="--backend $b"
	[ $b = nofast ] && opt="--backend ptrace --no-fastpath"
	rm -rf "$T/w" && mkdir "$T/w"
	"$IOTAPE" record -q $opt -o "$T/$b.iotape" -- python3 "$T/hint.py" "$T/w" ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b.iotape" >"$T/$b.dump"
	grep -q 'F_SET_RW_HINT, \[RWH_WRITE_LIFE_SHORT\]) = 0' "$T/$b.dump" &&
		grep -q 'F_SET_RW_HINT, \[0x63\]) = -1 EINVAL' "$T/$b.dump" &&
		grep -q 'F_SET_RW_HINT, \[0x8000000000000002\]) = -1 EINVAL' "$T/$b.dump" ||
		{ grep RW_HINT "$T/$b.dump"; fail "$b: the trace does not hold the hints' values"; }
	mkdir "$T/r.$b"
	replay_clean "$b" "$T/$b.iotape" "$T/r.$b" "$T/$b.out" --timing afap
	! grep -E '^  unsupported' "$T/$b.out" ||
		fail "$b: the replay left calls out as unsupported"
	# the hint is the inode's: the replayed files have them
	python3 -c 'import fcntl, struct, sys
for n, want in (("short", 2), ("long", 4)):
    with open(sys.argv[1] + "/" + n, "rb") as f:
        got = struct.unpack("Q", fcntl.fcntl(f, 1035, bytes(8)))[0]
        assert got == want, (n, got, want)' "$T/r.$b$T/w" ||
		fail "$b: the replayed files do not have the recorded hints"
done
echo "ok: write hints recorded ($backends, ptrace without the fast path) and replayed, 0 unsupported"
