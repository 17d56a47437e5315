#!/bin/bash
# replay_sock_names.sh - a Unix socket's name (tests/progs/sock_names.c):
# bind makes it (relative to the cwd), chmod and stat act on it, connect
# looks it up (found, missing: ENOENT, a name of the starting tree
# nobody listens on: ECONNREFUSED), an abstract bind makes no name, a
# connect to 127.0.0.1 looks up none, and unlink removes it; a socket's
# name made by mknod is stat'ed and unlinked.  Recorded with ptrace, with the fast path and with
# bpf (where it loads): the dump prints bind and connect with their
# absolute paths, and neither the abstract name nor the AF_INET connect; the trace has the starting
# tree's socket as S_IFSOCK; replayed on a scratch root with --verify,
# no call's result differs: the stat between bind and unlink found the
# name (before bind was recorded it replayed as ENOENT, and so did the
# chmod and the unlink; the mknod'ed name's stat and unlink differed
# while mknod skipped sockets).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
P=$PROGS/sock_names
[ -x "$P" ] || fail "$P is not built"
T=$(mktemp -d /var/tmp/iotape-sock.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=$T/w
mkdir "$W"
"$P" mk "$W/old" || fail "could not leave a socket's name at $W/old"

backends="ptrace fast"
! bpf_loads "$T" || backends="$backends bpf"
for b in $backends; do
	case $b in
	ptrace) opt=--no-fastpath ;;
	fast) opt= ;;
	bpf) opt="--backend bpf" ;;
	esac
	rm -rf "$W/sock"
	# shellcheck disable=SC2086
	"$IOTAPE" record -q $opt -o "$T/$b.iotape" -- "$P" "$W" "$W/old" ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b.iotape" >"$T/$b.dump" || fail "$b: dump: exit $?"
	grep -q "bind([0-9]*, {sa_family=AF_UNIX, sun_path=\"$W/sock/s.0\"}, 110) = 0" "$T/$b.dump" ||
		fail "$b: no bind of $W/sock/s.0 in the dump"
	grep -q "connect([0-9]*, {sa_family=AF_UNIX, sun_path=\"$W/sock/s.0\"}, 110) = 0" "$T/$b.dump" ||
		fail "$b: no connect to $W/sock/s.0 in the dump"
	grep -q "connect(.*sun_path=\"$W/sock/missing\".* = -1 ENOENT" "$T/$b.dump" ||
		fail "$b: no connect to the missing name failing with ENOENT"
	grep -q "connect(.*sun_path=\"$W/old\".* = -1 ECONNREFUSED" "$T/$b.dump" ||
		fail "$b: no connect to the old name refused"
	n=$(grep -c "bind(" "$T/$b.dump")
	[ "$n" = 1 ] || fail "$b: $n binds in the dump, 1 with a path (the abstract one is not kept)"
	n=$(grep -c "connect(" "$T/$b.dump")
	[ "$n" = 3 ] || fail "$b: $n connects in the dump, 3 to a path (the AF_INET one is not kept)"
	"$IOTAPE" dump -s "$T/$b.iotape" | grep -q "state \"$W/old\" S_IFSOCK" ||
		fail "$b: the trace has no S_IFSOCK state of $W/old"
	R=$T/r.$b
	mkdir "$R"
	"$IOTAPE" replay "$T/$b.iotape" --root "$R" --timing afap --verify -o "$T/$b.prof" \
		>"$T/out" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$T/out"; "$IOTAPE" dump "$T/$b.prof" | grep "result differs";
		fail "$b: replay: exit $rc (4: results differ)"; }
	[ -S "$R$W/old" ] || fail "$b: the replay's starting tree has no socket at $W/old"
	[ -e "$R$W/sock/s.0" ] && fail "$b: the replay left $W/sock/s.0 (its unlink did not run)"
done
echo "ok: bind, connect and the socket's chmod, stat and unlink replayed without a mismatch ($backends)"
