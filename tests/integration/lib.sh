# lib.sh - helpers for the integration tests (sourced).
# Environment from tests/run.sh: IOTAPE, PROGS, DATA, SRCDIR, BUILD.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }

# tmp_dir PREFIX - T: a new directory PREFIX.XXXXXX, removed at the
# test's exit unless KEEP is set
tmp_dir() {
	T=$(mktemp -d "$1.XXXXXX") || fail "mktemp -d $1.XXXXXX failed"
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
}

# replay_clean LABEL TRACE ROOT OUT [OPTION...] - replay TRACE into ROOT
# with the OPTIONs, its output into OUT (kept, for the test's checks of
# the summary); unless it exits 0 with 0 mismatches, print the output
# and fail, naming the replay by LABEL (e.g. "ptrace, round 2"; none if
# empty) and, on mismatches, saying WHY if set: what they mean here
# (WHY="..." replay_clean ...)
replay_clean() {
	local label=${1:+$1: } trace=$2 root=$3 out=$4 rc=0 m
	shift 4
	"$IOTAPE" replay "$trace" --root "$root" "$@" >"$out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && grep -q '^  mismatches   0$' "$out" && return 0
	cat "$out"
	m=$(grep -m1 '^  mismatches' "$out") || m=
	case $m in
	"  mismatches   "[1-9]*)
		fail "${label}the replay had mismatches${WHY:+ ($WHY)}: ${m#  mismatches   }; exit $rc" ;;
	esac
	[ "$rc" = 0 ] || fail "${label}replay exit $rc: $(tail -n 1 "$out")"
	fail "${label}the replay's summary has no line of mismatches"
}

need_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

need_root_loop() {
	need_root
	[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop devices unavailable)"
	need_cmd losetup
}

# Loop filesystems of a test: loop_fs FS SIZE DIR makes a fresh FS (ext4,
# xfs, btrfs; more mkfs options in $MKFS_OPTS) in the image DIR.img of
# SIZE (truncate's) and mounts it on DIR; loop_fs_drop DIR unmounts it
# and detaches its loop device now (failing if it cannot), and
# loop_cleanup, from the test's exit trap, every one left.
LOOP_MOUNTS= LOOP_DEVS=
loop_fs() {
	local fs=$1 size=$2 dir=$3 dev q=-q
	need_root_loop
	need_cmd "mkfs.$fs"
	grep -qw "$fs" /proc/filesystems || modprobe "$fs" 2>/dev/null || true
	grep -qw "$fs" /proc/filesystems || skip "no $fs in this kernel"
	case $fs in ext*) q="-q -F" ;; *) q="-q -f" ;; esac
	rm -f "$dir.img"
	truncate -s "$size" "$dir.img" || fail "cannot make the image $dir.img"
	# shellcheck disable=SC2086
	mkfs."$fs" $q ${MKFS_OPTS:-} "$dir.img" >"$dir.mkfs" 2>&1 ||
		fail "mkfs.$fs $q ${MKFS_OPTS:-} $dir.img failed: $(cat "$dir.mkfs")"
	dev=$(losetup --find --show "$dir.img") || skip "no free loop device"
	LOOP_DEVS="$dev $LOOP_DEVS"
	mkdir -p "$dir"
	mount -t "$fs" "$dev" "$dir" || fail "cannot mount the $fs image $dir.img ($dev) on $dir"
	LOOP_MOUNTS="$dir $LOOP_MOUNTS"
}

loop_fs_drop() {
	local dev
	dev=$(findmnt -n -o SOURCE --target "$1" 2>/dev/null)
	umount "$1" || fail "cannot unmount $1"
	LOOP_MOUNTS=$(echo " $LOOP_MOUNTS " | sed "s| $1 | |")
	case $dev in /dev/loop*)
		losetup -d "$dev" || fail "cannot detach $dev"
		LOOP_DEVS=$(echo " $LOOP_DEVS " | sed "s| $dev | |") ;;
	esac
	losetup -a | grep -q "($1.img)" && fail "a loop device is left: $(losetup -a | grep "($1.img)")"
	return 0
}

loop_cleanup() {
	local m d
	for m in $LOOP_MOUNTS; do
		mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	for d in $LOOP_DEVS; do losetup -d "$d" 2>/dev/null; done
	LOOP_MOUNTS= LOOP_DEVS=
}

# need_bpf: the bpf backend loads (a probe recording of `true`, in a
# directory of its own: not the caller's, which may be the source tree),
# or the test is skipped where it cannot: not root, no kernel BTF, a
# build without it.  Where it should load (root, BTF, built with it) and
# the kernel refuses the programs, that is a fault of the programs (too
# many functions for the loader, a map too big, a program the verifier
# rejects): fail, do not skip.
need_bpf() {
	local pd err
	pd=$(mktemp -d /tmp/iotape-bpfprobe.XXXXXX) || fail "mktemp failed"
	if "$IOTAPE" record -q --backend bpf -o "$pd/probe.iotape" -- true 2>"$pd/probe.err"; then
		rm -rf "$pd"
		return 0
	fi
	err=$(head -c 2000 "$pd/probe.err")
	rm -rf "$pd"
	if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/btf/vmlinux ] &&
		! printf '%s' "$err" | grep -q 'built without the bpf backend'; then
		fail "the bpf backend does not load on a kernel with BTF, as root: $err (IOTAPE_BPF_DEBUG=1 shows the verifier's log)"
	fi
	skip "the bpf backend does not load here: $err"
}

# bpf_loads DIR: 0 if the bpf backend loads; else says why, and 1 where
# it cannot load here (need_bpf's skips), or fails the test where it must
bpf_loads() {
	local rc=0
	(need_bpf) >"$1/bpf.why" 2>&1 || rc=$?
	case $rc in
	0) return 0 ;;
	77) echo "bpf: not run, $(cat "$1/bpf.why")"; return 1 ;;
	*) fail "$(cat "$1/bpf.why")" ;;
	esac
}

need_longtrace() {	# sets GEN: tests/bench/longtrace, which makes long traces
	GEN=$(dirname "$IOTAPE")/tests/bench/longtrace
	[ -x "$GEN" ] || fail "$GEN is not built"
}

need_shim() {	# sets SHIM: the LD_PRELOAD shim tests/shim/$1.c, built
	SHIM=$SRCDIR/$BUILD/tests/shim/$1.so
	[ -f "$SHIM" ] || skip "$SHIM is not built"
	# a sanitizer's runtime must come first in the list of libraries
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
}

need_mk_analyze_traces() {	# sets GEN: tests/bench/mk_analyze_traces
	GEN=$(dirname "$IOTAPE")/tests/bench/mk_analyze_traces
	[ -x "$GEN" ] || fail "$GEN is not built"
}

need_address_limit() {	# a test that runs iotape under ulimit -v
	# an AddressSanitizer build reserves terabytes of shadow address
	# space at its start: no address-space limit can hold it
	grep -q __asan_init "$IOTAPE" &&
		skip "a sanitizer build cannot run under an address-space limit (ulimit -v)"
	return 0
}

# limited MIB OUT ERR CMD... - CMD under an address space of MIB MiB
# (ulimit -v), its output into OUT and ERR: skips where the limit is not
# allowed, fails where CMD fails
limited() {
	local mib=$1 out=$2 err=$3 rc
	shift 3
	(
		ulimit -v $((mib * 1024)) || exit 99
		exec "$@"
	) >"$out" 2>"$err"
	rc=$?
	[ $rc = 99 ] && skip "ulimit -v is not allowed here"
	[ $rc = 0 ] || fail "$* within $mib MiB of address space: exit $rc: $(head -c 500 "$err")"
	return 0
}

need_iotape_cmd() {	# a subcommand that must be built
	"$IOTAPE" "$1" --help >/dev/null 2>&1 || skip "iotape $1 is not built yet"
}

# mk_tree DIR N - a small real tree: N files of mixed sizes in nested
# directories, symlinks, a hard link, an empty dir, odd modes.
mk_tree() {
	local d=$1 n=$2 i
	mkdir -p "$d/sub/deeper" "$d/empty"
	for i in $(seq 1 "$n"); do
		head -c $(( (i * 997) % 20000 )) /dev/urandom >"$d/f$i.c"
		[ $((i % 3)) = 0 ] && cp "$d/f$i.c" "$d/sub/g$i.h"
		[ $((i % 7)) = 0 ] && head -c $((i * 10)) /dev/urandom >"$d/sub/deeper/h$i"
	done
	ln -s f1.c "$d/link-to-f1"
	ln -s ../f2.c "$d/sub/up-link"
	ln "$d/f3.c" "$d/sub/hard-f3"
	chmod 0600 "$d/f4.c"
	chmod 0755 "$d/f5.c"
}

# no_leftovers DIR - no mount, loop device, image file or scratch directory
# left under DIR, the --scratch of the bench or validate that ran: only
# what that run made (other benches may hold mounts and loop devices
# meanwhile).
no_leftovers() {
	local dir=$1
	grep -q " $dir/" /proc/self/mountinfo && fail "a bench mount is left: $(grep " $dir/" /proc/self/mountinfo)"
	losetup -a | grep -q "$dir/" && fail "a loop device is left: $(losetup -a | grep "$dir/")"
	find "$dir" -name '*.img' | grep -q . && fail "an image is left: $(find "$dir" -name '*.img')"
	find "$dir" -maxdepth 1 -name 'iotape-bench.*' | grep -q . && fail "a scratch dir is left"
	find "$dir" -maxdepth 1 -name 'iotape-validate.*' | grep -q . && fail "a validate dir is left"
	return 0
}

# listing DIR - one line per entry: path, type, mode, link count, size (of
# regular files: a directory's depends on its history), symlink target.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%P %y %m %n %s %l\n' |
		awk '$2 != "f" { $5 = "-" } { print }' | LC_ALL=C sort)
}

# tree_need TRACE DIR - the bytes of file data of TRACE's starting tree
# (made in DIR to count them)
tree_need() {
	mkdir -p "$2" || fail "cannot make $2"
	"$IOTAPE" replay "$1" --root "$2" --prepare-only -q || fail "cannot prepare $1"
	find "$2" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}

# leave_free MNT BYTES - fill the filesystem at MNT (MNT/filler) but BYTES
leave_free() {
	fallocate -l $(($(df -B1 --output=avail "$1" | tail -1) - $2)) "$1/filler" ||
		fail "cannot fill $1"
}

# too_big RC OUT N TRACE ROOT PROFILE - a run (exit RC, its messages in
# OUT) stopped because N starting trees of TRACE do not fit: exit 5, the
# sizes said once, nothing made under ROOT, no PROFILE
too_big() {
	[ "$1" = 5 ] || fail "$3 trees that do not fit: exit $1, expected 5"
	grep -Eq "the starting trees of $3 clients of $4 hold $3 x [0-9.]+ MiB = [0-9.]+ MiB of file data, the root's filesystem has [0-9.]+ MiB free" \
		"$2" || fail "the message does not say both sizes"
	[ "$(grep -c 'starting trees of' "$2")" = 1 ] || fail "said more than once"
	[ -z "$(ls "$5")" ] || fail "client roots or trees made anyway: $(ls "$5")"
	[ ! -e "$6" ] || fail "a profile was written"
}

# no_notes - dump lines without the bpf backend's notes after a call
# ('[on cpu ...]', '[slept before ...]', ...), times kept: fields counted
# from the end of the line are then the same for both backends
no_notes() {
	sed -E 's/ \[(on cpu|slept before|woken|waited|ready|gap woken by) [^]]*\]//g'
}

# untimed [-p] - `iotape dump` lines (stdin) without what differs from one
# run to the next: the pid and time that start an event line (-p keeps
# the pid), the duration, and the bpf backend's '[on cpu S]',
# '[woken S before]', '[waited S]', '[ready S]', '[gap woken by TID]', '[woken by TID]' and
# '[slept before S]' (ptrace's too,
# where a page came in); the other notes ('[zeros]', '[data N]', a profile's
# '[not replayed]') stay.  Every test that compares dumps goes through it.
untimed() {
	local head='s/^[0-9]+ +[0-9.]+ //'
	[ "${1:-}" = -p ] && head='s/^([0-9]+) +[0-9.]+ /\1 /'
	sed -E -e "$head" \
		-e 's/ \[woken [0-9.]+ before\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ \[waited [0-9.]+\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ \[ready [0-9.]+\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ \[gap woken by [0-9]+\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ \[woken by [0-9]+\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ \[slept before [0-9.]+\](( \[[a-z][^]]*\])*)$/\1/' \
		-e 's/ <[0-9.]+>( \[on cpu [0-9.]+\])?(( \[[a-z][^]]*\])*)$/\2/'
}

# gap_slept DIR - the checks of record_*_slept.sh on DIR/t.iotape, a
# recording of tests/progs/gap_pagein DIR/f: the access() after the
# page-ins carries '[slept before S]' with S > 0 in `iotape dump`, the one
# before them a smaller one or none; `iotape replay` sleeps at least one
# gap, and no more than the trace has calls with a sleep.  Sets s (S), n
# (those calls) and g (the gaps slept).
gap_slept() {
	local after before b
	"$IOTAPE" dump "$1/t.iotape" >"$1/dump.txt" || fail "dump failed"
	after=$(grep -F "access(\"$1/f.after\"" "$1/dump.txt") || fail "no access of f.after in the dump"
	before=$(grep -F "access(\"$1/f.before\"" "$1/dump.txt") || fail "no access of f.before in the dump"
	s=$(sed -n 's/.*\[slept before \([0-9.]*\)\].*/\1/p' <<<"$after")
	[ -n "$s" ] || fail "the call after the page-ins carries no sleep: $after"
	awk -v s="$s" 'BEGIN { exit !(s > 0) }' || fail "the sleep before f.after is $s s, not > 0: $after"
	b=$(sed -n 's/.*\[slept before \([0-9.]*\)\].*/\1/p' <<<"$before")
	[ -z "$b" ] || awk -v b="$b" -v s="$s" 'BEGIN { exit !(b < s) }' ||
		fail "the call before the page-ins slept $b s, as long as the one after them ($s s)"
	mkdir "$1/root"
	"$IOTAPE" replay -o "$1/p.iotape" --root "$1/root" "$1/t.iotape" >"$1/rpl.out" 2>&1 ||
		fail "replay failed: $(tail -3 "$1/rpl.out")"
	n=$(grep -c '\[slept before ' "$1/dump.txt")
	g=$(sed -n 's/^  gap sleeps   \([0-9]*\) gaps .*/\1/p' "$1/rpl.out")
	[ -n "$g" ] && [ "$g" -ge 1 ] || fail "the replay did not sleep the gap: $(cat "$1/rpl.out")"
	[ "$g" -le "$n" ] || fail "the replay slept $g gaps, the trace has $n calls with a sleep before them"
}

# pb_text FILE - a trace as protobuf text (protoc --decode), for what
# `iotape dump` does not print (the Process records' fields); a test
# that uses it calls need_pb_text first: protoc and zstd, which 'make
# check' installs, or it fails
need_pb_text() {
	command -v protoc >/dev/null 2>&1 && command -v zstd >/dev/null 2>&1 ||
		fail "protoc or zstd is not installed (packages protobuf-compiler, zstd; 'make check' installs them)"
}
pb_text() {
	zstd -q -dc "$1" | protoc --decode=iotape.TraceFile -I"$SRCDIR/format" \
		"$SRCDIR/format/trace.proto"
}

# events FILE - the number of events in a trace or profile
events() { "$IOTAPE" report "$1" | sed -n 's/^  \([0-9]*\) events.*/\1/p'; }

# walk_root [TOP...] - the walk tests' root, $M/R: the files of $A/d (and
# of its subdirectory s) made again under $M/R$A/TOP (d if none given) in
# name order, as a setup's copy would make them.
walk_root() {
	local top f
	rm -rf "$M/R"
	for top in "${@:-d}"; do
		mkdir -p "$M/R$A/$top/s"
		cp -p "$A"/d/s/u* "$M/R$A/$top/s/"
		for f in $(cd "$A/d" && ls -d f*); do cp -p "$A/d/$f" "$M/R$A/$top/"; done
	done
}

# walk_tree NAME - the tree of the walk tests (replay_walk_*.sh), after
# their checks that root, tar, strace and ptrace are there: on a tmpfs at
# $M in $T (made here, removed at exit), a directory $A/d of 30 files
# f00..f29 listed in an order of their own (renamed in a shuffled order:
# neither by name nor by inode) and a subdirectory s of 3 files.
walk_tree() {
	need_root
	need_cmd tar
	need_cmd strace
	"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
	T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-$1.XXXXXX")
	M=$T/m
	mkdir "$M"
	mount -t tmpfs -o size=64m "iotape-$1" "$M" || skip "cannot mount a tmpfs"
	trap 'cd /; umount "$M"; rm -rf "$T"' EXIT
	A=$M/A
	mkdir -p "$A/d/s"
	for i in $(seq 0 29); do head -c $((i * 100 + 10)) /dev/urandom >"$A/d/t$i"; done
	for i in 1 2 3; do echo $i >"$A/d/s/u$i"; done
	for i in 17 4 25 9 0 13 28 21 6 11 2 19 26 8 15 23 1 12 29 5 18 10 27 3 22 14 7 24 16 20; do
		mv "$A/d/t$i" "$A/d/f$(printf %02d $(((i * 7) % 30)))"
	done
}
