#!/bin/bash
# replay_sendfile_eof.sh - `busybox cat` of a 64 KiB file into a pipe
# whose reader waits 0.3 s: cat sendfile()s until end of file, and the
# last call, into the full pipe, waited for room before it found the end
# (0).  The replay's pipes do not block, and that call met EAGAIN (1
# mismatch in every replay); it waits for room now and calls again.
# Recorded with the default backend, replayed twice.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
command -v busybox >/dev/null || fail "busybox is not installed (make check installs busybox-static)"
tmp_dir /var/tmp/iotape-test
mkdir -p "$T/w"
head -c 65536 /dev/urandom >"$T/w/f64k"
"$IOTAPE" record -q -o "$T/t.iotape" -- sh -c \
	"busybox cat $T/w/f64k | { sleep 0.3; cat >/dev/null; }" || fail "record: exit $?"
"$IOTAPE" dump "$T/t.iotape" | grep -qE ' sendfile\(1, [0-9]+, NULL, [0-9]+\) = 0 ' ||
	{ "$IOTAPE" dump "$T/t.iotape" | grep sendfile; fail "the trace holds no sendfile that found the end of its input"; }
rm -rf "$T/w"
for i in 1 2; do
	rm -rf "$T/r" && mkdir "$T/r"
	replay_clean "round $i" "$T/t.iotape" "$T/r" "$T/out" --timing afap
done
echo "ok: a sendfile that found the end of its input after waiting for room, replayed as recorded twice"
