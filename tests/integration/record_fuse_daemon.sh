#!/bin/bash
# record_fuse_daemon.sh - a workload that starts its own FUSE daemon
# (tests/progs/faultfs, passing calls through to a backing directory) and
# works through its mount: creates and appends to files, makes a
# directory, copies, lists, removes, and unmounts.  The daemon is one of
# the workload's processes, so the recorder follows it: under ptrace it
# stops at the recorder's stops, under bpf at the guard's notifications
# before calls that change names.  The recorder took the states of the
# paths under the mount by lstat() and listxattr() from the thread that
# serves those stops: each waited for the daemon's answer while the daemon
# waited for the recorder, and the recording never ended (every recording
# under ptrace; fuse-overlayfs under bpf, one in three).  Now no state is
# taken under a FUSE mount made while recording (fuse_mounts.c), and the
# summary says so.  A recording still running after 60 s is taken as hung.
# Recorded with ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
[ -e /dev/fuse ] || skip "no /dev/fuse (FUSE unavailable)"
FFS=$PROGS/faultfs
[ -x "$FFS" ] || fail "$FFS is not built (libfuse3-dev: tools/deps.sh check)"
record_tmp fuse_daemon
# a daemon or mount left by a hung recording goes before $T is removed
cleanup() {
	local p
	for p in $(cat "$T/ffs.pid" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	grep -q " $T/w/mnt " /proc/self/mountinfo && umount -l "$T/w/mnt"
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

cat >"$T/cmd.sh" <<EOS
$FFS $T/w/back $T/w/mnt & echo \$! >$T/ffs.pid
i=0
while ! grep -q " $T/w/mnt .* fuse.faultfs" /proc/self/mountinfo; do
	i=\$((i + 1)); [ \$i -lt 200 ] || exit 9; sleep 0.05
done
cd $T/w/mnt
echo one >f && echo two >>f && mkdir d && cp f d/g && ls -l d >../ls && rm f && cat d/g >../out
cd $T/w
umount $T/w/mnt
wait
EOS
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/back" "$T/w/mnt" "$T/root"
	echo zero >"$T/w/back/f"
	rc=0
	timeout -s KILL 60 "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- sh "$T/cmd.sh" \
		>/dev/null 2>"$T/err" || rc=$?
	[ $rc != 137 ] || fail "$b: the recording hung (killed after 60 s): recorder and FUSE daemon waiting for each other"
	[ $rc = 0 ] || fail "$b: recording the workload failed ($rc): $(cat "$T/err")"
	[ "$(cat "$T/w/out")" = "$(printf 'one\ntwo')" ] || fail "$b: the workload did not write through the mount"
	grep -q "warning: the workload mounted 1 FUSE filesystems: no starting state was taken under them" "$T/err" ||
		fail "$b: the recording's summary does not say no state was taken under the FUSE mount: $(cat "$T/err")"
	"$IOTAPE" dump --states "$T/t.iotape" | grep -q "state \"$T/w/mnt/" &&
		fail "$b: the trace holds a state under the FUSE mount"
	"$IOTAPE" replay --timing afap --root "$T/root" -o "$T/p.iotape" "$T/t.iotape" >"$T/rout" 2>&1 ||
		fail "$b: the replay failed: $(cat "$T/rout")"
	grep -q '^  mounts       2 mount, umount2 or pivot_root calls of the workload not made' "$T/rout" ||
		fail "$b: the replay's summary does not say the mount and unmount were not made: $(cat "$T/rout")"
done
exit 0
