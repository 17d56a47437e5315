#!/bin/bash
# replay_openat2_resolve.sh - openat2 calls whose answers rest on their
# open_how.resolve (tests/progs/openat2_resolve): the trace kept flags
# and mode only, and the replay looked each path up from the root as an
# open: a symlink refused by RESOLVE_NO_SYMLINKS (ELOOP) was opened, a
# descriptor the program never had; "/f" met through RESOLVE_IN_ROOT,
# the directory's f when recorded, was the root's, ENOENT; absolute
# symlinks refused by RESOLVE_BENEATH (EXDEV) were followed.  Now the
# recorder keeps the bits after the call's arguments and the replay
# looks up with them, below the directory given where they confine it.
# Recorded with each backend that runs here, replayed once each.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/openat2_resolve" ] || fail "$PROGS/openat2_resolve is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=ptrace
[ "$(id -u)" = 0 ] && "$IOTAPE" record -q --backend bpf -o "$T/probe.iotape" -- true 2>/dev/null &&
	backends="ptrace bpf"
for b in $backends; do
	rm -rf "$T/w" && mkdir "$T/w"
	"$IOTAPE" record -q --backend "$b" -o "$T/$b.iotape" -- "$PROGS/openat2_resolve" "$T/w" ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b.iotape" >"$T/$b.dump"
	grep -q "openat2(AT_FDCWD, \"$T/w/d/l\", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_NO_SYMLINKS}) = -1 ELOOP" \
		"$T/$b.dump" || fail "$b: the trace holds no openat2 with RESOLVE_NO_SYMLINKS refused"
	[ "$(grep -c 'resolve=' "$T/$b.dump")" = 8 ] ||
		fail "$b: $(grep -c 'resolve=' "$T/$b.dump") of 8 openat2 calls have their resolve bits"
	rm -rf "$T/w" "$T/r" && mkdir "$T/r"
	WHY="an openat2 looked up without its resolve bits" \
		replay_clean "$b" "$T/$b.iotape" "$T/r" "$T/out" --timing afap
done
echo "ok: 8 openat2 calls with resolve bits, 0 mismatches ($backends)"
