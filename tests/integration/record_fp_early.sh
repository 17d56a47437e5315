#!/bin/bash
# record_fp_early.sh - calls the fast path's library meets before its
# own constructor ran.
#  1. A program with a malloc of its own (as rustc links jemalloc): a
#     library's constructor, which runs before the fast path's, makes
#     the first malloc, which reads a configuration link with readlink()
#     while it holds its lock, as jemalloc's does.  The fast path started
#     from inside that readlink and sorted its table of calls with
#     qsort(), which mallocs: a second malloc, under the first one's
#     lock.  rustc waited for it forever (`cargo build` never ended under
#     `record --backend ptrace`); this malloc exits 3 instead.
#  2. A program whose .preinit_array makes a file call, before libc has
#     set up the environment: the library found no IOTAPE_FAST_SHM and
#     switched itself off for the whole process (0.0 % in-process).
# Both recorded with --backend ptrace (the fast path on).
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_fastpath_lib
T=$(mktemp -d /tmp/iotape-fpearly.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || fail "no $T"
command -v cc >/dev/null || fail "cc is missing (the build's own dependency)"

# the two programs' main: a file written through stdio, "ok" printed
cat >main.c <<'C'
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "w") : NULL;

	if (!f || fprintf(f, "written\n") < 0 || fclose(f) != 0)
		return 1;
	puts("ok");
	return 0;
}
C
cat >early.c <<'C'
#include <stdlib.h>
__attribute__((constructor)) static void early(void)
{
	void *volatile p = malloc(32);	/* volatile: not left out */

	free(p);
}
C
cat >own.c <<'C'
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Alignas(16) unsigned char arena[64 << 20];
static size_t used;
static int locked, inited;

void *malloc(size_t n)
{
	size_t *p;

	if (locked) {
		static const char m[] = "own: malloc called again while it holds its lock\n";

		if (write(2, m, sizeof(m) - 1) < 0)
			_exit(4);
		_exit(3);
	}
	locked = 1;
	if (!inited) {
		char buf[256];
		int e = errno;

		inited = 1;
		if (readlink("/etc/own_malloc.conf", buf, sizeof(buf)) < 0)
			errno = e;
	}
	n = (n + 15) & ~(size_t)15;
	p = used + n + 16 <= sizeof(arena) ? (size_t *)(arena + used + 8) : NULL;
	if (p) {
		p[-1] = n;
		used += n + 16;
	}
	locked = 0;
	return p;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	void *p = b && a > SIZE_MAX / b ? NULL : malloc(a * b);

	if (p)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *o, size_t n)
{
	void *p = malloc(n);

	if (p && o)
		memcpy(p, o, ((size_t *)o)[-1] < n ? ((size_t *)o)[-1] : n);
	return p;
}
C
cat >pre.c <<'C'
#include <stdio.h>
#include <unistd.h>

static void early(int argc, char **argv, char **envp)
{
	char b[64];

	(void)argc, (void)argv, (void)envp;
	if (readlink("/etc/pre_nothing.conf", b, sizeof(b)) >= 0)
		_exit(5);
}
__attribute__((section(".preinit_array"), used)) static void (*early_p)(int, char **, char **) = early;
C
cc -O1 -fPIC -shared -o libearly.so early.c || fail "cc libearly.so"
cc -O1 -o own own.c main.c -L. -Wl,--no-as-needed -learly -Wl,-rpath,"$T" || fail "cc own"
ldd ./own | grep -q libearly.so || fail "own is not linked with libearly.so (its constructor would not run)"
cc -O1 -o pre pre.c main.c || fail "cc pre"
[ "$(./own out0)" = ok ] || fail "own does not run natively"

# 1: the fast path starts inside a malloc that holds its lock
timeout 60 "$IOTAPE" record --backend ptrace -o own.iotape -- ./own out1 >own.out 2>own.err
rc=$?
[ $rc = 124 ] && fail "record of own: still running after 60 s (a malloc waiting for its own lock?)"
[ $rc = 0 ] || fail "record of own: exit $rc: $(cat own.err)"
[ "$(cat own.out)" = ok ] && [ "$(cat out1)" = written ] || fail "own did not run to its end: $(cat own.out own.err)"
"$IOTAPE" dump own.iotape | grep -q 'readlink("/etc/own_malloc.conf", .*ENOENT' ||
	fail "the trace has no readlink of the malloc's configuration"
"$IOTAPE" dump own.iotape | grep -q "openat(AT_FDCWD, \"$T/out1\", .*) = 3" ||
	fail "the trace has no open of out1"

# 2: a call before libc's start leaves the fast path on for the rest
"$IOTAPE" record --backend ptrace -o pre.iotape -- ./pre out2 >pre.out 2>pre.err ||
	fail "record of pre: exit $?: $(cat pre.err)"
[ "$(cat pre.out)" = ok ] || fail "pre did not run to its end: $(cat pre.out pre.err)"
pct=$(sed -n 's/.*events (\([0-9.]*\)% in-process.*/\1/p' pre.err)
[ -n "$pct" ] || fail "no in-process share in the summary: $(cat pre.err)"
awk -v p="$pct" 'BEGIN { exit !(p > 0) }' ||
	fail "a call from .preinit_array switched the fast path off: $pct % of the calls in-process"
"$IOTAPE" dump pre.iotape | grep -q 'readlink("/etc/pre_nothing.conf", .*ENOENT' ||
	fail "the trace has no readlink made from .preinit_array"
echo "ok: a malloc of the program's own under way, and a call before libc's start"
