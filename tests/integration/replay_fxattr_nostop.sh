#!/bin/bash
# replay_fxattr_nostop.sh - attributes set through a descriptor.  The bpf
# backend's guard stopped every fsetxattr, and cp -a sets one or more on
# each file it makes (its user.* attributes, its ACL): one stop per file
# copied.  It now stops only a set that must create the name
# (XATTR_CREATE) and a removal: their file's attributes must be taken
# before them, or the replay finds the name there (EEXIST) or gone
# (ENODATA).  Here: cp -a of 40 files with user.* attributes (fewer stops
# than files, 0 mismatches, the copies' attributes made, of the recorded lengths: the trace keeps no
# value a program set), and a program
# that opens 10 files of the starting tree with user.a and, through the
# descriptor, fails to create user.a, creates user.b, removes user.a and
# sets user.c over its old value: 0 mismatches.  bpf only; it skips where
# bpf does not load.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp fxattr
bpf_loads "$T" || skip "the bpf backend does not load here"
W=$T/w
mkdir -p "$W/src"
"$PY" - "$W" <<'PY' || skip "this filesystem ($(stat -f -c %T "$T")) takes no user.* attributes"
import os, sys
w = sys.argv[1]
for i in range(40):
    p = "%s/src/f%d" % (w, i)
    with open(p, "w") as f:
        f.write("x" * i)
    os.setxattr(p, "user.k", b"v%d" % i)
for i in range(10):
    p = "%s/g%d" % (w, i)
    open(p, "w").close()
    os.setxattr(p, "user.a", b"1")
    os.setxattr(p, "user.c", b"old-value")
PY

(cd "$W" && "$IOTAPE" record --backend bpf -o "$T/cp.iotape" -- cp -a src dst \
	>/dev/null 2>"$T/cp.err") || fail "record cp -a: exit $?: $(cat "$T/cp.err")"
stops=$(sed -n 's/.* \([0-9]*\) stops before calls that change names.*/\1/p' "$T/cp.err")
[ -n "$stops" ] || stops=0
[ "$stops" -lt 40 ] || fail "cp -a of 40 files stopped $stops times (each fsetxattr stops)"
grep -q "extended attributes set through a descriptor" "$T/cp.err" &&
	fail "cp -a: its own files' attributes counted as taken late: $(cat "$T/cp.err")"
echo "ok: cp -a of 40 files with attributes: $stops stops"

(cd "$W" && "$IOTAPE" record -q --backend bpf -o "$T/fd.iotape" -- "$PY" -c '
import errno, os
for i in range(10):
    fd = os.open("g%d" % i, os.O_RDONLY)
    try:
        os.setxattr(fd, "user.a", b"2", os.XATTR_CREATE)
        raise SystemExit("user.a created over itself")
    except OSError as e:
        if e.errno != errno.EEXIST:
            raise
    os.setxattr(fd, "user.b", b"new", os.XATTR_CREATE)
    os.removexattr(fd, "user.a")
    os.setxattr(fd, "user.c", b"n")
    os.close(fd)') || fail "record the program: exit $?"
rm -rf "$W/dst" "$W"/g*

mkdir -p "$T/r1" "$T/r2"
replay_clean "cp -a" "$T/cp.iotape" "$T/r1" "$T/cp.out" --timing afap
n=$("$PY" -c 'import os, sys
d = sys.argv[1]
print(sum(1 for f in os.listdir(d) if len(os.getxattr(os.path.join(d, f), "user.k")) == len(f)))' \
	"$T/r1$W/dst") || fail "the replayed copies: no attributes"
[ "$n" = 40 ] || fail "the replayed copies: $n of 40 have their user.k"
replay_clean "fsetxattr" "$T/fd.iotape" "$T/r2" "$T/fd.out" --timing afap
echo "ok: sets and removals through descriptors replay with 0 mismatches"
