/*
 * wrap.c - the libc file functions cp, tar, rm and du call, re-implemented
 * on fp_call().  Each is the one-syscall body glibc 2.36 has for x86_64;
 * anything with more logic than that (fchmodat with flags, faccessat with
 * flags) falls back to the traced path instead of re-implementing it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))

/* fortified and stdio-less entry points with no public prototype */
int __open_2(const char *p, int flags);
int __open64_2(const char *p, int flags);
int __openat_2(int dfd, const char *p, int flags);
int __openat64_2(int dfd, const char *p, int flags);
int renameat(int od, const char *o, int nd, const char *n);
int renameat2(int od, const char *o, int nd, const char *n, unsigned int fl);

static mode_t fp_mode_arg(int flags, va_list ap)
{
	/* the mode is only there when O_CREAT or O_TMPFILE says so */
	if ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE)
		return va_arg(ap, mode_t);
	return 0;
}

EXPORT int openat(int dfd, const char *p, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = fp_mode_arg(flags, ap);
	va_end(ap);
	return (int)FP1(SYS_openat, p, dfd, p, flags, m, 0, 0);
}

EXPORT int open(const char *p, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = fp_mode_arg(flags, ap);
	va_end(ap);
	return (int)FP1(SYS_openat, p, AT_FDCWD, p, flags, m, 0, 0);
}

EXPORT int open64(const char *p, int flags, ...) __attribute__((alias("open")));
EXPORT int openat64(int dfd, const char *p, int flags, ...) __attribute__((alias("openat")));

EXPORT int __open_2(const char *p, int flags)
{
	return (int)FP1(SYS_openat, p, AT_FDCWD, p, flags, 0, 0, 0);
}

EXPORT int __open64_2(const char *p, int flags) __attribute__((alias("__open_2")));

EXPORT int __openat_2(int dfd, const char *p, int flags)
{
	return (int)FP1(SYS_openat, p, dfd, p, flags, 0, 0, 0);
}

EXPORT int __openat64_2(int dfd, const char *p, int flags) __attribute__((alias("__openat_2")));

EXPORT int creat(const char *p, mode_t m)
{
	return (int)FP1(SYS_openat, p, AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC, m, 0, 0);
}

EXPORT int close(int fd)
{
	return (int)FP0(SYS_close, fd, 0, 0, 0, 0, 0);
}

EXPORT ssize_t read(int fd, void *b, size_t n)
{
	return FP0(SYS_read, fd, b, n, 0, 0, 0);
}

EXPORT ssize_t write(int fd, const void *b, size_t n)
{
	return FP0(SYS_write, fd, b, n, 0, 0, 0);
}

EXPORT ssize_t pread64(int fd, void *b, size_t n, off_t o)
{
	return FP0(SYS_pread64, fd, b, n, o, 0, 0);
}

EXPORT ssize_t pread(int fd, void *b, size_t n, off_t o) __attribute__((alias("pread64")));

EXPORT ssize_t pwrite64(int fd, const void *b, size_t n, off_t o)
{
	return FP0(SYS_pwrite64, fd, b, n, o, 0, 0);
}

EXPORT ssize_t pwrite(int fd, const void *b, size_t n, off_t o) __attribute__((alias("pwrite64")));

EXPORT off_t lseek(int fd, off_t o, int w)
{
	return FP0(SYS_lseek, fd, o, w, 0, 0, 0);
}

EXPORT off_t lseek64(int fd, off_t o, int w) __attribute__((alias("lseek")));

EXPORT int fstat(int fd, struct stat *st)
{
	return (int)FP1(SYS_newfstatat, "", fd, "", st, AT_EMPTY_PATH, 0, 0);
}

EXPORT int fstat64(int fd, struct stat64 *st) __attribute__((alias("fstat")));

EXPORT int stat(const char *p, struct stat *st)
{
	return (int)FP1(SYS_newfstatat, p, AT_FDCWD, p, st, 0, 0, 0);
}

EXPORT int stat64(const char *p, struct stat64 *st) __attribute__((alias("stat")));

EXPORT int lstat(const char *p, struct stat *st)
{
	return (int)FP1(SYS_newfstatat, p, AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW, 0, 0);
}

EXPORT int lstat64(const char *p, struct stat64 *st) __attribute__((alias("lstat")));

EXPORT int fstatat(int dfd, const char *p, struct stat *st, int fl)
{
	return (int)FP1(SYS_newfstatat, p, dfd, p, st, fl, 0, 0);
}

EXPORT int fstatat64(int dfd, const char *p, struct stat64 *st, int fl) __attribute__((alias("fstatat")));

EXPORT int statx(int dfd, const char *p, int fl, unsigned int mask, struct statx *stx)
{
	return (int)FP1(SYS_statx, p, dfd, p, fl, mask, stx, 0);
}

EXPORT ssize_t getdents64(int fd, void *b, size_t n)
{
	return FP0(SYS_getdents64, fd, b, n, 0, 0, 0);
}

EXPORT ssize_t copy_file_range(int in, off_t *oi, int out, off_t *oo, size_t n,
			       unsigned int fl)
{
	return FP0(SYS_copy_file_range, in, oi, out, oo, n, fl);
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return (int)FP0(SYS_ioctl, fd, req, arg, 0, 0, 0);
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return (int)FP0(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
}

EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

EXPORT ssize_t fgetxattr(int fd, const char *n, void *v, size_t sz)
{
	return FP0(SYS_fgetxattr, fd, n, v, sz, 0, 0);
}

EXPORT int fsetxattr(int fd, const char *n, const void *v, size_t sz, int fl)
{
	return (int)FP0(SYS_fsetxattr, fd, n, v, sz, fl, 0);
}

EXPORT ssize_t flistxattr(int fd, char *l, size_t sz)
{
	return FP0(SYS_flistxattr, fd, l, sz, 0, 0, 0);
}

EXPORT int fremovexattr(int fd, const char *n)
{
	return (int)FP0(SYS_fremovexattr, fd, n, 0, 0, 0, 0);
}

EXPORT ssize_t getxattr(const char *p, const char *n, void *v, size_t sz)
{
	return FP1(SYS_getxattr, p, p, n, v, sz, 0, 0);
}

EXPORT ssize_t lgetxattr(const char *p, const char *n, void *v, size_t sz)
{
	return FP1(SYS_lgetxattr, p, p, n, v, sz, 0, 0);
}

EXPORT int setxattr(const char *p, const char *n, const void *v, size_t sz, int fl)
{
	return (int)FP1(SYS_setxattr, p, p, n, v, sz, fl, 0);
}

EXPORT int lsetxattr(const char *p, const char *n, const void *v, size_t sz, int fl)
{
	return (int)FP1(SYS_lsetxattr, p, p, n, v, sz, fl, 0);
}

EXPORT ssize_t listxattr(const char *p, char *l, size_t sz)
{
	return FP1(SYS_listxattr, p, p, l, sz, 0, 0, 0);
}

EXPORT ssize_t llistxattr(const char *p, char *l, size_t sz)
{
	return FP1(SYS_llistxattr, p, p, l, sz, 0, 0, 0);
}

EXPORT int removexattr(const char *p, const char *n)
{
	return (int)FP1(SYS_removexattr, p, p, n, 0, 0, 0, 0);
}

EXPORT int lremovexattr(const char *p, const char *n)
{
	return (int)FP1(SYS_lremovexattr, p, p, n, 0, 0, 0, 0);
}

EXPORT int posix_fadvise(int fd, off_t o, off_t l, int adv)
{
	/* posix_fadvise returns the error number instead of setting errno */
	long r = fp_call(SYS_fadvise64, NULL, NULL, fd, o, l, adv, 0, 0);

	return r < 0 ? (int)-r : 0;
}

EXPORT int posix_fadvise64(int fd, off_t o, off_t l, int adv) __attribute__((alias("posix_fadvise")));

EXPORT int utimensat(int dfd, const char *p, const struct timespec t[2], int fl)
{
	return (int)FP1(SYS_utimensat, p, dfd, p, t, fl, 0, 0);
}

EXPORT int futimens(int fd, const struct timespec t[2])
{
	return (int)FP0(SYS_utimensat, fd, NULL, t, 0, 0, 0);
}

EXPORT int fchmod(int fd, mode_t m)
{
	return (int)FP0(SYS_fchmod, fd, m, 0, 0, 0, 0);
}

EXPORT int chmod(const char *p, mode_t m)
{
	return (int)FP1(SYS_fchmodat, p, AT_FDCWD, p, m, 0, 0, 0);
}

EXPORT int fchown(int fd, uid_t u, gid_t g)
{
	return (int)FP0(SYS_fchown, fd, u, g, 0, 0, 0);
}

EXPORT int fchownat(int dfd, const char *p, uid_t u, gid_t g, int fl)
{
	return (int)FP1(SYS_fchownat, p, dfd, p, u, g, fl, 0);
}

EXPORT int mkdir(const char *p, mode_t m)
{
	return (int)FP1(SYS_mkdirat, p, AT_FDCWD, p, m, 0, 0, 0);
}

EXPORT int mkdirat(int dfd, const char *p, mode_t m)
{
	return (int)FP1(SYS_mkdirat, p, dfd, p, m, 0, 0, 0);
}

EXPORT int unlink(const char *p)
{
	return (int)FP1(SYS_unlinkat, p, AT_FDCWD, p, 0, 0, 0, 0);
}

EXPORT int unlinkat(int dfd, const char *p, int fl)
{
	return (int)FP1(SYS_unlinkat, p, dfd, p, fl, 0, 0, 0);
}

EXPORT int rmdir(const char *p)
{
	return (int)FP1(SYS_unlinkat, p, AT_FDCWD, p, AT_REMOVEDIR, 0, 0, 0);
}

EXPORT ssize_t readlink(const char *p, char *b, size_t n)
{
	return FP1(SYS_readlinkat, p, AT_FDCWD, p, b, n, 0, 0);
}

EXPORT ssize_t readlinkat(int dfd, const char *p, char *b, size_t n)
{
	return FP1(SYS_readlinkat, p, dfd, p, b, n, 0, 0);
}

EXPORT int symlinkat(const char *t, int dfd, const char *p)
{
	return (int)FP2(SYS_symlinkat, p, t, t, dfd, p, 0, 0, 0);
}

EXPORT int linkat(int od, const char *o, int nd, const char *n, int fl)
{
	return (int)FP2(SYS_linkat, o, n, od, o, nd, n, fl, 0);
}

EXPORT int renameat(int od, const char *o, int nd, const char *n)
{
	return (int)FP2(SYS_renameat2, o, n, od, o, nd, n, 0, 0);
}

EXPORT int renameat2(int od, const char *o, int nd, const char *n, unsigned int fl)
{
	return (int)FP2(SYS_renameat2, o, n, od, o, nd, n, fl, 0);
}

EXPORT int access(const char *p, int m)
{
	return (int)FP1(SYS_faccessat, p, AT_FDCWD, p, m, 0, 0, 0);
}

EXPORT int fsync(int fd)
{
	return (int)FP0(SYS_fsync, fd, 0, 0, 0, 0, 0);
}

EXPORT int fdatasync(int fd)
{
	return (int)FP0(SYS_fdatasync, fd, 0, 0, 0, 0, 0);
}

EXPORT int ftruncate(int fd, off_t l)
{
	return (int)FP0(SYS_ftruncate, fd, l, 0, 0, 0, 0);
}

EXPORT int ftruncate64(int fd, off_t l) __attribute__((alias("ftruncate")));

EXPORT int fallocate(int fd, int mode, off_t o, off_t l)
{
	return (int)FP0(SYS_fallocate, fd, mode, o, l, 0, 0);
}

EXPORT int fallocate64(int fd, int mode, off_t o, off_t l) __attribute__((alias("fallocate")));

EXPORT int fchdir(int fd)
{
	return (int)FP0(SYS_fchdir, fd, 0, 0, 0, 0, 0);
}

EXPORT int chdir(const char *p)
{
	return (int)FP1(SYS_chdir, p, p, 0, 0, 0, 0, 0);
}

EXPORT int dup(int fd)
{
	return (int)FP0(SYS_dup, fd, 0, 0, 0, 0, 0);
}

EXPORT int dup2(int fd, int nfd)
{
	/* dup2(fd, fd) checks fd and returns it; dup3 would fail with EINVAL */
	if (fd == nfd)
		return fcntl(fd, F_GETFD) < 0 ? -1 : fd;
	return (int)FP0(SYS_dup3, fd, nfd, 0, 0, 0, 0);
}
