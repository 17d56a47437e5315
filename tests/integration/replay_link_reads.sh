#!/bin/bash
# replay_link_reads.sh - two ways a link was read that the replay got
# wrong:
#  - a symlink lstat'ed and then removed (`rm LINK`; `python3 -m venv
#    --clear` removing lib64 -> lib): the fast path leaves a symlink's
#    state to the recorder, which took it when it read the record, after
#    the unlink: absent, and the replay's lstat and unlink met ENOENT (2
#    mismatches, ptrace).  The fast path has the recorder read the record
#    at once now, while the link is there.
#  - readlink of a descriptor's magic link, /proc/self/fd/N (clamd on the
#    files it is passed; systemd-journal-remote): the recorder names the
#    file, which is no symlink, and the replay met EINVAL (750 of clamd's
#    calls).  The replay reads its own descriptor's link now.
# Recorded with ptrace (its fast path) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp linkreads
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	W=$T/$b/w
	mkdir -p "$W/lib" "$T/$b/r"
	ln -s lib "$W/lib64"
	echo x >"$W/f"
	(cd "$W" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PY" -c '
import os
os.lstat("lib64")
os.unlink("lib64")
fd = os.open("f", os.O_RDONLY)
print(os.readlink("/proc/self/fd/%d" % fd))') >"$T/$b/rec.out" 2>&1 ||
		{ cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	"$IOTAPE" dump --states "$T/$b/t.iotape" | grep -q "state \"$W/lib64\" S_IFLNK" ||
		{ "$IOTAPE" dump --states "$T/$b/t.iotape" | grep lib64; fail "$b: lib64's starting state is not the symlink"; }
	rm -rf "$W"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): the removed symlink's state and the descriptor's link read as recorded, 0 mismatches"
done
