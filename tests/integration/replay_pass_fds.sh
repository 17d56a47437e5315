#!/bin/bash
# replay_pass_fds.sh - descriptors passed over a Unix socket (SCM_RIGHTS):
# tests/progs/pass_fds opens two files, sends both to its forked child in
# one sendmsg and closes its copies; the child receives them (recvmsg,
# MSG_CMSG_CLOEXEC) and writes 64 KiB into each (4 bytes more into the
# first); the parent then reads both back.  sendmsg and recvmsg were not
# recorded at all: the replay did not know which files the child's
# descriptors were, skipped its writes, and the parent's reads found the
# files empty (2 mismatches).  Now both calls are in the trace with the
# descriptors their message carried, from the ptrace and the bpf backend
# alike; the replay passes its own descriptors the same way, and the
# files come out as the program left them.  Then through a named Unix
# socket (pass_fds ... named: bind, listen, accept in the parent, connect
# in the child), which the replay did not make at all (its connect only
# looked the name up): the same, through the replay's own named socket,
# made under the root.  The bpf half needs the bpf backend (left out,
# with the reason, where it does not load).
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/pass_fds" ] || fail "$PROGS/pass_fds is not built (make tests)"
tmp_dir /var/tmp/iotape-test
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
for mode in pair named; do
	named=
	[ $mode = named ] && named=named
	rm -rf "$T/$b"
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- \
		"$PROGS/pass_fds" "$T/$b/w" 64 $named) || fail "$b: record: exit $?"
	"$IOTAPE" dump "$T/$b/t.iotape" >"$T/$b/t.txt" || fail "$b: dump exit $?"
	# the parent's two files, by the numbers its opens returned
	fa=$(sed -n 's/.* openat(AT_FDCWD, ".*\/a\.out", O_WRONLY|O_CREAT|O_TRUNC, 0644) = \([0-9]*\) .*/\1/p' "$T/$b/t.txt")
	fb=$(sed -n 's/.* openat(AT_FDCWD, ".*\/b\.out", O_WRONLY|O_CREAT|O_TRUNC, 0644) = \([0-9]*\) .*/\1/p' "$T/$b/t.txt")
	[ -n "$fa" ] && [ -n "$fb" ] || { cat "$T/$b/t.txt"; fail "$b: the parent's opens are not in the trace"; }
	grep -q " sendmsg([0-9]*, {SCM_RIGHTS \[$fa, $fb\]}, 0) = 1 " "$T/$b/t.txt" ||
		{ grep msg "$T/$b/t.txt"; fail "$b: no sendmsg carrying descriptors $fa and $fb"; }
	got=$(sed -n 's/.* recvmsg([0-9]*, {SCM_RIGHTS \[\([0-9]*\), \([0-9]*\)\]}, 0x40000000) = 1 .*/\1 \2/p' "$T/$b/t.txt")
	[ -n "$got" ] || { grep msg "$T/$b/t.txt"; fail "$b: no recvmsg given two descriptors"; }
	set -- $got
	grep -q " write($1, \.\.\., 1024) = 1024 " "$T/$b/t.txt" &&
		grep -q " write($2, \.\.\., 1024) = 1024 " "$T/$b/t.txt" ||
		fail "$b: the child's writes through $1 and $2 are not in the trace"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out"
	a=$(stat -c %s "$T/$b/r$T/$b/w/a.out" 2>/dev/null)
	bb=$(stat -c %s "$T/$b/r$T/$b/w/b.out" 2>/dev/null)
	[ "$a" = 65540 ] && [ "$bb" = 65536 ] ||
		{ cat "$T/$b/out"; fail "$b: the replayed files hold $a and $bb bytes, not 65540 and 65536"; }
	if [ $mode = named ]; then
		for c in "bind([0-9]*, {sa_family=AF_UNIX, sun_path=\"$T/$b/w/sock\"}, 110) = 0" \
			"listen([0-9]*, 4) = 0" "accept([0-9]*, \.\.\., \.\.\.) = [0-9]" \
			"connect([0-9]*, {sa_family=AF_UNIX, sun_path=\"$T/$b/w/sock\"}, 110) = 0"; do
			grep -q " $c" "$T/$b/t.txt" || fail "$b, $mode: no '$c' in the trace"
		done
		[ -S "$T/$b/r$T/$b/w/sock" ] || fail "$b, $mode: the replay made no socket named $T/$b/w/sock under its root"
	fi
	echo "ok ($b, $mode): sendmsg passed $fa, $fb; recvmsg got $1, $2; replayed files 65540 and 65536 bytes, 0 mismatches"
done
done
