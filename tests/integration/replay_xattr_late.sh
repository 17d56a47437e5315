#!/bin/bash
# replay_xattr_late.sh - a file's extended attributes read and then
# changed: 20 files looked up (getxattr, ENODATA) and then given user.k,
# 20 more whose user.a is removed.  bpf and the fast path take a file's
# attributes from the file itself when the recorder reads the call's
# record, after the change had run: the starting tree had user.k from the
# start and no user.a (40 mismatches; setfacl -R over a tree: 15,559).
# Changes of attributes now stop in the recorder (bpf's guard; the fast
# path leaves them to ptrace), which reads what came before first.
# Recorded with ptrace (its fast path) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp xattrlate
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	W=$T/$b/w
	mkdir -p "$W" "$T/$b/r"
	"$PY" - "$W" <<'PY' || skip "this filesystem ($(stat -f -c %T "$T")) takes no user.* attributes"
import os, sys
for i in range(20):
    open("%s/f%d" % (sys.argv[1], i), "w").close()
    p = "%s/g%d" % (sys.argv[1], i)
    open(p, "w").close()
    os.setxattr(p, "user.a", b"1")
PY
	(cd "$W" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- "$PY" -c '
import os
for i in range(20):
    try:
        os.getxattr("f%d" % i, "user.k")
    except OSError:
        pass
    os.setxattr("f%d" % i, "user.k", b"v")
    os.removexattr("g%d" % i, "user.a")') || fail "$b: record: exit $?"
	rm -rf "$W"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	echo "ok ($b): the attributes' starting state is the one before the changes, 0 mismatches"
done
