/*
 * faultio.c - LD_PRELOAD shim that makes writes to one file fail, as a
 * full or dying disk would, to prove iotape reports the error, stops
 * cleanly and leaves a file whose complete frames still read.
 *
 * Environment:
 *   FAULTIO_PATH   substring of the path to hit (required; unset = inert)
 *   FAULTIO_AFTER  bytes that reach matching files before the fault
 *                  (default 0); the write that crosses the limit is cut
 *                  short there, as a filling disk cuts it
 *   FAULTIO_ERRNO  ENOSPC (default), EIO, EDQUOT or EFBIG
 *   FAULTIO_CALL   write (default), fsync or both: which calls fail
 *   FAULTIO_KEEP   if set, LD_PRELOAD stays in the environment; by
 *                  default the shim removes it so the programs iotape
 *                  runs are not touched
 *
 * Descriptors opened inside libc (mkstemp, fopen) are matched by their
 * /proc/self/fd link on first use.
 *
 * When the fault first fires it says so on stderr ("faultio: ..."), so a
 * test can tell an injected failure from an unrelated one.
 *
 * The writer writes from its own thread, so the descriptor table and the
 * byte count are atomics, not locked structures.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FD 65536

/* per descriptor: 0 not seen, FD_HIT path matches, FD_MISS it does not */
#define FD_HIT 1
#define FD_MISS 2
static unsigned char hit_fd[MAX_FD];
static const char *want_path;
static long long after;
static long long written;		/* bytes that reached matching fds */
static int fault_errno = ENOSPC;
static int fail_write = 1, fail_sync;
static int announced;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p)
		abort();	/* no libc symbol: nothing sane to fall back to */
	return p;
}

static int parse_errno(const char *s)
{
	if (!s || !*s || !strcmp(s, "ENOSPC"))
		return ENOSPC;
	if (!strcmp(s, "EIO"))
		return EIO;
	if (!strcmp(s, "EDQUOT"))
		return EDQUOT;
	if (!strcmp(s, "EFBIG"))
		return EFBIG;
	return atoi(s) > 0 ? atoi(s) : ENOSPC;
}

/* Drop LD_PRELOAD so the traced programs run unshimmed: the fault is
 * meant for iotape's own output, and a shim inside the tracee would add
 * syscalls to the recording. */
static void strip_preload(void)
{
	if (!getenv("FAULTIO_KEEP"))
		unsetenv("LD_PRELOAD");
}

__attribute__((constructor)) static void faultio_init(void)
{
	const char *s;

	real_write = sym("write");
	real_pwrite64 = sym("pwrite64");
	real_writev = sym("writev");
	real_fsync = sym("fsync");
	real_fdatasync = sym("fdatasync");
	real_open = sym("open");
	real_openat = sym("openat");
	real_close = sym("close");
	want_path = getenv("FAULTIO_PATH");
	if (want_path && !*want_path)
		want_path = NULL;
	if ((s = getenv("FAULTIO_AFTER")))
		after = atoll(s);
	fault_errno = parse_errno(getenv("FAULTIO_ERRNO"));
	if ((s = getenv("FAULTIO_CALL"))) {
		fail_write = !strcmp(s, "write") || !strcmp(s, "both");
		fail_sync = !strcmp(s, "fsync") || !strcmp(s, "both");
	}
	strip_preload();
}

static void announce(int fd, const char *call)
{
	char buf[160];
	int n;

	if (__atomic_exchange_n(&announced, 1, __ATOMIC_SEQ_CST))
		return;
	n = snprintf(buf, sizeof(buf), "faultio: %s on fd %d fails with %s after %lld bytes\n",
		     call, fd, strerror(fault_errno), after);
	if (n > 0)
		(void)!real_write(2, buf, (size_t)n);
}

static void remember(int fd, const char *path)
{
	if (fd < 0 || fd >= MAX_FD)
		return;
	__atomic_store_n(&hit_fd[fd], want_path && path && strstr(path, want_path) ? FD_HIT : FD_MISS,
			 __ATOMIC_RELEASE);
}

/* A descriptor not opened through the wrappers (mkstemp and fopen open
 * inside libc, dup) is looked up once in /proc/self/fd. */
static int is_hit(int fd)
{
	char link[64], path[4096];
	ssize_t n;
	int st;

	if (fd < 0 || fd >= MAX_FD || !want_path)
		return 0;
	st = __atomic_load_n(&hit_fd[fd], __ATOMIC_ACQUIRE);
	if (st)
		return st == FD_HIT;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return 0;
	path[n] = 0;
	remember(fd, path);
	return strstr(path, want_path) != NULL;
}

/* How many of LEN bytes may still go through; 0 with errno set = fail.
 * Bytes are counted in every mode: FAULTIO_CALL=fsync fails the first
 * fsync after FAULTIO_AFTER bytes. */
static size_t allow(int fd, size_t len, const char *call)
{
	long long prev, room;

	if (len == 0 || !is_hit(fd))
		return len;
	prev = __atomic_fetch_add(&written, (long long)len, __ATOMIC_SEQ_CST);
	if (!fail_write)
		return len;
	room = after - prev;
	if (room >= (long long)len)
		return len;
	/* Give back what will not be written, so the count stays the bytes
	 * that did reach the file. */
	__atomic_fetch_sub(&written, (long long)len - (room > 0 ? room : 0), __ATOMIC_SEQ_CST);
	if (room > 0)
		return (size_t)room;
	announce(fd, call);
	errno = fault_errno;
	return 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	size_t n = allow(fd, len, "write");

	if (n == 0 && len)
		return -1;
	return real_write(fd, buf, n);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	size_t n = allow(fd, len, "pwrite64");

	if (n == 0 && len)
		return -1;
	return real_pwrite64(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite64(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	size_t len = 0, n;
	int i;

	for (i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	n = allow(fd, len, "writev");
	if (n == 0 && len)
		return -1;
	if (n < len) {
		/* A short vector write: keep the first N bytes. */
		struct iovec v[64];
		int k = 0;

		for (i = 0; i < cnt && n && k < 64; i++, k++) {
			v[k] = iov[i];
			if (v[k].iov_len > n)
				v[k].iov_len = n;
			n -= v[k].iov_len;
		}
		return real_writev(fd, v, k);
	}
	return real_writev(fd, iov, cnt);
}

static int sync_fault(int fd, const char *call)
{
	if (!fail_sync || !is_hit(fd))
		return 0;
	if (__atomic_load_n(&written, __ATOMIC_SEQ_CST) < after)
		return 0;
	announce(fd, call);
	errno = fault_errno;
	return -1;
}

int fsync(int fd)
{
	return sync_fault(fd, "fsync") ? -1 : real_fsync(fd);
}

int fdatasync(int fd)
{
	return sync_fault(fd, "fdatasync") ? -1 : real_fdatasync(fd);
}

static int open_mode_needed(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	if (open_mode_needed(flags)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	fd = real_open(path, flags, mode);
	remember(fd, path);
	return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	if (open_mode_needed(flags)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	fd = real_openat(dirfd, path, flags, mode);
	remember(fd, path);
	return fd;
}

int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int creat(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

int close(int fd)
{
	if (fd >= 0 && fd < MAX_FD)
		__atomic_store_n(&hit_fd[fd], 0, __ATOMIC_RELEASE);
	return real_close(fd);
}
