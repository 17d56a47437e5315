#!/bin/bash
# record_bpf.sh - `record --backend bpf` and `--backend mixed` (BPF and
# the in-process fast path) record what `--backend ptrace` records.
#
# 1. cp -a, tar c, tar x, rm -rf of a small tree, make of a small C
#    project, a statically linked busybox cp -a, a small Go program, and
#    the recorder's test programs (threads, vfork, exec from a thread,
#    fp_stress): recorded once with each backend from identical trees at the same
#    path, the two traces hold the same events per thread, in order, with
#    arguments and results, the same per-syscall counts and the same path
#    states (record/README.md says where they can still differ).
# 2. A fork storm of 1,000 processes, each backend: 0 dropped, 1,000 execs; a ring too
#    small for a burst: the loss is counted in the summary and the trace.
# 3. SIGKILL of the program and of the recorder: the trace is readable,
#    and no BPF program of ours is left loaded.
# 4. --backend auto records with bpf as root; not root, with ptrace, and
#    says so; --backend bpf then fails with a message.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_cmd bpftool
need_cmd busybox
need_cmd go
need_cmd cc
d=$(mktemp -d /tmp/iotape-bpf.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

ours() {	# our programs still loaded; the kernel frees them shortly after close
	local i n
	for i in $(seq 30); do
		n=$(bpftool prog show 2>/dev/null | grep -cE ' name iotape_(enter|exit|fork|exec|gone) ')
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	echo "$n"
}
[ "$(ours)" = 0 ] || skip "programs named like ours are loaded already (another recording runs)"

mk_tree base 150
mk_proj proj '#include <stdio.h>'
tar cf tree.tar base proj
file busybox 2>/dev/null | grep -q 'statically linked' || true
cat >hello.go <<'GO'
package main

import (
	"os"
	"path/filepath"
)

func main() {
	os.MkdirAll("gout/a/b", 0o755)
	for i := 0; i < 20; i++ {
		os.WriteFile(filepath.Join("gout/a/b", string(rune('a'+i))), []byte("x"), 0o644)
	}
	es, _ := os.ReadDir("gout/a/b")
	for _, e := range es {
		os.Remove(filepath.Join("gout/a/b", e.Name()))
	}
}
GO
GOCACHE=$d/gocache GOPATH=$d/gopath CGO_ENABLED=0 go build -o hello hello.go ||
	fail "go build of the test program failed"

# same NAME SETUP CMD - run CMD in w/ after SETUP, under each backend,
# and compare (record_lib.sh)
same() {
	local name=$1 setup=$2 cmd=$3 b
	for b in ptrace bpf mixed; do
		same_record "$name" $b "$setup" "$cmd"
	done
	grep -q '^# record.backend *ptrace$' "$d/$name.ptrace.txt" || fail "$name: header does not say ptrace"
	for b in bpf mixed; do
		grep -q "^# record.backend *$b\$" "$d/$name.$b.txt" || fail "$name: header does not say $b"
		same_cmp "$name" ptrace $b || fail "$name: $SAME_WHY"
		echo "$name ($b): same events and path states: $(tail -1 "$d/$name.cmp")"
	done
}

same cp      "true" "cp -a ../base copy"
same tar-c   "cp -a ../base base" "tar cf out.tar base"
same tar-x   "cp ../tree.tar ." "tar xf tree.tar"
same rm      "cp -a ../base base" "rm -rf base"
same make    "cp -a ../proj proj" "make -s -C proj"
same busybox "true" "busybox cp -a ../base copy"
# opens with O_CREAT|O_EXCL|O_TRUNC make their file or fail (EEXIST): the
# guard lets them run, and the trace is the same, "old"'s state included
cat >excl.c <<'C'
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
	const char *n[] = { "e1", "e2", "old" };
	for (int i = 0; i < 3; i++) {
		int fd = open(n[i], O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
C
cc -O1 -o excl excl.c || fail "cc of the O_EXCL test program failed"
same excl "echo data >old" "../excl"
rm -rf w && mkdir w && echo data >w/old
(cd w && "$IOTAPE" record --backend bpf -o "$d/excl.iotape" -- ../excl 2>"$d/excl.err") ||
	fail "excl (bpf) failed: $(tail -3 "$d/excl.err")"
grep -q '; 0 stops before calls' "$d/excl.err" ||
	fail "excl: the guard stopped an O_CREAT|O_EXCL open: $(grep stops "$d/excl.err")"
# Go: the runtime starts as many threads as the timing makes it (its
# clone count differs from run to run under either backend), and runs
# goroutines on any of them: the calls that name the tree are compared,
# sorted, whichever thread made them.
for b in ptrace bpf mixed; do
	rm -rf w && mkdir w
	(cd w && "$IOTAPE" record -q --backend $b -o "$d/go.$b.iotape" -- ../hello 2>"$d/go.$b.err") ||
		fail "go ($b) failed: $(tail -3 "$d/go.$b.err")"
	mask_dump "$d/go.$b.iotape" "$d/w" | grep -v '^---\|^+++' | sort >"$d/go.$b.lines"
done
[ "$(wc -l <"$d/go.bpf.lines")" -ge 40 ] || fail "go: the bpf trace holds too few calls on the tree"
for b in bpf mixed; do
	diff "$d/go.ptrace.lines" "$d/go.$b.lines" >"$d/go.diff" ||
		{ head -20 "$d/go.diff" >&2; fail "go: --backend $b recorded other calls (< ptrace, > $b)"; }
done
echo "go: same $(wc -l <"$d/go.bpf.lines") calls on the tree"
same fileops "true" "$PROGS/rec_fileops"
same procs   "true" "$PROGS/rec_procs"
# exec from a thread: how many writes its siblings make before the exec
# depends on timing; the program counts them itself (as record_progs.sh).
# Three threads write as fast as they can: a sanitizer build's recorder
# under load once fell behind by ~4,000 records of the default 8 MiB ring,
# so the ring holds 64 MiB; a loss is said even with -q, and fails here
rm -rf w && mkdir w
n=$(cd w && timeout 60 "$IOTAPE" record -q --bpf-ring-mb 64 --backend bpf -o "$d/te.iotape" -- \
	"$PROGS/rec_thread_exec" 3 2>"$d/te.err") || fail "rec_thread_exec (bpf): exit $?"
! grep -q dropped "$d/te.err" || fail "rec_thread_exec (bpf): $(cat "$d/te.err")"
w=$("$IOTAPE" dump te.iotape | grep -c 'write(3, \.\.\., 1) = 1')
[ "$w" -le "$n" ] && [ "$n" -le $((w + 3)) ] || fail "thread exec (bpf): $w writes recorded, $n done"
"$IOTAPE" dump te.iotape | grep -q -- '--- exec .*"--after"\] (from thread [0-9]*) ---' ||
	fail "thread exec (bpf): no exec record with its old tid"
echo "thread-exec: $w of $n writes recorded, exec from a thread with its old tid"

# fp_stress (record_fastpath.sh) under both: threads, fork, vfork, wrappers
# called from signal handlers, the rings unmapped under the library (mixed:
# the guard stops that munmap and switches the library off first), a child
# killed in a read (unfinished, as ptrace sees it)
for b in bpf mixed; do
	timeout 120 "$IOTAPE" record -o stress.$b.iotape --backend $b -- "$PROGS/fp_stress" \
		"$d/stress.file" >stress.out 2>stress.err || fail "fp_stress ($b): exit $? ($(tail -2 stress.err))"
	read -r expect killed <stress.out
	got=$("$IOTAPE" dump --count stress.$b.iotape | awk '$NF == "fchmod" { print $(NF-1) + 0 }')
	[ "$got" = "$expect" ] || fail "fp_stress ($b) made $expect fchmod calls, the trace holds ${got:-none}"
	"$IOTAPE" dump --pid "$killed" stress.$b.iotape | grep -q '^[0-9]* *[0-9.]* read(.*<unfinished \.\.\.>)' ||
		fail "fp_stress ($b): the read the killed child was in is not unfinished"
	echo "fp_stress ($b): $got of $expect fchmod calls, the killed read unfinished"
done
grep -q '[1-9][0-9.]*% in-process, the rest by BPF' stress.err ||
	fail "fp_stress (mixed): no call logged in-process: $(head -1 stress.err)"

# 2. a fork storm
for b in bpf mixed; do
	"$IOTAPE" record --backend $b -o storm.iotape -- sh -c \
		'i=0; while [ $i -lt 1000 ]; do /bin/true & i=$((i+1)); done; wait' 2>storm.err ||
		fail "fork storm ($b): exit $? ($(tail -2 storm.err))"
	grep -q ', 0 dropped$' storm.err || fail "fork storm ($b): events lost: $(tail -2 storm.err)"
	n=$("$IOTAPE" dump storm.iotape | grep -c -- '--- exec "/usr/bin/true"')
	[ "$n" = 1000 ] || fail "fork storm ($b): $n of 1000 execs of true in the trace"
	"$IOTAPE" check storm.iotape >/dev/null || fail "fork storm ($b): check fails"
	echo "fork storm ($b): 1000 programs, 0 dropped"
done

# 2b. a ring too small for a burst of long paths: the loss is counted, in
# the summary and the trace, never silent
"$IOTAPE" record --backend bpf --bpf-ring-mb 1 -o lost.iotape -- python3 -c \
	'import os
p = "/nonexistent" * 300
for i in range(40000): os.path.exists(p)' 2>lost.err || fail "lost: exit $? ($(tail -2 lost.err))"
grep -q 'were lost in the BPF ring buffer' lost.err || fail "lost: no word of lost events: $(cat lost.err)"
lost=$("$IOTAPE" check lost.iotape | sed -n 's/.*(\([0-9]*\) dropped by the recorder).*/\1/p')
[ "${lost:-0}" -gt 0 ] || fail "lost: the trace's dropped count is ${lost:-none}"
# ... and said by the replay of that trace, with the same count
mkdir -p lost.root && "$IOTAPE" replay lost.iotape --root "$PWD/lost.root" --timing afap >lost.rep 2>&1 ||
	fail "lost: replay exit $? ($(tail -2 lost.rep))"
grep -q "^  dropped      $lost events the recorder lost" lost.rep ||
	fail "lost: the replay's summary does not say the $lost events lost: $(cat lost.rep)"
echo "small ring: $lost events dropped, counted in the summary and the trace, said by the replay"

# 2b'. the guard's stops hold their calls: the time is measured (the
# events' pre_ns, summed in the summary), not left in the think time
"$IOTAPE" record --backend bpf -o held.iotape -- sh -c \
	'i=0; while [ $i -lt 200 ]; do : >held$i; rm held$i; i=$((i + 1)); done' 2>held.err ||
	fail "held: exit $? ($(tail -2 held.err))"
stops=$(sed -n 's/.*; \([0-9]*\) stops before calls that change names, \([0-9.]*\) s held.*/\1/p' held.err)
held=$(sed -n 's/.*; \([0-9]*\) stops before calls that change names, \([0-9.]*\) s held.*/\2/p' held.err)
[ "${stops:-0}" -ge 400 ] || fail "held: ${stops:-no} guard stops for 200 truncating opens and 200 unlinks: $(cat held.err)"
[ -n "$held" ] && [ "$held" != 0.000 ] || fail "held: the stops' hold is not measured: $(cat held.err)"
echo "guard: $stops stops held their calls $held s, out of the think time"

# 2b''. each call's time on a CPU (cpu_ns): every finished call has one,
# and a sleep of 0.3 s was on a CPU for less than half of it
"$IOTAPE" record --backend bpf -o oncpu.iotape -- sh -c 'cat /etc/hostname >/dev/null; sleep 0.3' \
	2>oncpu.err || fail "on cpu: exit $? ($(tail -2 oncpu.err))"
# (the sleep on a disk before a call, and the wake-up from a voluntary
# one, when there was one, come after)
"$IOTAPE" dump -P oncpu.iotape | grep -v '^#' | sed -E 's/( \[slept before [0-9.]+\])?( \[woken [0-9.]+ before\])?( \[waited [0-9.]+\])?( \[ready [0-9.]+\])?( \[gap woken by [0-9]+\])?( \[woken by [0-9]+\])?$//' >oncpu.txt
without=$(grep '> *$' oncpu.txt | head -3)
[ -z "$without" ] || fail "on cpu: calls without their time on a CPU: $without"
sl=$(grep -E '^[0-9]+ +[0-9.]+ (clock_)?nanosleep\(' oncpu.txt | head -1)
dur=$(echo "$sl" | sed -n 's/.*<\([0-9.]*\)> \[on cpu \([0-9.]*\)\]$/\1/p')
cpu=$(echo "$sl" | sed -n 's/.*<\([0-9.]*\)> \[on cpu \([0-9.]*\)\]$/\2/p')
[ -n "$dur" ] && [ -n "$cpu" ] || fail "on cpu: no sleep with its time on a CPU: ${sl:-none}"
awk -v d="$dur" -v c="$cpu" 'BEGIN { exit !(d >= 0.3 && c < d / 2) }' ||
	fail "on cpu: the sleep lasted $dur s and was on a CPU $cpu s"
echo "on cpu: every call has its CPU time; the sleep: $dur s, on a CPU $cpu s"

# 2c. path strings in pages not yet mapped at entry (a file mapped and
# never touched): read again at exit, not lost, not invented
printf '/etc/hostname\0' >pathfile
cat >fault.py <<'PY'
import ctypes, mmap, sys
libc = ctypes.CDLL(None)
for i in range(20):
    f = open(sys.argv[1], "r+b")
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE)
    libc.access(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(m))), 0)
PY
"$IOTAPE" record --backend bpf -o fault.iotape -- python3 fault.py pathfile 2>fault.err ||
	fail "unmapped strings: exit $? ($(tail -2 fault.err))"
grep -q 'were read when it returned' fault.err || fail "unmapped strings: none was read again: $(cat fault.err)"
n=$("$IOTAPE" dump fault.iotape | grep -c 'access("/etc/hostname", F_OK) = 0')
[ "$n" = 20 ] || fail "unmapped strings: $n of 20 access() calls hold their path"
echo "unmapped strings: read again at exit, 20 of 20 paths"

# 3. SIGKILL of the program, then of the recorder
"$IOTAPE" record -q --backend bpf -o kill1.iotape -- sh -c 'kill -9 $$' 2>/dev/null
[ $? = 137 ] || fail "the killed program's status is not 128+9"
"$IOTAPE" dump kill1.iotape | grep -q '+++ killed by SIGKILL' || fail "the program's kill is not in the trace"
"$IOTAPE" record -q --backend bpf -o kill2.iotape -- sh -c 'while :; do cat /etc/hostname >/dev/null; done' &
rp=$!
sleep 1
# the programs this recorder holds, by id (its descriptors' fdinfo): other
# recordings on the machine may load programs of the same names
ids=$(cat /proc/$rp/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -un)
[ -n "$ids" ] || fail "the recorder holds no BPF program after 1 s"
kill -9 $rp
wait $rp 2>/dev/null
sleep 0.5
# killed between frames the trace has no index ("not closed cleanly"); killed
# in the middle of writing a frame, it ends in part of one ("truncated at
# frame N"); either way every complete frame is read, and none is corrupt
"$IOTAPE" dump kill2.iotape >kill2.txt 2>kill2.err ||
	grep -Eq 'not closed cleanly|truncated at frame [0-9]+, byte [0-9]+ \(events up to' kill2.err ||
	fail "the trace of a killed recorder is unreadable: $(cat kill2.err)"
grep -qi corrupt kill2.err && fail "the trace of a killed recorder has a corrupt frame: $(cat kill2.err)"
grep -q 'openat(AT_FDCWD, "/etc/hostname"' kill2.txt || fail "the killed recorder's trace holds no events"
left() {	# of the killed recorder's programs, those still loaded
	local i id n
	for i in $(seq 30); do
		n=""
		for id in $ids; do
			bpftool prog show id "$id" >/dev/null 2>&1 && n="$n $id"
		done
		[ -z "$n" ] && break
		sleep 0.1
	done
	echo "$n"
}
l=$(left)
[ -z "$l" ] || fail "BPF programs of the killed recorder are still loaded (ids$l of $(echo $ids))"
echo "SIGKILL: traces readable, no program left loaded"

# 4. auto as root records with bpf; not root, it falls back
"$IOTAPE" record -q --backend auto -o auto.iotape -- true || fail "auto: exit $?"
"$IOTAPE" dump auto.iotape | grep -q '^# record.backend *bpf$' || fail "auto as root did not record with bpf"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$d"
	mkdir u && chown 65534:65534 u && cd u
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAPE" record --backend auto \
		-o user.iotape -- true 2>user.err || fail "non-root auto: exit $? ($(cat user.err))"
	grep -q 'recorded with ptrace: the bpf backend did not load' user.err ||
		fail "non-root auto does not say it fell back: $(cat user.err)"
	"$IOTAPE" dump user.iotape | grep -q '^# record.backend *ptrace (bpf unavailable)$' ||
		fail "non-root auto: header does not say ptrace"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAPE" record --backend bpf \
		-o user2.iotape -- true 2>user2.err && fail "non-root --backend bpf succeeded"
	grep -q 'needs root or CAP_BPF' user2.err || fail "non-root bpf: unclear message: $(cat user2.err)"
	echo "non-root: auto falls back to ptrace and says so"
fi
echo ok
