#!/bin/bash
# read_ahead.sh - the commands that read a trace in order decode the next
# chunk on a second thread (IOTAPE_READAHEAD, on by default); a damaged
# trace (cut at many offsets, bytes flipped in its chunks and its index)
# must give the same output, the same messages and the same exit status
# with it (one and three chunks ahead) as without it (IOTAPE_READAHEAD=0):
# report, check, dump, diff
# and export, on many.iotape (13 chunks) and on a long trace of many
# chunks cut and flipped in its middle.  strace shows that the thread is
# started with it and not without.
set -u
. "$(dirname "$0")/lib.sh"

need_iotape_cmd report
need_cmd strace
need_longtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk=$SRCDIR/tools/mkcorrupt.sh
T="timeout -k 5 60"

# same FILE CMD ARGS... - CMD on FILE without the thread and with it, one
# and three chunks ahead: stdout, stderr and exit status alike; sets rc
# (the exit status)
same() {
	local f=$1 cmd=$2 a
	shift 2
	for a in 0 1 3; do
		IOTAPE_READAHEAD=$a $T "$IOTAPE" $cmd "$@" "$f" >"$tmp/o$a" 2>"$tmp/e$a"
		echo $? >"$tmp/rc$a"
	done
	rc=$(cat "$tmp/rc1")
	for a in 1 3; do
		[ "$(cat "$tmp/rc$a")" -lt 124 ] || fail "iotape $cmd $f: exit $(cat "$tmp/rc$a") (crash or hang)"
		cmp -s "$tmp/rc0" "$tmp/rc$a" || fail "iotape $cmd $* $f: exit $(cat "$tmp/rc0") without" \
			"the thread, $(cat "$tmp/rc$a") with it ($a ahead)"
		cmp -s "$tmp/e0" "$tmp/e$a" ||
			fail "iotape $cmd $* $f: stderr differs ($a ahead): $(diff "$tmp/e0" "$tmp/e$a")"
		cmp -s "$tmp/o0" "$tmp/o$a" ||
			fail "iotape $cmd $* $f: output differs ($a ahead): $(diff "$tmp/o0" "$tmp/o$a" | head -20)"
	done
}

# every FILE - every command; counts the damaged exits in $damaged
every() {
	same "$1" report
	[ "$rc" = 3 ] && damaged=$((damaged + 1))
	same "$1" report --json
	same "$1" check
	same "$1" dump
	same "$1" dump --count
	same "$1" diff "$intact"
	same "$1" export --format csv
}

# 1. many.iotape: cut at many offsets, bytes flipped in chunks and index
intact=$DATA/many.iotape
size=$(wc -c <"$intact")
cend=$("$mk" chunk-end "$intact")
damaged=0
for off in $(seq 300 $((size / 10)) "$size") $((cend - 1)) $((cend + 5)); do
	"$mk" truncate "$intact" "$off" "$tmp/t.iotape"
	every "$tmp/t.iotape"
done
for off in $((cend / 2)) $((cend * 3 / 4)) $((cend - 30)) $((size - 20)); do
	"$mk" flip "$intact" "$off" "$tmp/x.iotape"
	every "$tmp/x.iotape"
done
[ "$damaged" -ge 8 ] || fail "only $damaged of the damaged files were reported damaged by report"

# 2. a long trace (200,000 events, chunks of 512): damage in its middle,
# where the thread has decoded ahead of the chunk read
"$GEN" -n 200000 -f 512 "$SRCDIR/traces/tar.iotape" "$tmp/long.iotape" >/dev/null ||
	fail "longtrace failed"
intact=$tmp/long.iotape
size=$(wc -c <"$intact")
damaged=0
for off in $((size / 3)) $((size / 2)); do
	"$mk" truncate "$intact" "$off" "$tmp/t.iotape"
	same "$tmp/t.iotape" report
	[ "$rc" = 3 ] || fail "report of the long trace cut at $off exited $rc, not 3"
	same "$tmp/t.iotape" check
	[ "$rc" = 3 ] || fail "check of the long trace cut at $off exited $rc, not 3"
	"$mk" flip "$intact" "$off" "$tmp/x.iotape"
	same "$tmp/x.iotape" report
	[ "$rc" = 3 ] || fail "report of the long trace flipped at $off exited $rc, not 3"
	grep -q 'corrupt frame' "$tmp/e1" || fail "flip at $off: no 'corrupt frame' message: $(cat "$tmp/e1")"
	same "$tmp/x.iotape" check
	same "$tmp/x.iotape" dump --count
done

# 3. the thread is there with it, and not without
for a in 0 1; do
	IOTAPE_READAHEAD=$a strace -f -qq -e trace=clone,clone3 -o "$tmp/st$a" \
		"$IOTAPE" report "$tmp/long.iotape" >/dev/null 2>&1 ||
		fail "report under strace (IOTAPE_READAHEAD=$a) exited $?"
done
# a thread, not another task (a sanitizer's tracer is one without CLONE_THREAD)
grep -q 'CLONE_THREAD' "$tmp/st1" || fail "IOTAPE_READAHEAD=1: report started no thread"
grep -q 'CLONE_THREAD' "$tmp/st0" && fail "IOTAPE_READAHEAD=0: report started a thread: $(cat "$tmp/st0")"
echo "ok"
