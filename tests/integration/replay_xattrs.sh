#!/bin/bash
# replay_xattrs.sh - extended attributes of the starting tree: `cp -a` of
# a tree whose file and directory have user.* attributes (one of 3,000
# bytes) copies them (listxattr, getxattr, setxattr).  The trace keeps
# each path's attributes with its state (PathState xattr_names and
# xattr_values: FORMAT.md), and the replay makes them on the starting
# tree.  Before, the starting tree had none: every getxattr of the copy
# answered ENODATA (mismatches) and the copies got none.  Recorded with
# ptrace (fast path and not) and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp xattrs

W=$T/w
mkdir -p "$W/src/d"
echo hello >"$W/src/f"
echo there >"$W/src/d/g"
"$PY" - "$W/src" <<'PY' || skip "this filesystem ($(stat -f -c %T "$T")) takes no user.* attributes"
import os, sys
s = sys.argv[1]
os.setxattr(s + "/f", "user.foo", b"bar")
os.setxattr(s + "/f", "user.long", b"x" * 3000)
os.setxattr(s + "/d", "user.dir", b"1")
PY
# the attributes of PATH, as "name=length" sorted, or NONE
attrs() {
	"$PY" -c 'import os, sys
a = sorted("%s=%d" % (n, len(os.getxattr(sys.argv[1], n))) for n in os.listxattr(sys.argv[1]))
print(" ".join(a) or "NONE")' "$1"
}

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root" "$W/dst"
	mkdir "$T/root"
	(cd "$W" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- cp -a src dst \
		>/dev/null 2>"$T/err") || fail "$b: recording cp -a failed: $(cat "$T/err")"
	[ "$(attrs "$W/dst/f")" = "user.foo=3 user.long=3000" ] ||
		fail "$b: cp -a did not copy the attributes natively: $(attrs "$W/dst/f")"
	"$IOTAPE" dump --states "$T/t.iotape" >"$T/dump"
	grep -q "state \"$W/src/f\" .*xattrs=\"user.foo\"(3),\"user.long\"(3000)" "$T/dump" ||
		grep -q "state \"$W/src/f\" .*xattrs=\"user.long\"(3000),\"user.foo\"(3)" "$T/dump" ||
		fail "$b: the file's attributes are not in its state: $(grep "state \"$W/src/f\"" "$T/dump")"
	grep -q "state \"$W/src/d\" .*xattrs=\"user.dir\"(1)" "$T/dump" ||
		fail "$b: the directory's attribute is not in its state: $(grep "state \"$W/src/d\"" "$T/dump")"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	grep -q '^  xattrs       3 extended attributes made on the starting tree, 0 not' "$T/out" ||
		fail "$b: $(grep '^  xattrs' "$T/out" || echo 'no xattrs line in the summary')"
	R=$T/root$W
	for x in "src/f:user.foo=3 user.long=3000" "src/d:user.dir=1" \
		 "dst/f:user.foo=3 user.long=3000" "dst/d:user.dir=1"; do
		got=$(attrs "$R/${x%%:*}")
		[ "$got" = "${x#*:}" ] || fail "$b: ${x%%:*} under the root has $got, not ${x#*:}"
	done
	echo "$b: 3 attributes in the states, made on the starting tree and copied by the replay; 0 mismatches"
done
echo "ok: a tree's extended attributes are recorded and made"
