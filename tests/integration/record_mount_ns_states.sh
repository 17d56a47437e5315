#!/bin/bash
# record_mount_ns_states.sh - the starting states of the files a workload
# reads through its own bind mount are taken in its mount namespace.
# `unshare -m sh -c 'mount --bind data view; cat view/a ...'` names
# view/a; the recorder took its state by that name in its own namespace
# (bpf, and ptrace without the fast path), where view is the empty
# directory under the bind: the trace said the files did not exist, and
# the replay's reads failed (ENOENT).  Now a task in another namespace
# has its states taken through /proc/self/fd/N, N its root
# (/proc/TID/root): the trace holds the files as the workload saw them,
# and the replay reads them.  Then tests/progs/ns_bind: one program
# that unshares, reads view/a (the directory's own file) and binds data
# over view, then reads view/c (data's): under bpf its calls were decoded
# after the bind, view/a looked up in data (absent), and after its end
# (no namespace to look in: view/c absent); the calls that change the
# mounts, root or namespace now stop in the bpf guard, which drains the
# calls before them.  Recorded with ptrace (fast path and not) and bpf
# where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
unshare -m true 2>/dev/null || skip "unshare -m fails here (no mount namespaces)"
record_tmp mount-ns-states

cmd="mount --bind $T/w/data $T/w/view && cat view/a view/sub/b >out &&
	sha256sum view/a view/sub/c >sum && tar cf t.tar view"
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/data/sub" "$T/w/view" "$T/root"
	seq 100 >"$T/w/data/a"
	echo b >"$T/w/data/sub/b"
	seq 2000 >"$T/w/data/sub/c"
	(cd "$T/w" && "$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- unshare -m sh -c "$cmd") \
		>/dev/null 2>"$T/err" || fail "$b: recording the workload failed: $(cat "$T/err")"
	[ "$(wc -l <"$T/w/out")" = 101 ] || fail "$b: the workload did not read through the bind"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	for f in a:S_IFREG sub:S_IFDIR sub/b:S_IFREG sub/c:S_IFREG; do
		grep -q "state \"$T/w/view/${f%%:*}\" ${f#*:}|" "$T/dump" ||
			fail "$b: the state of view/${f%%:*} is not the bound ${f#*:}: $(grep "state \"$T/w/view/${f%%:*}\"" "$T/dump")"
	done
	grep -q "state \"$T/w/view/sub/c\" S_IFREG|0644 size=8893 " "$T/dump" ||
		fail "$b: the state of view/sub/c is not the bound file's: $(grep "state \"$T/w/view/sub/c\"" "$T/dump")"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/rout" --timing afap -o "$T/p.iotape"

	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w/data" "$T/w/view" "$T/root"
	echo old >"$T/w/view/a"
	seq 100 >"$T/w/data/c"
	"$IOTAPE" record "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/ns_bind" "$T/w" >"$T/out" 2>"$T/err" ||
		fail "$b: recording ns_bind failed: $(cat "$T/err")"
	[ "$(cat "$T/out")" = "4 292" ] || fail "$b: ns_bind read $(cat "$T/out"), not 4 292"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	grep -q "state \"$T/w/view/a\" S_IFREG|0644 size=4 " "$T/dump" ||
		fail "$b: ns_bind: the state of view/a is not the file under the bind: $(grep "state \"$T/w/view/a\"" "$T/dump")"
	grep -q "state \"$T/w/view/c\" S_IFREG|0644 size=292 " "$T/dump" ||
		fail "$b: ns_bind: the state of view/c is not the bound file: $(grep "state \"$T/w/view/c\"" "$T/dump")"
	replay_clean "$b: ns_bind" "$T/t.iotape" "$T/root" "$T/rout" --timing afap -o "$T/p.iotape"
done
exit 0
