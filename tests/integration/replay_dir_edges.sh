#!/bin/bash
# replay_dir_edges.sh - three calls on directories and links the replay
# answered otherwise than the kernel had:
#  - rmdir of directories that are not empty, whose entries the program
#    never names (`rm -rf` as another user of a directory it cannot
#    read), and `mv -T` of a directory onto a full one: the starting tree
#    had them empty, and the rmdirs and the rename succeeded (5
#    mismatches).  The recorder lists such a directory now.
#  - an O_DIRECTORY open given a mode (a static dietlibc program's,
#    integrit's): the replay kept the mode, and openat2 refused it
#    (EINVAL; __O_TMPFILE holds O_DIRECTORY's bit).
#  - readlinkat(fd, "") of an O_PATH|O_NOFOLLOW descriptor of a symlink
#    (systemd-tmpfiles): made on the name "" (ENOENT, 28 a replay).
# Recorded with ptrace and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_python
need_iotape_cmd replay
record_tmp diredges
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
for b in $backends; do
	W=$T/$b/w
	mkdir -p "$W/a/b/c" "$W/n/full" "$W/m" "$W/d" "$T/$b/r"
	touch "$W/a/b/c/f" "$W/a/x" "$W/n/full/f"
	ln -s target "$W/l"
	(cd "$W" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- sh -c '
rmdir a/b/c a/b a 2>/dev/null
mv -T m n/full 2>/dev/null
'"$PY"' -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(257, -100, b\"d\", os.O_RDONLY | os.O_DIRECTORY, 0o644)
print(\"odir\", fd >= 0)
l = os.open(\"l\", os.O_PATH | os.O_NOFOLLOW)
print(\"link\", os.readlink(\"\", dir_fd=l))
"') >"$T/$b/rec.out" 2>&1 || { cat "$T/$b/rec.out"; fail "$b: record: exit $?"; }
	grep -q "odir True" "$T/$b/rec.out" && grep -q "link target" "$T/$b/rec.out" ||
		{ cat "$T/$b/rec.out"; fail "$b: the program's open or readlink failed natively"; }
	rm -rf "$W"
	replay_clean "$b" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" --timing afap
	[ -d "$T/$b/r$W/a/b/c" ] || fail "$b: the replay removed a/b/c, which was not empty"
	echo "ok ($b): full directories kept, O_DIRECTORY with a mode and readlinkat(fd, \"\") as recorded"
done
