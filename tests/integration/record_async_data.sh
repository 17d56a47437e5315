#!/bin/bash
# record --data keeps the bytes of async write requests, read at their
# submission, and a replay writes them: fio random writes (1 MiB in 4 KiB
# blocks, iodepth 8, fio's own scrambled buffers) with ioengine=libaio,
# io_uring and io_uring with fixedbufs and registerfiles, and
# tests/progs/uring_ops (WRITEV, a write on a registered file, a linked
# write): each request is in the dump with its bytes, the summary and
# `iotape check` count them kept, and the replayed files are the native
# run's, byte for byte (cmp).  Without --data the replay writes its own
# pattern: the files differ.  `iotape report` counts the requests in its
# bytes and data lines and in its total's bytes.  Under the bpf backend
# (where it loads) no request keeps its bytes, and the summary, check and
# report say so.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd fio
need_cmd cmp
[ -x "$PROGS/uring_ops" ] || fail "$PROGS/uring_ops is not built (make tests)"
d=$(mktemp -d /tmp/iotape-adata.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"

engines="libaio"
if fio --name=probe --filename="$d/probe" --size=64k --bs=4k --rw=write \
	--ioengine=io_uring >/dev/null 2>&1; then
	engines="$engines io_uring io_uring_fixed"
else
	echo "io_uring is not available here (kernel.io_uring_disabled?): its cases are left out"
fi
rm -f "$d/probe"

fio_run() {	# engine dir [iotape record args...]
	local e=$1 dir=$2 opts=()
	shift 2
	case $e in
	io_uring_fixed) opts=(--ioengine=io_uring --fixedbufs --registerfiles) ;;
	*) opts=(--ioengine="$e") ;;
	esac
	mkdir -p "$dir"
	"$@" fio --name=j --filename="$dir/f" --size=1m --bs=4k --rw=randwrite --iodepth=8 \
		"${opts[@]}" --output-format=terse >/dev/null
}

replay_into() {	# trace root
	rm -rf "$2" && mkdir "$2"
	"$IOTAPE" replay --verify "$1" --root "$2" >"$1.replay" 2>&1 ||
		fail "replay --verify $1 exited $?: $(cat "$1.replay")"
	grep -Eq '^  mismatches +0$' "$1.replay" || fail "$1: $(cat "$1.replay")"
}

for e in $engines; do
	fio_run "$e" "$d/w.$e" "$IOTAPE" record --data -o "$e.iotape" -- 2>"$e.err" ||
		fail "fio $e: record --data failed: $(cat "$e.err")"
	grep -q "data: .* and 256 async write requests, every write's bytes" "$e.err" ||
		fail "fio $e: the summary does not say 256 requests kept their bytes: $(cat "$e.err")"
	n=$("$IOTAPE" dump "$e.iotape" | grep -c 'submit .* \[data 4096\]$')
	[ "$n" = 256 ] || fail "fio $e: $n requests with their 4096 bytes in the dump, want 256"
	"$IOTAPE" check "$e.iotape" >"$e.check"
	grep -q '^  data  .* 256 async write requests with their bytes kept (1.0 MiB)' "$e.check" ||
		fail "fio $e: check does not count the kept requests: $(cat "$e.check")"
	! grep -q 'not captured the bytes of' "$e.check" ||
		fail "fio $e: check says bytes were not captured: $(cat "$e.check")"
	# the report counts the requests in its bytes and its data line
	"$IOTAPE" report "$e.iotape" >"$e.report"
	grep -q '^  bytes: .* moved by calls, 1.0 MiB by async requests' "$e.report" ||
		fail "fio $e: the report's bytes line: $(head -8 "$e.report")"
	grep -q '^  data: .*; 256 async write requests with their bytes kept (1.0 MiB), 0 without (0 B)$' \
		"$e.report" || fail "fio $e: the report's data line: $(head -8 "$e.report")"
	grep -Eq '^  total +[0-9].* 1\.[0-9] MiB$' "$e.report" ||
		fail "fio $e: the report's total bytes do not hold the requests': $(grep '^  total' "$e.report")"
	replay_into "$e.iotape" "$d/root.$e"
	# the requests and fio's few plain writes (its terse report)
	grep -Eq "^  data +2[5-9][0-9] writes write the program's own bytes .*; 0 recorded without" \
		"$e.iotape.replay" ||
		fail "fio $e: the replay does not count the requests' bytes: $(cat "$e.iotape.replay")"
	cmp "$d/w.$e/f" "$d/root.$e$d/w.$e/f" ||
		fail "fio $e: the replayed file is not the one fio wrote"
done

# without --data: the replay's pattern, not fio's bytes
fio_run libaio "$d/w.plain" "$IOTAPE" record -q -o plain.iotape -- || fail "fio: record failed"
replay_into plain.iotape "$d/root.plain"
! cmp -s "$d/w.plain/f" "$d/root.plain$d/w.plain/f" ||
	fail "a replay of a trace without --data wrote fio's bytes"

# io_uring's vectored and registered-file writes
if [ "$engines" != libaio ]; then
	mkdir "$d/u"
	"$IOTAPE" record --data -o ops.iotape -- "$PROGS/uring_ops" "$d/u" 2>ops.err ||
		fail "uring_ops: record --data failed: $(cat ops.err)"
	"$IOTAPE" dump ops.iotape | grep -q 'submit writev(.*\[data 8192\]$' ||
		fail "uring_ops: the writev request keeps no bytes: $("$IOTAPE" dump ops.iotape | grep submit)"
	replay_into ops.iotape "$d/root.ops"
	for f in sub/b sub/d; do
		cmp "$d/u/$f" "$d/root.ops$d/u/$f" || fail "uring_ops: the replayed $f differs"
	done
fi

# the bpf backend reads no program memory: nothing kept, and said
if "$IOTAPE" record -q --backend bpf -o probe.iotape -- true 2>/dev/null; then
	fio_run libaio "$d/w.bpf" "$IOTAPE" record --backend bpf --data -o bpf.iotape -- 2>bpf.err ||
		fail "fio libaio: record --backend bpf --data failed: $(cat bpf.err)"
	grep -q "data: not kept: the bytes of 256 async write requests (1.0 MiB: logged by BPF" bpf.err ||
		fail "record --backend bpf --data: the summary does not say the requests' bytes were not kept: $(cat bpf.err)"
	"$IOTAPE" check bpf.iotape | grep -q 'not captured the bytes of 256 async write requests (1.0 MiB)' ||
		fail "check of a bpf trace: $("$IOTAPE" check bpf.iotape)"
	"$IOTAPE" report bpf.iotape | grep -q '^  data: .*; 0 async write requests with their bytes kept (0 B), 256 without (1.0 MiB)$' ||
		fail "report of a bpf trace: $("$IOTAPE" report bpf.iotape | head -8)"
	# its replay counts the 256 requests among the writes without their bytes
	replay_into bpf.iotape "$d/root.bpf"
	n=$(sed -En "s/^  data +[0-9]+ writes write the program's own bytes .*; ([0-9]+) recorded without.*/\1/p" \
		bpf.iotape.replay)
	[ -n "$n" ] && [ "$n" -ge 256 ] ||
		fail "the replay of a bpf --data trace counts ${n:-no} writes without their bytes, want >= 256: $(cat bpf.iotape.replay)"
else
	echo "the bpf backend does not load here: its case is left out"
fi
echo "ok"
