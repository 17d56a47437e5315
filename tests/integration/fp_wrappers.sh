#!/bin/bash
# fp_wrappers.sh - the libc wrappers of libiotape-fast.so must make the very
# syscalls glibc makes (same numbers, same arguments, same count), or a
# trace recorded on the fast path would differ from a ptrace one.
#
# tests/progs/fp_calls calls every wrapped function; it runs under strace
# once on plain glibc and once with the preload.  Without IOTAPE_FAST_SHM
# the preload is off and each wrapper issues its call through syscall(),
# so strace sees exactly what the wrapper would issue.  The two logs are
# compared decoded (flags, strings, structs) and raw (every argument
# register, including the ones the decoder hides, such as openat's mode
# without O_CREAT); what fp_calls prints (return values and errno) must
# match too.  Only the calls between fp_calls' start and end marks
# (faccessat on dirfd 4242 and 4243) count: before them the loader maps the
# preload itself.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_cmd strace
lib=${FP_LIB:-$SRCDIR/$BUILD/libiotape-fast.so}
prog=$PROGS/fp_calls
[ -f "$lib" ] || skip "$lib is not built"
[ -x "$prog" ] || fail "$prog is not built (make tests)"
strace -o /dev/null true 2>/dev/null ||
	skip "strace cannot trace here (container or yama ptrace_scope)"
d=$(mktemp -d /tmp/iotape-fpw.XXXXXX)
trap 'rm -rf "$d"' EXIT
LC_ALL=C; export LC_ALL
unset IOTAPE_FAST_SHM

# the preload really replaces the functions (else the diff proves nothing)
mkdir "$d/w"
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$d/bind" LD_PRELOAD="$lib" "$prog" "$d/w" >/dev/null ||
	fail "fp_calls failed under the preload"
for f in open unlink mkdir readlink fstat fcntl opendir readdir closedir realpath \
	canonicalize_file_name __realpath_chk nanosleep clock_nanosleep poll ppoll epoll_wait; do
	grep -q "binding file $prog .* to $lib .*\`$f'" "$d"/bind.* ||
		fail "fp_calls' $f does not bind to the preload"
done

# run VARIANT MODE [STRACE-ARGS...] - trace fp_calls in a fresh $d/w
run() {
	local v=$1 m=$2; shift 2
	rm -rf "$d/w" && mkdir "$d/w"
	# getcwd is not recorded, but realpath's must match glibc's all the same
	strace -f -qq -e trace=%file,%desc,getcwd,nanosleep,clock_nanosleep "$@" -o "$d/$v.$m.raw" \
		"$prog" "$d/w" >"$d/$v.$m.out" || fail "$v/$m: fp_calls exit $?"
	# the pid (F_SETOWN, F_GETOWN_EX), the forked child's (in the
	# signals' si_pid) and user-space addresses differ between runs; so does F_GETFL's unused third argument in the raw
	# log, which glibc's fdopendir leaves as whatever its register held.
	# Everything else must not (strace's padding before " = " aside).
	local pid hex
	pid=$(awk 'NR == 1 { print $1 }' "$d/$v.$m.raw")
	hex=$(printf '0x%x' "$pid")
	# (the pid only where it is an argument or a result: in fcntl lines,
	# past the command, which may equal it (pid 1030 is F_DUPFD_CLOEXEC,
	# 0x406); elsewhere a number such as a file name's may equal it)
	sed -E -e 's/^[0-9]+ +//' \
		-e "/^fcntl\\(/ { s/^(fcntl\\([^,]*, [^,)]*)/\\1\\n/; :p; s/\\n(.*)\\b($pid|$hex)\\b/\\n\\1PID/; tp; s/\\n//; }" \
		-e 's/0x[0-9a-f]{11,12}\b/ADDR/g' -e 's/si_pid=[0-9]+/si_pid=PID/g' \
		-e 's/^fcntl\((0x[0-9a-f]+), 0x3, [^)]*\)/fcntl(\1, 0x3, _)/' \
		-e 's/\) +=/) =/' "$d/$v.$m.raw" |
		awk '/^faccessat\((4242|0x1092),/ { on = 1 } on; /^faccessat\((4243|0x1093),/ { exit }' >"$d/$v.$m"
	grep -Eq '^faccessat\((4243|0x1093),' "$d/$v.$m" || fail "$v/$m: no end mark in the strace log"
}

for m in decoded raw; do
	args=()
	[ $m = raw ] && args=(-e raw=all)
	run glibc $m "${args[@]}"
	run preload $m -E LD_PRELOAD="$lib" "${args[@]}"
	[ $m = raw ] || grep -q "libiotape-fast" "$d/preload.$m.raw" ||
		fail "$m: the preload was not loaded"
	diff -u "$d/glibc.$m" "$d/preload.$m" >"$d/$m.diff" ||
		{ head -n 60 "$d/$m.diff"; fail "$m: the preload's syscalls differ from glibc's"; }
	diff -u "$d/glibc.$m.out" "$d/preload.$m.out" >"$d/$m.out.diff" ||
		{ head -n 60 "$d/$m.out.diff"; fail "$m: results or errno differ from glibc's"; }
done

# readdir of a big directory: several getdents64 with glibc's buffer size
n=$(grep -c '^getdents64(' "$d/glibc.decoded")
[ "$n" -ge 6 ] || fail "only $n getdents64 calls: the big directory was not read"
# realpath's link buffer grew (a 3,000-byte target): 1023, 2047, 4095
r=$(grep -c '^readlink(.*, 2047) = 2047$' "$d/glibc.decoded")
[ "$r" -ge 1 ] || fail "no readlink with bufsize 2047: realpath's long target was not read"
echo "ok: $(wc -l <"$d/glibc.decoded") syscalls, $(wc -l <"$d/glibc.decoded.out") results identical ($n getdents64, $(grep -c '^readlink(' "$d/glibc.decoded") readlink)"
