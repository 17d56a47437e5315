#!/bin/bash
# replay_acls.sh - POSIX ACLs of the starting tree and of the calls:
#  - a directory with a default ACL, set after its file and subdirectory
#    were made (they have no ACL of their own): the replay's preparation
#    set the directory's default ACL before it made the entries, which
#    inherited it, and a getxattr of the file's access ACL found one
#    (ENODATA recorded; 2,632 listxattr and getxattr calls of a tree with
#    ACLs differed).  Entries made after a default ACL now have the ACLs
#    their state lacks taken off.
#  - setxattr of an empty ACL (4 bytes, the header alone: pylibacl's, as
#    rdiff-backup writes them): the replay sent the pattern's bytes,
#    which the kernel refused (EOPNOTSUPP; 2 mismatches).
# Recorded with the default backend.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp acls
W=$T/w
mkdir -p "$W/d/sub" "$W/e" "$T/r"
echo x >"$W/d/f"
: >"$W/g"
# a default ACL on d: user 1000 rwx (ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ,
# ACL_MASK, ACL_OTHER)
"$PY" - "$W/d" <<'PY' || skip "this filesystem ($(stat -f -c %T "$T")) takes no POSIX ACLs"
import os, struct, sys
v = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in
    ((1, 7, 0xffffffff), (2, 7, 1000), (4, 5, 0xffffffff), (0x10, 7, 0xffffffff), (0x20, 5, 0xffffffff)))
os.setxattr(sys.argv[1], "system.posix_acl_default", v)
PY
(cd "$W" && "$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" -c '
import os
print(sorted(os.listxattr("d/f")), sorted(os.listxattr("d/sub")))
try:
    os.getxattr("d/f", "system.posix_acl_access")
except OSError as e:
    print("d/f", e.errno)
os.setxattr("e", "system.posix_acl_default", b"\x02\0\0\0")
os.setxattr("g", "system.posix_acl_access", b"\x02\0\0\0")') >"$T/rec.out" || fail "record: exit $?"
grep -q "^d/f 61$" "$T/rec.out" || { cat "$T/rec.out"; fail "d/f had an access ACL natively"; }
rm -rf "$W"
replay_clean "" "$T/t.iotape" "$T/r" "$T/out" --timing afap
"$PY" -c 'import os, sys; sys.exit(1 if "system.posix_acl_access" in os.listxattr(sys.argv[1]) else 0)' \
	"$T/r$W/d/f" || fail "the replay's d/f has an access ACL it did not have"
echo "ok: no inherited ACL on the prepared entries, empty ACLs set, 0 mismatches"
