#!/bin/bash
# replay_proc_fd_name.sh - a name under a directory's descriptor,
# /proc/self/fd/N/NAME (GNU tar --acls sets ACLs so, through libacl, and
# so do programs that emulate the *at calls): the recorder mapped only
# /proc/self/fd/N itself, kept the /proc path, and the replay left the
# calls out; what they made and set was missing (a getxattr ENODATA, a
# stat ENOENT: 227 of a tar --acls extraction's calls).  Now such a path
# is the directory's path and NAME.  Recorded with ptrace and with bpf
# where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp procfdname
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	W=$T/$b/w
	mkdir -p "$W/d" "$T/$b/r"
	echo x >"$W/d/f"
	(cd "$W" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PY" -c '
import os
os.close(os.open("d/g", os.O_WRONLY | os.O_CREAT, 0o644))
try:
    os.stat("d/new")
except OSError:
    pass
fd = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
os.setxattr("/proc/self/fd/%d/g" % fd, "user.k", b"v")
os.close(os.open("/proc/self/fd/%d/new" % fd, os.O_WRONLY | os.O_CREAT, 0o644))
print(os.getxattr("d/g", "user.k"), os.stat("d/new").st_size)') >"$T/$b/rec.out" 2>&1 ||
		{ cat "$T/$b/rec.out"; skip "user.* attributes or the recording failed here ($b)"; }
	"$IOTAPE" dump "$T/$b/t.iotape" | grep -q "setxattr(\"$W/d/g\", \"user.k\"" ||
		fail "$b: the setxattr through /proc/self/fd/N/g is not on $W/d/g in the trace"
	rm -rf "$W"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	[ -e "$T/$b/r$W/d/new" ] || fail "$b: the replay did not make d/new"
	echo "ok ($b): calls through /proc/self/fd/N/NAME replayed on the directory's names, 0 mismatches"
done
