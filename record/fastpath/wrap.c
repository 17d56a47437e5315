/*
 * wrap.c - the libc file functions cp, tar, rm and du call, re-implemented
 * on fp_call().  Each makes exactly the syscall glibc 2.36 makes for it on
 * x86_64 (Debian 12): the same number (unlink is SYS_unlink, not unlinkat),
 * the same arguments, and the same checks that fail without a syscall
 * (fstat(-1) is EBADF from libc), so a fast-path trace equals a ptrace one
 * call for call.  tests/integration/fp_wrappers.sh holds each one to that
 * under strace.  Functions with more logic than one call (fchmodat with
 * flags, faccessat, posix_fallocate's fallback) are left to libc and
 * traced.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * An int argument as glibc's syscall macros leave it in the register:
 * zero-extended, as every 32-bit move does.  (long)fd would sign-extend,
 * and the recorder, which reads all 64 bits of each argument register,
 * would see AT_FDCWD as 0xffffffffffffff9c here and 0xffffff9c there.
 */
#define U(x) ((unsigned int)(x))

/* fortified and stdio-less entry points with no public prototype */
int __open_2(const char *p, int flags);
int __open64_2(const char *p, int flags);
int __openat_2(int dfd, const char *p, int flags);
int __openat64_2(int dfd, const char *p, int flags);
int rename(const char *o, const char *n);
int renameat(int od, const char *o, int nd, const char *n);
int renameat2(int od, const char *o, int nd, const char *n, unsigned int fl);

/* glibc's own function of that name, for the cases it aborts in */
static void *fp_libc(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/*
 * @p is NULL.  The headers declare some arguments nonnull, which lets the
 * compiler drop a plain test; glibc tests them all the same.
 */
static int fp_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

static mode_t fp_mode_arg(int flags, va_list ap)
{
	/* the mode is only there when O_CREAT or O_TMPFILE says so */
	if ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE)
		return va_arg(ap, mode_t);
	return 0;
}

static int fp_needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
}

/* open* all become openat; O_LARGEFILE, which glibc adds, is 0 here */
EXPORT int openat(int dfd, const char *p, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = fp_mode_arg(flags, ap);
	va_end(ap);
	return (int)FP(SYS_openat, U(dfd), p, U(flags), m, 0, 0);
}

EXPORT int open(const char *p, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = fp_mode_arg(flags, ap);
	va_end(ap);
	return (int)FP(SYS_openat, U(AT_FDCWD), p, U(flags), m, 0, 0);
}

EXPORT int open64(const char *p, int flags, ...) __attribute__((alias("open")));
EXPORT int openat64(int dfd, const char *p, int flags, ...) __attribute__((alias("openat")));

/*
 * The fortified opens abort (a message on stderr, then SIGABRT) when the
 * flags want a mode the caller did not pass: glibc's own does that part.
 */
EXPORT int __open_2(const char *p, int flags)
{
	int (*f)(const char *, int);

	if (fp_needs_mode(flags) && (f = fp_libc("__open_2")))
		return f(p, flags);
	return (int)FP(SYS_openat, U(AT_FDCWD), p, U(flags), 0, 0, 0);
}

EXPORT int __open64_2(const char *p, int flags) __attribute__((alias("__open_2")));

EXPORT int __openat_2(int dfd, const char *p, int flags)
{
	int (*f)(int, const char *, int);

	if (fp_needs_mode(flags) && (f = fp_libc("__openat_2")))
		return f(dfd, p, flags);
	return (int)FP(SYS_openat, U(dfd), p, U(flags), 0, 0, 0);
}

EXPORT int __openat64_2(int dfd, const char *p, int flags) __attribute__((alias("__openat_2")));

/* x86_64 has SYS_creat, and glibc uses it */
EXPORT int creat(const char *p, mode_t m)
{
	return (int)FP(SYS_creat, p, m, 0, 0, 0, 0);
}

EXPORT int creat64(const char *p, mode_t m) __attribute__((alias("creat")));

EXPORT int close(int fd)
{
	return (int)FP(SYS_close, U(fd), 0, 0, 0, 0, 0);
}

EXPORT ssize_t read(int fd, void *b, size_t n)
{
	return FP(SYS_read, U(fd), b, n, 0, 0, 0);
}

EXPORT ssize_t write(int fd, const void *b, size_t n)
{
	return FP(SYS_write, U(fd), b, n, 0, 0, 0);
}

EXPORT ssize_t pread64(int fd, void *b, size_t n, off_t o)
{
	return FP(SYS_pread64, U(fd), b, n, o, 0, 0);
}

EXPORT ssize_t pread(int fd, void *b, size_t n, off_t o) __attribute__((alias("pread64")));

EXPORT ssize_t pwrite64(int fd, const void *b, size_t n, off_t o)
{
	return FP(SYS_pwrite64, U(fd), b, n, o, 0, 0);
}

EXPORT ssize_t pwrite(int fd, const void *b, size_t n, off_t o) __attribute__((alias("pwrite64")));

EXPORT ssize_t readv(int fd, const struct iovec *v, int n)
{
	return FP(SYS_readv, U(fd), v, U(n), 0, 0, 0);
}

EXPORT ssize_t writev(int fd, const struct iovec *v, int n)
{
	return FP(SYS_writev, U(fd), v, U(n), 0, 0, 0);
}

/* the kernel takes the offset as two halves; on x86_64 glibc passes (o, 0) */
EXPORT ssize_t preadv64(int fd, const struct iovec *v, int n, off_t o)
{
	return FP(SYS_preadv, U(fd), v, U(n), o, 0, 0);
}

EXPORT ssize_t preadv(int fd, const struct iovec *v, int n, off_t o) __attribute__((alias("preadv64")));

EXPORT ssize_t pwritev64(int fd, const struct iovec *v, int n, off_t o)
{
	return FP(SYS_pwritev, U(fd), v, U(n), o, 0, 0);
}

EXPORT ssize_t pwritev(int fd, const struct iovec *v, int n, off_t o) __attribute__((alias("pwritev64")));

EXPORT off_t lseek(int fd, off_t o, int w)
{
	return FP(SYS_lseek, U(fd), o, U(w), 0, 0, 0);
}

EXPORT off_t lseek64(int fd, off_t o, int w) __attribute__((alias("lseek")));

EXPORT int fstat(int fd, struct stat *st)
{
	/* glibc: a negative fd (AT_FDCWD too) is EBADF without a call */
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return (int)FP(SYS_newfstatat, U(fd), "", st, AT_EMPTY_PATH, 0, 0);
}

EXPORT int fstat64(int fd, struct stat64 *st) __attribute__((alias("fstat")));

EXPORT int stat(const char *p, struct stat *st)
{
	return (int)FP(SYS_newfstatat, U(AT_FDCWD), p, st, 0, 0, 0);
}

EXPORT int stat64(const char *p, struct stat64 *st) __attribute__((alias("stat")));

EXPORT int lstat(const char *p, struct stat *st)
{
	return (int)FP(SYS_newfstatat, U(AT_FDCWD), p, st, AT_SYMLINK_NOFOLLOW, 0, 0);
}

EXPORT int lstat64(const char *p, struct stat64 *st) __attribute__((alias("lstat")));

EXPORT int fstatat(int dfd, const char *p, struct stat *st, int fl)
{
	return (int)FP(SYS_newfstatat, U(dfd), p, st, U(fl), 0, 0);
}

EXPORT int fstatat64(int dfd, const char *p, struct stat64 *st, int fl) __attribute__((alias("fstatat")));

/*
 * glibc would emulate statx with fstatat on ENOSYS; kernels since 4.11
 * have it, so the emulation is not copied.
 */
EXPORT int statx(int dfd, const char *p, int fl, unsigned int mask, struct statx *stx)
{
	return (int)FP(SYS_statx, U(dfd), p, U(fl), mask, stx, 0);
}

EXPORT ssize_t getdents64(int fd, void *b, size_t n)
{
	/* the kernel's count is an unsigned int checked as an int */
	if (n > INT_MAX)
		n = INT_MAX;
	return FP(SYS_getdents64, U(fd), b, n, 0, 0, 0);
}

EXPORT ssize_t copy_file_range(int in, off_t *oi, int out, off_t *oo, size_t n,
			       unsigned int fl)
{
	return FP(SYS_copy_file_range, U(in), oi, U(out), oo, n, fl);
}

/* the argument is passed on as the full register the caller left */
EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return (int)FP(SYS_ioctl, U(fd), req, arg, 0, 0, 0);
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	struct f_owner_ex fex;
	va_list ap;
	long arg, r;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	/*
	 * glibc asks F_GETOWN_EX instead: F_GETOWN cannot tell a process
	 * group from an error, a negative return being both
	 */
	if (cmd == F_GETOWN) {
		r = FP(SYS_fcntl, U(fd), F_GETOWN_EX, &fex, 0, 0, 0);
		if (r < 0)
			return -1;
		return fex.type == F_OWNER_PGRP ? -fex.pid : fex.pid;
	}
	return (int)FP(SYS_fcntl, U(fd), U(cmd), arg, 0, 0, 0);
}

EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

/* (setxattr, removexattr and their l and f forms are not logged here:
 * they stop in the recorder, which takes the file's attributes before
 * they change them; a state taken after them had the attributes they
 * set from the start: setfacl -R, 15,559 mismatches) */
EXPORT ssize_t fgetxattr(int fd, const char *n, void *v, size_t sz)
{
	return FP(SYS_fgetxattr, U(fd), n, v, sz, 0, 0);
}

EXPORT ssize_t flistxattr(int fd, char *l, size_t sz)
{
	return FP(SYS_flistxattr, U(fd), l, sz, 0, 0, 0);
}

EXPORT ssize_t getxattr(const char *p, const char *n, void *v, size_t sz)
{
	return FP(SYS_getxattr, p, n, v, sz, 0, 0);
}

EXPORT ssize_t lgetxattr(const char *p, const char *n, void *v, size_t sz)
{
	return FP(SYS_lgetxattr, p, n, v, sz, 0, 0);
}

EXPORT ssize_t listxattr(const char *p, char *l, size_t sz)
{
	return FP(SYS_listxattr, p, l, sz, 0, 0, 0);
}

EXPORT ssize_t llistxattr(const char *p, char *l, size_t sz)
{
	return FP(SYS_llistxattr, p, l, sz, 0, 0, 0);
}

EXPORT int posix_fadvise(int fd, off_t o, off_t l, int adv)
{
	/*
	 * posix_fadvise returns the error number and leaves errno alone; the
	 * traced path's syscall() would set it
	 */
	int saved = errno;
	long r = fp_call(SYS_fadvise64, U(fd), o, l, U(adv), 0, 0);

	errno = saved;
	return r < 0 ? (int)-r : 0;
}

EXPORT int posix_fadvise64(int fd, off_t o, off_t l, int adv) __attribute__((alias("posix_fadvise")));

EXPORT int utimensat(int dfd, const char *p, const struct timespec t[2], int fl)
{
	/* the kernel takes a NULL path to mean dfd itself; glibc refuses it */
	if (fp_null(p)) {
		errno = EINVAL;
		return -1;
	}
	return (int)FP(SYS_utimensat, U(dfd), p, t, U(fl), 0, 0);
}

EXPORT int futimens(int fd, const struct timespec t[2])
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return (int)FP(SYS_utimensat, U(fd), NULL, t, 0, 0, 0);
}

EXPORT int fchmod(int fd, mode_t m)
{
	return (int)FP(SYS_fchmod, U(fd), m, 0, 0, 0, 0);
}

EXPORT int chmod(const char *p, mode_t m)
{
	return (int)FP(SYS_chmod, p, m, 0, 0, 0, 0);
}

EXPORT int fchown(int fd, uid_t u, gid_t g)
{
	return (int)FP(SYS_fchown, U(fd), u, g, 0, 0, 0);
}

EXPORT int chown(const char *p, uid_t u, gid_t g)
{
	return (int)FP(SYS_chown, p, u, g, 0, 0, 0);
}

EXPORT int lchown(const char *p, uid_t u, gid_t g)
{
	return (int)FP(SYS_lchown, p, u, g, 0, 0, 0);
}

EXPORT int fchownat(int dfd, const char *p, uid_t u, gid_t g, int fl)
{
	return (int)FP(SYS_fchownat, U(dfd), p, u, g, U(fl), 0);
}

EXPORT int mkdir(const char *p, mode_t m)
{
	return (int)FP(SYS_mkdir, p, m, 0, 0, 0, 0);
}

EXPORT int mkdirat(int dfd, const char *p, mode_t m)
{
	return (int)FP(SYS_mkdirat, U(dfd), p, m, 0, 0, 0);
}

/*
 * dev_t is 64 bits, the kernel's is 32: glibc refuses a device number
 * that does not fit before making the call.  mknod is mknodat there.
 */
EXPORT int mknodat(int dfd, const char *p, mode_t m, dev_t dev)
{
	unsigned int kdev = (unsigned int)dev;

	if (kdev != dev) {
		errno = EINVAL;
		return -1;
	}
	return (int)FP(SYS_mknodat, U(dfd), p, m, kdev, 0, 0);
}

EXPORT int mknod(const char *p, mode_t m, dev_t dev)
{
	return mknodat(AT_FDCWD, p, m, dev);
}

EXPORT int unlink(const char *p)
{
	return (int)FP(SYS_unlink, p, 0, 0, 0, 0, 0);
}

EXPORT int unlinkat(int dfd, const char *p, int fl)
{
	return (int)FP(SYS_unlinkat, U(dfd), p, U(fl), 0, 0, 0);
}

EXPORT int rmdir(const char *p)
{
	return (int)FP(SYS_rmdir, p, 0, 0, 0, 0, 0);
}

EXPORT ssize_t readlink(const char *p, char *b, size_t n)
{
	return FP(SYS_readlink, p, b, n, 0, 0, 0);
}

EXPORT ssize_t readlinkat(int dfd, const char *p, char *b, size_t n)
{
	return FP(SYS_readlinkat, U(dfd), p, b, n, 0, 0);
}

EXPORT int symlink(const char *t, const char *p)
{
	return (int)FP(SYS_symlink, t, p, 0, 0, 0, 0);
}

EXPORT int symlinkat(const char *t, int dfd, const char *p)
{
	return (int)FP(SYS_symlinkat, t, U(dfd), p, 0, 0, 0);
}

EXPORT int link(const char *o, const char *n)
{
	return (int)FP(SYS_link, o, n, 0, 0, 0, 0);
}

EXPORT int linkat(int od, const char *o, int nd, const char *n, int fl)
{
	return (int)FP(SYS_linkat, U(od), o, U(nd), n, U(fl), 0);
}

EXPORT int rename(const char *o, const char *n)
{
	return (int)FP(SYS_rename, o, n, 0, 0, 0, 0);
}

EXPORT int renameat(int od, const char *o, int nd, const char *n)
{
	return (int)FP(SYS_renameat, U(od), o, U(nd), n, 0, 0);
}

/*
 * Debian's glibc is built for kernels older than renameat2 (3.15): no
 * flags is plain renameat, and a kernel without renameat2 makes any flag
 * unknown (EINVAL).
 */
EXPORT int renameat2(int od, const char *o, int nd, const char *n, unsigned int fl)
{
	long r;

	if (!fl)
		return renameat(od, o, nd, n);
	r = fp_call(SYS_renameat2, U(od), (long)o, U(nd), (long)n, fl, 0);
	if (r == -ENOSYS)
		r = -EINVAL;
	return (int)fp_ret(r);
}

EXPORT int access(const char *p, int m)
{
	return (int)FP(SYS_access, p, U(m), 0, 0, 0, 0);
}

EXPORT int fsync(int fd)
{
	return (int)FP(SYS_fsync, U(fd), 0, 0, 0, 0, 0);
}

EXPORT int fdatasync(int fd)
{
	return (int)FP(SYS_fdatasync, U(fd), 0, 0, 0, 0, 0);
}

EXPORT int flock(int fd, int op)
{
	return (int)FP(SYS_flock, U(fd), U(op), 0, 0, 0, 0);
}

EXPORT int truncate(const char *p, off_t l)
{
	return (int)FP(SYS_truncate, p, l, 0, 0, 0, 0);
}

EXPORT int truncate64(const char *p, off_t l) __attribute__((alias("truncate")));

EXPORT int ftruncate(int fd, off_t l)
{
	return (int)FP(SYS_ftruncate, U(fd), l, 0, 0, 0, 0);
}

EXPORT int ftruncate64(int fd, off_t l) __attribute__((alias("ftruncate")));

EXPORT int fallocate(int fd, int mode, off_t o, off_t l)
{
	return (int)FP(SYS_fallocate, U(fd), U(mode), o, l, 0, 0);
}

EXPORT int fallocate64(int fd, int mode, off_t o, off_t l) __attribute__((alias("fallocate")));

EXPORT int fchdir(int fd)
{
	return (int)FP(SYS_fchdir, U(fd), 0, 0, 0, 0, 0);
}

EXPORT int chdir(const char *p)
{
	return (int)FP(SYS_chdir, p, 0, 0, 0, 0, 0);
}

EXPORT int dup(int fd)
{
	return (int)FP(SYS_dup, U(fd), 0, 0, 0, 0, 0);
}

/* dup2(fd, fd) too is the kernel's: it checks fd and returns it */
EXPORT int dup2(int fd, int nfd)
{
	return (int)FP(SYS_dup2, U(fd), U(nfd), 0, 0, 0, 0);
}

EXPORT int dup3(int fd, int nfd, int fl)
{
	return (int)FP(SYS_dup3, U(fd), U(nfd), U(fl), 0, 0, 0);
}

/*
 * connect() and bind() of an address that names no file (AF_INET,
 * AF_INET6, an abstract or unnamed Unix socket): the recorder keeps
 * nothing of them (record/decode.c drops them), but the seccomp filter,
 * which cannot look at the address, stops each one: 3,000 TCP connects
 * to a listener of the same process took 79 ms natively, 180 ms recorded
 * before bind and connect were recorded, 240 ms after (20 us a stop).
 * Made through the stub here, they stop nothing and are not logged.  A
 * Unix socket's path goes to libc's, whose call stops and is recorded;
 * so does an address the wrapper cannot read (libc's call then fails
 * with EFAULT as it would) and any call while the stub is not there.
 * The address's first bytes are read with process_vm_readv(), which
 * fails where a plain read would fault.
 */
static int names_no_file(const struct sockaddr *sa, socklen_t len)
{
	unsigned char h[3] = { 0 };
	struct iovec l = { h, len < sizeof(h) ? len : sizeof(h) }, r = { (void *)sa, l.iov_len };
	long pid = fp_raw(SYS_getpid, 0, 0, 0, 0, 0, 0);
	sa_family_t fam;

	if (!sa || len < sizeof(sa_family_t) || pid <= 0 ||
	    fp_raw(SYS_process_vm_readv, pid, (long)&l, 1, (long)&r, 1, 0) != (long)l.iov_len)
		return 0;
	memcpy(&fam, h, sizeof(fam));
	if (fam != AF_UNIX)
		return 1;
	/* unnamed (bind's autobind) or abstract: no file */
	return len <= offsetof(struct sockaddr_un, sun_path) || h[2] == 0;
}

/* connect() or bind() (@nr, libc's @name) as above */
static int sock_call(long nr, const char *name, int fd, const struct sockaddr *sa, socklen_t len)
{
	int (*f)(int, const struct sockaddr *, socklen_t);
	long r;

	if (names_no_file(sa, len) &&
	    (r = fp_raw(nr, U(fd), (long)sa, U(len), 0, 0, 0)) != -ENOSYS)
		return (int)fp_ret(r);
	f = (int (*)(int, const struct sockaddr *, socklen_t))fp_libc(name);
	return f ? f(fd, sa, len) : (int)fp_ret(-ENOSYS);
}

EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return sock_call(SYS_connect, "connect", fd, sa, len);
}

EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	return sock_call(SYS_bind, "bind", fd, sa, len);
}

/* a socket, its listen and accepts, and messages with the descriptors
 * they pass (the fast path's record takes them after the call:
 * fp_call()), logged as every other call, so that a program of many
 * connections (TCP too: the replay makes only Unix ones) stops none */
EXPORT int socket(int domain, int type, int proto)
{
	return (int)FP(SYS_socket, U(domain), U(type), U(proto), 0, 0, 0);
}

EXPORT int shutdown(int fd, int how)
{
	return (int)FP(SYS_shutdown, U(fd), U(how), 0, 0, 0, 0);
}

EXPORT int listen(int fd, int n)
{
	return (int)FP(SYS_listen, U(fd), U(n), 0, 0, 0, 0);
}

/* An accept of a Unix socket stops in the recorder, which asks the
 * kernel at its exit which connect it took (sockdiag.c): logged here,
 * the connection could be gone when the record is read.  One call to
 * tell, not logged. */
static int unix_listener(int fd)
{
	int d = 0;
	socklen_t l = sizeof(d);

	return fp_raw(SYS_getsockopt, U(fd), SOL_SOCKET, SO_DOMAIN, (long)&d, (long)&l, 0) == 0 &&
	       d == AF_UNIX;
}

EXPORT int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	int (*f)(int, struct sockaddr *, socklen_t *);

	if (unix_listener(fd) && (f = (int (*)(int, struct sockaddr *, socklen_t *))fp_libc("accept")))
		return f(fd, sa, len);
	return (int)FP(SYS_accept, U(fd), sa, len, 0, 0, 0);
}

EXPORT int accept4(int fd, struct sockaddr *sa, socklen_t *len, int fl)
{
	int (*f)(int, struct sockaddr *, socklen_t *, int);

	if (unix_listener(fd) &&
	    (f = (int (*)(int, struct sockaddr *, socklen_t *, int))fp_libc("accept4")))
		return f(fd, sa, len, fl);
	return (int)FP(SYS_accept4, U(fd), sa, len, U(fl), 0, 0);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int fl)
{
	return FP(SYS_sendmsg, U(fd), m, U(fl), 0, 0, 0);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int fl)
{
	return FP(SYS_recvmsg, U(fd), m, U(fl), 0, 0, 0);
}

/* send and recv are sendto and recvfrom without an address: a client
 * library's requests and answers (hiredis, libpq) */
EXPORT ssize_t send(int fd, const void *b, size_t n, int fl)
{
	return FP(SYS_sendto, U(fd), b, n, U(fl), 0, 0);
}

EXPORT ssize_t sendto(int fd, const void *b, size_t n, int fl, const struct sockaddr *sa,
		      socklen_t len)
{
	return FP(SYS_sendto, U(fd), b, n, U(fl), sa, U(len));
}

EXPORT ssize_t recv(int fd, void *b, size_t n, int fl)
{
	return FP(SYS_recvfrom, U(fd), b, n, U(fl), 0, 0);
}

EXPORT ssize_t recvfrom(int fd, void *b, size_t n, int fl, struct sockaddr *sa, socklen_t *len)
{
	return FP(SYS_recvfrom, U(fd), b, n, U(fl), sa, len);
}
