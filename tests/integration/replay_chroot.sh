#!/bin/bash
# replay_chroot.sh - a workload that chroot()s: `chroot d busybox sh`
# (busybox is statically linked: it runs in a bare directory) making a
# directory and files under its new root, reading them, listing "/".
# Its names after the chroot are under d; the recorder now follows each
# process's root (chroot is recorded, inherited by children, nested
# roots resolved under the one before), so the trace names d/x where
# the program said /x.  Before, the trace said /x: the replay made it at
# the top of its root, and the listing of "/" and the stat of the old
# cwd failed (4-7 mismatches; the tree left differed).  Then chroot's
# note: under --backend ptrace the fast path's library is outside the
# new root, and the summary says that programs started there recorded at
# stops.  Recorded with ptrace (fast path and not) and bpf where it
# loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
BB=$(command -v busybox) || fail "busybox is not installed (make check installs busybox-static)"
record_tmp chroot

cmd="B=/bin/busybox; \$B mkdir /x && echo hi >/x/f && \$B cat /x/f >/x/copy && \$B mkdir /x/y && \$B ls / >/x/ls && cd /x && echo there >y/g"
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$T/d"
	mkdir -p "$T/root" "$T/d/bin"
	cp "$BB" "$T/d/bin/busybox"
	(cd "$T" && "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- \
		chroot d /bin/busybox sh -c "$cmd") >/dev/null 2>"$T/err" ||
		fail "$b: recording the chroot failed: $(cat "$T/err")"
	[ "$(cat "$T/d/x/f")" = hi ] || fail "$b: the workload did not run under d"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
	grep -q "chroot(\"$T/d\") = 0" "$T/dump" || fail "$b: the trace holds no chroot of $T/d"
	grep -q "mkdir(\"$T/d/x\", " "$T/dump" || fail "$b: mkdir /x is not $T/d/x in the trace: $(grep 'mkdir(' "$T/dump" | head -3)"
	grep -q "openat(AT_FDCWD, \"$T/d/x/y/g\"" "$T/dump" ||
		fail "$b: y/g from the cwd /x is not $T/d/x/y/g in the trace"
	if [ "$b" = ptrace ]; then
		grep -q "chroot() made a new root 1 times" "$T/err" ||
			fail "$b: the summary does not say the chroot's programs ran without the fast path: $(cat "$T/err")"
	fi
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/rout"
	[ -f "$T/root$T/d/x/y/g" ] || fail "$b: the replay did not make $T/d/x/y/g"
	[ ! -e "$T/root/x" ] || fail "$b: the replay made /x at the top of its root"
done
exit 0
