#!/bin/bash
# replay_acl_made.sh - the access ACL a program copies from a file the
# workload made: sed -i reads the ACL of the file it edits (none,
# ENODATA), writes its temporary file, sets on it the ACL that stands for
# the first file's mode and renames it over that file.  The value of a
# setxattr is not recorded; the replay builds an ACL of the mode of the
# file whose xattrs were read, taken from its first state, which said the
# file did not exist yet (mode 0): the file came out with mode 0, and
# under pg_basebackup's user the server's next open of its
# postgresql.conf failed (EACCES).  A state of a file not there yet now
# gives way to the file's mode in the root.  The same steps from Python
# (sed's own depend on how it was built), as root: the mode is checked.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp aclmade
W=$T/w
mkdir -p "$W" "$T/r"
"$PY" -c 'import os, sys; open(sys.argv[1], "w"); os.setxattr(sys.argv[1], "system.posix_acl_access", b"\x02\0\0\0\x01\0\x06\0\xff\xff\xff\xff\x04\0\x04\0\xff\xff\xff\xff\x20\0\0\0\xff\xff\xff\xff")' \
	"$T/probe" 2>/dev/null || skip "this filesystem ($(stat -f -c %T "$T")) takes no POSIX ACLs"
(cd "$W" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import errno, os, struct
def acl(mode):
    ents = ((1, mode >> 6 & 7), (4, mode >> 3 & 7), (0x20, mode & 7))
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, 0xffffffff) for t, p in ents)
with open("conf", "w") as f:
    f.write("port=1\n")
os.chmod("conf", 0o640)
src = os.open("conf", os.O_RDONLY)
tmp = os.open("sedXXXX", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
try:
    os.getxattr(src, "system.posix_acl_access")
except OSError as e:
    assert e.errno == errno.ENODATA
os.write(tmp, os.read(src, 100).replace(b"1", b"2"))
os.setxattr(tmp, "system.posix_acl_access", acl(os.fstat(src).st_mode & 0o777))
os.close(src)
os.close(tmp)
os.rename("sedXXXX", "conf")
print("%o" % (os.stat("conf").st_mode & 0o777))') >"$T/rec.out" || fail "record: exit $?"
grep -qx 640 "$T/rec.out" || { cat "$T/rec.out"; fail "conf was not 0640 natively"; }
"$IOTAPE" dump "$T/t.iotape" | grep -q 'fsetxattr(.*posix_acl_access' || fail "no fsetxattr recorded"
rm -rf "$W"
"$IOTAPE" replay "$T/t.iotape" --root "$T/r" --timing afap >"$T/out" 2>&1 || { cat "$T/out"; fail "replay exit $?"; }
grep -q "^  mismatches   0$" "$T/out" || { cat "$T/out"; fail "the replay had mismatches"; }
m=$(stat -c %a "$T/r$W/conf") || fail "the replay made no conf"
[ "$m" = 640 ] || fail "the replay's conf has mode $m, not 640"
echo "ok: the ACL copied from a file the workload made keeps its mode (640)"
