#!/bin/bash
# record_inherit.sh - a recorded program starts with the descriptors the
# recorder was given, and none the recorder had open when it forked it.
#
# The bpf backend forks the program while its programs load in a thread;
# a descriptor that thread held without close-on-exec at that instant
# (its fopen() of /proc/sys/kernel/pid_max) stayed open in the program and
# every process it started when the fork fell between its open and close:
# GNU ld's crti.o then came as descriptor 7, not 6, in a recording of
# record_bpf.sh's make.
# The shim tests/shim/forkfd.so holds such a descriptor (on "stray") at
# every fork the recorder makes, each time.  The program, run with
# descriptor 5 open on "kept" by the shell, must list 5 among its own and
# not "stray"; it closes 3, 4 and 6-9, and no call in the trace may name
# "stray" (the recorder's table of its descriptors has it neither).
# Recorded with ptrace (with the fast path and without), bpf and mixed
# where they load.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
SHIM=$SRCDIR/$BUILD/tests/shim/forkfd.so
[ -f "$SHIM" ] || fail "$SHIM is not built (make tests)"
d=$(mktemp -d /tmp/iotape-inherit.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
record_backends "$d"
[[ " ${BACKENDS[*]} " == *" bpf "* ]] && BACKENDS+=(mixed)
echo data >kept
: >stray

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	env LD_PRELOAD="$SHIM" FORKFD_PATH="$d/stray" "$IOTAPE" record -q "${OPTS[@]}" \
		-o "$d/t.$b.iotape" -- sh -c 'ls -l /proc/$$/fd >fds
		exec 3>&- 4>&- 6>&- 7>&- 8>&- 9>&-; cat <&5' 5<kept >out 2>err ||
		fail "$b: record failed: $(tail -3 err)"
	grep -q ' 5 -> .*/kept$' fds || fail "$b: descriptor 5, given to the recorder, is not the program's: $(cat fds)"
	! grep -q 'stray' fds || fail "$b: the recorder's descriptor is open in the program: $(grep stray fds)"
	[ "$(cat out)" = data ] || fail "$b: cat <&5 read '$(cat out)'"
	"$IOTAPE" dump -y "$d/t.$b.iotape" >dump 2>&1 || fail "$b: dump failed: $(tail -3 dump)"
	! grep -q 'stray' dump || fail "$b: a call names the recorder's descriptor: $(grep -m3 stray dump)"
	grep -q '(5<[^>]*/kept>' dump || fail "$b: descriptor 5 is not named: $(grep -m3 '(5' dump)"
	echo "$b: descriptor 5 inherited, none of the recorder's"
done
exit 0
