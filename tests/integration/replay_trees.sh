#!/bin/bash
# replay_trees.sh - record real workloads (cp -a, tar x, rm -rf, a
# mkdir/mv/ln script, make on a small C tree), each in its own temporary
# directory A, replay each trace into an empty root, and check that ROOT/A
# ends up as the native run left A: types, sizes of files, modes, link
# counts, symlink targets; with each replayed process's descriptor table
# its own (the default) and with one table for all.
set -u
. "$(dirname "$0")/lib.sh"
"$IOTAPE" record --help >/dev/null 2>&1 || skip "recorder not built"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
need_cmd tar

tmp_dir "${TMPDIR:-/tmp}/iotape-trees"
A=
# next - a fresh directory A for the next workload
next() { n=$((n + 1)); A=$T/A$n; mkdir -p "$A"; }

# listing DIR - one line per entry, file sizes only for regular files
# (directory sizes depend on the history of the directory, not its content).
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%P %y %m %n %s %l\n' |
		awk '$2 != "f" { $5 = "-" } { print }' | LC_ALL=C sort)
}

n=0
# check NAME - record "$@" in A, replay, compare the trees.
check() {
	local name=$1; shift
	local tr=$T/$name.iotape root=$T/root$n
	(cd "$A" && "$IOTAPE" record -q ${REC_OPTS:-} -o "$tr" -- "$@") || fail "$name: recording failed"
	listing "$A" >"$T/$name.native"
	mkdir "$root"
	"$IOTAPE" replay "$tr" --root "$root" --timing afap -o "$T/$name.prof" \
		>"$T/$name.out" 2>&1 || { cat "$T/$name.out"; fail "$name: replay failed"; }
	[ -d "$root$A" ] || fail "$name: $root$A missing after the replay"
	listing "$root$A" >"$T/$name.replayed"
	if ! diff -u "$T/$name.native" "$T/$name.replayed"; then
		cat "$T/$name.out"
		fail "$name: the replayed tree differs from the native one"
	fi
	grep -q "ordering     0 violations" "$T/$name.out" ||
		{ cat "$T/$name.out"; fail "$name: ordering violations"; }
	"$IOTAPE" dump "$T/$name.prof" >/dev/null || fail "$name: profile unreadable"
	# Each replayed process has a descriptor table of its own; the
	# replay with one table for all must leave the same tree.
	mkdir "$root.shared"
	IOTAPE_REPLAY_FILES=shared "$IOTAPE" replay "$tr" --root "$root.shared" --timing afap \
		>"$T/$name.shared.out" 2>&1 || { cat "$T/$name.shared.out"; fail "$name: replay (shared table) failed"; }
	listing "$root.shared$A" >"$T/$name.shared"
	diff -u "$T/$name.native" "$T/$name.shared" ||
		fail "$name: the tree replayed with one descriptor table differs from the native one"
	echo "ok: $name ($(wc -l <"$T/$name.native") entries; $(grep -o '[0-9]* replayed,' "$T/$name.out" | tr -d ,))"
}

next
mk_tree "$A/src" 30
check cp-a cp -a src dst
tar cf "$T/x.tar" -C "$A" src

next
check tar-x sh -c "mkdir ex && tar xf $T/x.tar -C ex"

# rm -rf and du climb back up with openat(fd, ".."): the recorded paths
# (and the states of the paths below) read "dst/d1/../d2/f"; every call
# must still find what it found when recorded.
# Chains deeper than fts keeps descriptors for (4): it climbs from their
# ends with "..", and the next chain's paths go through the removed one.
walk_tree() {
	local t d
	mk_tree "$A/dst" 20
	for t in p q r s; do
		d=$A/dst/$t/1/2/3/4/5/6/7
		mkdir -p "$d"
		while [ "$d" != "$A/dst" ]; do echo x >"$d/f"; d=${d%/*}; done
	done
}
next
walk_tree
check du sh -c "du -s dst >/dev/null"
grep -q "^  mismatches   0$" "$T/du.out" || { cat "$T/du.out"; fail "du: mismatches"; }
next
walk_tree
check rm-rf rm -rf dst
grep -q "^  mismatches   0$" "$T/rm-rf.out" || { cat "$T/rm-rf.out"; fail "rm-rf: mismatches"; }
# The same without the in-process fast path (static programs are recorded
# so): the recorder takes the states itself, by path, and "d/../f" must
# not be "absent" because the program removed d before its call on f.
next
walk_tree
REC_OPTS=--no-fastpath check du-ptrace sh -c "du -s dst >/dev/null"
grep -q "^  mismatches   0$" "$T/du-ptrace.out" || { cat "$T/du-ptrace.out"; fail "du-ptrace: mismatches"; }
next
walk_tree
REC_OPTS=--no-fastpath check rm-rf-ptrace rm -rf dst
grep -q "^  mismatches   0$" "$T/rm-rf-ptrace.out" || { cat "$T/rm-rf-ptrace.out"; fail "rm-rf-ptrace: mismatches"; }

cat >"$T/script.sh" <<'EOF'
set -e
mkdir -p s/a/b/c s/d
echo one >s/a/f
ln -s a/f s/lnk
ln -s /nonexistent/abs s/abs
mv s/a/b s/d/b2
mv s/a/f s/a/g
ln s/a/g s/hard
rmdir s/d/b2/c
mkdir s/d/b2/c2
chmod 700 s/d
mv s/d s/e
touch s/e/t1 s/e/t2
rm s/e/t1
EOF
next
check script sh "$T/script.sh"
# A replayed process ends when its last call was replayed: its exit record
# is not after the wait4 that reaped it returned (the recorded gap from
# exit_group to the exit record is mostly the tracer's).
mkdir "$T/root-script-timed"
"$IOTAPE" replay "$T/script.iotape" --root "$T/root-script-timed" -q -o "$T/script.timed.prof" \
	>/dev/null || fail "script: replay with the recorded timing failed"
"$IOTAPE" dump "$T/script.timed.prof" | awk '
	/\+\+\+ exited/ { ex[$1] = $2 }
	/ wait4\(/ && / = [0-9]+ </ {
		match($0, / = [0-9]+ </); pid = substr($0, RSTART + 3, RLENGTH - 5)
		match($0, /<[0-9.]+>/); w[pid] = $2 + substr($0, RSTART + 1, RLENGTH - 2)
	}
	END {
		for (p in w) if ((p in ex) && ex[p] > w[p] + 0.000002) {
			printf "exit of %s at %s, after its wait4 returned at %.6f\n", p, ex[p], w[p]; bad = 1
		}
		exit bad
	}' || fail "script: a process exit record comes after the wait4 that reaped it"

# readlink -f reads every component: directories answer EINVAL, which the
# replay must give too (not ENOENT, as readlinkat on a descriptor does).
next
mkdir -p "$A/d/e"
check readlink sh -c 'ln -s d/e l && readlink -f l/x >/dev/null && realpath d/e >/dev/null'
grep -q "^  mismatches   0$" "$T/readlink.out" || { cat "$T/readlink.out"; fail "readlink: mismatches"; }
grep -c 'readlink("[^"]*", ..., [0-9]*) = -1 EINVAL' <("$IOTAPE" dump "$T/readlink.prof") |
	awk '$1 < 2 { exit 1 }' || fail "readlink: fewer than 2 EINVAL readlinks replayed"

# Pipes between processes: $(...) in a shell (fork, dup2 of the write end,
# exec, the parent reading until end of file).  The reader's return is
# often recorded before the write or close that woke it; and a forked
# child's descriptors are its parent's at the fork, not at its first call
# (the parent closes its write end meanwhile).  Every read must find its
# data or its end of file: no EAGAIN.
next
echo hello >"$A/f"
check subst sh -c 'i=0; while [ $i -lt 20 ]; do i=$((i+1)); x=$(cat f); y=$(echo $i); echo "$x$y" >out$i; done'
grep -q "^  mismatches   0$" "$T/subst.out" || { cat "$T/subst.out"; fail "subst: mismatches"; }
mkdir "$T/root-subst-timed"
replay_clean "subst, the recorded timing" "$T/subst.iotape" "$T/root-subst-timed" "$T/subst.timed.out"

# Calls that follow a last symlink (setxattr, getxattr, utimes) are made on
# the name with AT_SYMLINK_NOFOLLOW once it is known not to be a symlink;
# a rename and a symlink in between make it one: the next call must follow
# it (on the symlink itself a user xattr is refused: a mismatch).
if command -v python3 >/dev/null && python3 -c '
import os, sys
os.mkdir(sys.argv[1]); os.setxattr(sys.argv[1], "user.t", b"1")' "$T/xattr-probe" 2>/dev/null; then
	next
	cat >"$T/follow.py" <<'EOF'
import os
os.mkdir("d"); os.mkdir("t")
for i in range(3):
    os.setxattr("d", "user.a%d" % i, b"1")
    os.getxattr("d", "user.a%d" % i)
    os.utime("d")
    os.rename("d", "d%d" % i)
    os.symlink("t", "d")
    os.setxattr("d", "user.b%d" % i, b"2")
    os.getxattr("d", "user.b%d" % i)
    os.utime("d")
    os.unlink("d")
    os.mkdir("d")
os.getxattr("t", "user.b2")
EOF
	check follow python3 "$T/follow.py"
	! grep -q "^  mismatches .*xattr" "$T/follow.out" || { cat "$T/follow.out"; fail "follow: xattr calls mismatched"; }
else
	echo "no python3 or no user xattrs in $T: follow workload not run"
fi

# Threads of one process share its descriptor table (replayed threads
# too): 8 threads each create, write and close 40 files at once.
if [ -x "${PROGS:-}/rel_threads" ]; then
	next
	mkdir "$A/w"
	check threads "$PROGS/rel_threads" w 8 40
	grep -q "^  mismatches   0$" "$T/threads.out" || { cat "$T/threads.out"; fail "threads: mismatches"; }
fi

if command -v gcc >/dev/null && command -v make >/dev/null; then
	next
	mkdir "$A/proj"
	printf 'int f(void);\nint main(void) { return f(); }\n' >"$A/proj/main.c"
	printf '#include "h.h"\nint f(void) { return G; }\n' >"$A/proj/f.c"
	printf '#define G 0\n' >"$A/proj/h.h"
	printf 'p: main.o f.o\n\tgcc -o p main.o f.o\n%%.o: %%.c h.h\n\tgcc -c -O0 $<\n' \
		>"$A/proj/Makefile"
	check make make -s -C proj
else
	echo "make/gcc not installed: make workload not run"
fi
# A parent opened below its cached parent is one plain name; one that is
# a symlink of the starting tree must still be followed (from the root):
# d/s -> t, so the files made through d/s land in d/t.
next
mkdir -p "$A/d/t"
ln -s t "$A/d/s"
ln -s "$A/d/t" "$A/d/abs"
check through-link sh -c ': >d/x; : >d/s/f; : >d/abs/h; mkdir d/s/e; : >d/s/e/g'
[ -f "$T/root$n$A/d/t/e/g" ] && [ -f "$T/root$n$A/d/t/h" ] ||
	fail "through-link: d/t/e/g or d/t/h was not made through the symlinks"

# find -name names only the directories it enters; the files it read in
# the listings are taken when the recording ends, so that the replayed
# tree (sizes, modes, links) is the native one and the replayed
# getdents64 return what the recorded ones did.
next
mk_tree "$A/src" 20
check find find src -name nomatch
grep -q "^  mismatches   0$" "$T/find.out" || { cat "$T/find.out"; fail "find: mismatches"; }
"$IOTAPE" dump -s "$T/find.iotape" | grep -q '(listed)$' || fail "find: no state marked listed"
(cd "$A" && "$IOTAPE" record -q --no-listings -o "$T/find-nl.iotape" -- find src -name nomatch) ||
	fail "find: recording with --no-listings failed"
! "$IOTAPE" dump -s "$T/find-nl.iotape" | grep -q '(listed)$' || fail "find: --no-listings took listed entries"

echo "all $n trees equal"

# The starting tree is made in the order the workload first came to its
# paths, so that a walk replays reading forward on the disk as it did
# recorded.  On a fresh tmpfs inode numbers count up in creation order:
# files read z, a, m must have been made z, a, m (path order: a, m, z).
next
mkdir "$A/o"
for f in z a m; do echo "$f" >"$A/o/$f"; done
(cd "$A" && "$IOTAPE" record -q -o "$T/order.iotape" -- cat o/z o/a o/m >/dev/null) ||
	fail "order: recording failed"
if [ "$(id -u)" = 0 ] && mkdir "$T/order-root" && mount -t tmpfs -o size=16m tmpfs "$T/order-root"; then
	"$IOTAPE" replay "$T/order.iotape" --root "$T/order-root" --prepare-only -q ||
		{ umount "$T/order-root"; fail "order: --prepare-only failed"; }
	inos=$(stat -c %i "$T/order-root$A/o/z" "$T/order-root$A/o/a" "$T/order-root$A/o/m" | tr '\n' ' ')
	umount "$T/order-root"
	set -- $inos
	[ "$1" -lt "$2" ] && [ "$2" -lt "$3" ] ||
		fail "order: files read z, a, m were not made in that order (inodes $inos)"
	echo "ok: order (inodes $inos)"
else
	echo "not root or no tmpfs: creation order not checked"
fi
