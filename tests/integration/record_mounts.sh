#!/bin/bash
# record_mounts.sh - a workload that changes its mounts: `unshare -m`, a
# shell that binds one directory over another (`mount --bind data view`),
# reads and lists the files through the bind (unshare made its mounts
# private first: a mount call too), and unmounts it.  mount,
# umount2 and pivot_root were not recorded: the trace named view/a and
# view/b, whose states the recorder (under bpf, by name in its own
# namespace, where view is empty) took as absent, and neither the record
# nor the replay said anything of the mounts: the replay failed the reads
# and listed an empty view (3 mismatches) with no word why.  Now the calls
# are in the trace, the recording's summary warns that the workload changed
# its mounts, and the replay counts them as skipped ("mounts N") and says
# in its summary that calls under them may differ.  Recorded with ptrace
# (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
unshare -m true 2>/dev/null || skip "unshare -m fails here (no mount namespaces)"
record_tmp mounts

cmd="mount --bind $T/w/data $T/w/view && cat view/a view/b >out && ls view >ls && umount $T/w/view"
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/data" "$T/w/view" "$T/root"
	seq 100 >"$T/w/data/a"
	echo b >"$T/w/data/b"
	(cd "$T/w" && "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- unshare -m sh -c "$cmd") \
		>/dev/null 2>"$T/err" || fail "$b: recording the workload failed: $(cat "$T/err")"
	[ "$(wc -l <"$T/w/out")" = 101 ] || fail "$b: the workload did not read through the bind"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump"
	grep -q "mount(..., \"$T/w/view\", ..., 0x1000, ...) = 0" "$T/dump" ||
		fail "$b: the trace holds no bind mount on $T/w/view: $(grep -c 'mount(' "$T/dump") mount calls"
	grep -q "umount2(\"$T/w/view\", 0) = 0" "$T/dump" || fail "$b: the trace holds no umount2 of $T/w/view"
	grep -q "warning: the workload changed its mounts 3 times" "$T/err" ||
		fail "$b: the recording's summary does not warn of the mounts: $(cat "$T/err")"
	"$IOTAPE" replay --timing afap --root "$T/root" -o "$T/p.iotape" "$T/t.iotape" >"$T/rout" 2>&1 ||
		fail "$b: the replay failed: $(cat "$T/rout")"
	grep -q '^  ops .*mounts 3)$' "$T/rout" || fail "$b: the replay does not count 3 mounts skipped: $(grep '^  ops' "$T/rout")"
	grep -q '^  mounts       3 mount, umount2 or pivot_root calls of the workload not made' "$T/rout" ||
		fail "$b: the replay's summary does not say the mounts were not made: $(cat "$T/rout")"
	"$IOTAPE" dump "$T/p.iotape" | grep -q "mount(..., \"$T/w/view\", .*\[not replayed\]" ||
		fail "$b: the replayed profile does not mark the mount not replayed"
done
exit 0
