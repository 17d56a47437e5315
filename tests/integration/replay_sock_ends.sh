#!/bin/bash
# replay_sock_ends.sh - a socket pair's ends, replayed as they were open
# or closed when recorded:
#  - pass_late: the parent writes 40 small messages to its child, a
#    little work between them, then one carrying a file (SCM_RIGHTS); the
#    child takes all 41 in one recvmsg.  Its replay found only the first
#    messages there, took the rest with read(), and the kernel dropped
#    the descriptor: the child's write through it was lost (1 mismatch,
#    the parent's read of the file; chromium's renderers lost channels so).
#  - sock_unread: the child sends a message its parent never reads; the
#    parent closes its end unread.  The close was ordered only on the way
#    its end writes, came first, and the send met EPIPE (1 mismatch).
#  - kill_send: the parent kills its child (SIGTERM, 16 MiB mapped) and
#    sends to it until EPIPE; its sends went through while the kernel
#    tore the child down.  The replay's child ended at once: 278 sends
#    met EPIPE (chromium's browser sending to renderers it had killed:
#    30-90 a replay).  Now a process keeps the socket ends it closes last
#    open until the last send into them, and a send that met EPIPE waits
#    for that process's end.  Recorded by ptrace, the child's write of
#    its "ready" byte, killed before its exit stop, was unfinished, and
#    the parent's read of it found nothing: the recorder now takes the
#    result from the registers at the exit event.
# Recorded with ptrace and with bpf where it loads; replayed three times.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
for p in pass_late sock_unread kill_send; do
	[ -x "$PROGS/$p" ] || fail "$PROGS/$p is not built (make tests)"
done
tmp_dir /var/tmp/iotape-test
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	for p in "pass_late 40" "sock_unread" "kill_send 16"; do
		set -- $p
		d="$T/$b/$1"
		mkdir -p "$d/w"
		# kill_send: a recording whose sends all met EPIPE at once shows
		# nothing; the kernel's teardown of 16 MiB takes long enough in
		# nearly every run
		for try in 1 2 3; do
			rm -rf "$d/w" && mkdir "$d/w"
			"$IOTAPE" record -q --backend "$b" -o "$d/t.iotape" -- "$PROGS/$1" "$d/w" ${2:-} \
				>"$d/rec.out" 2>&1 && break
			[ "$1" = kill_send ] && grep -q "^0 sends" "$d/rec.out" ||
				{ cat "$d/rec.out"; fail "$b, $1: record failed"; }
		done
		grep -q "^0 sends" "$d/rec.out" && fail "$b, $1: no send went through after the kill in 3 recordings"
		"$IOTAPE" dump "$d/t.iotape" >"$d/t.txt" || fail "$b, $1: dump exit $?"
		case $1 in
		pass_late) want=' recvmsg\([0-9]+, \{SCM_RIGHTS \[[0-9]+\]\}, 0x40000000\) = 4100 ' ;;
		sock_unread) want=' sendto\([0-9]+, \.\.\., 6, 0x4000, \.\.\., 0\) = 6 ' ;;
		kill_send) want=' sendto\([0-9]+, \.\.\., 1, 0x4040, \.\.\., 0\) = -1 EPIPE ' ;;
		esac
		grep -qE "$want" "$d/t.txt" || { grep -E "msg|send" "$d/t.txt" | tail; fail "$b, $1: no '$want' in the trace"; }
		rm -rf "$d/w"
		for i in 1 2 3; do
			rm -rf "$d/r" && mkdir "$d/r"
			replay_clean "$b, $1, round $i" "$d/t.iotape" "$d/r" "$d/out" --timing afap
		done
		echo "ok ($b, $1): 3 replays, 0 mismatches"
	done
done
