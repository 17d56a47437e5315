#!/bin/bash
# replay_lock_owner.sh - a POSIX record lock is its process's, not its
# open file's: tests/progs/lock_owner's parent locks bytes 0-9 of a file
# through two opens of it (granted both times), its forked child asks for
# them through the descriptor it inherited (refused), the parent closes
# its second descriptor (which releases all its locks of the file), and
# the child, through an open of its own, is granted them.  The replay,
# whose threads are one process, took each lock on the descriptor's own
# open file: the parent's second lock was refused, the child's first
# granted, its last refused (3 of 4 answers otherwise).  Now one open per
# recorded process and file holds that process's locks, until it closes
# a descriptor of the file or ends.  Recorded with the default backend
# and with ptrace.  Then the second descriptor closed otherwise: by a
# close_range of it, a dup2 onto it, or an exec (it is close-on-exec);
# each released the locks when recorded, not in the replay (the child's
# last lock refused: 1 mismatch each) until 2026-12-07.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
[ -x "$PROGS/lock_owner" ] || fail "$PROGS/lock_owner is not built (make tests)"
tmp_dir /var/tmp/iotape-test
for run in "auto close" "ptrace close" "auto close_range" "auto dup2" "auto exec"; do
	set -- $run
	b=$1-$2
	mkdir -p "$T/$b/w" "$T/$b/r"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$1" -o "$T/$b/t.iotape" -- \
		"$PROGS/lock_owner" "$T/$b/w/f" "$2") || fail "$b: record: exit $? (the program's answers were not POSIX's)"
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -E ' fcntl\([0-9]+, F_SETLK, ' |
		sed -E 's/^ *[0-9]+ +[0-9.]+ //; s/ <[0-9.]+>.*//' >"$T/$b/locks"
	n=$(grep -c ' = 0$' "$T/$b/locks")
	e=$(grep -c ' = -1 EAGAIN' "$T/$b/locks")
	[ "$n" = 3 ] && [ "$e" = 1 ] ||
		{ cat "$T/$b/locks"; fail "$b: the trace does not hold 3 locks granted and 1 refused"; }
	"$IOTAPE" replay "$T/$b/t.iotape" --root "$T/$b/r" -o "$T/$b/p.iotape" >"$T/$b/out" 2>&1 ||
		{ cat "$T/$b/out"; fail "$b: replay exit $?"; }
	grep -q "^  mismatches   0$" "$T/$b/out" || {
		cat "$T/$b/out"
		"$IOTAPE" dump "$T/$b/p.iotape" | grep -E ' fcntl\([0-9]+, F_SETLK, '
		fail "$b: the replay's locks were answered otherwise"
	}
	echo "ok ($b): 3 locks granted and 1 refused, replayed with 0 mismatches"
done
