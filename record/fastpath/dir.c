/*
 * dir.c - opendir/readdir on fp_call().  glibc's readdir calls getdents64
 * internally, out of reach of an LD_PRELOAD wrapper; cp and tar read every
 * directory that way, so without these each getdents64 would stop in the
 * tracer.  The DIR here is our own struct: every function that takes a
 * DIR * must therefore be ours too (opendir, fdopendir, readdir,
 * readdir64, readdir_r, closedir, rewinddir, dirfd, telldir, seekdir).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define FP_DIRBUF 32768

struct __dirstream {
	int fd;
	size_t pos;
	size_t len;
	long off;		/* d_off of the last entry returned */
	char buf[FP_DIRBUF] __attribute__((aligned(8)));
};

static DIR *fp_dir_new(int fd)
{
	DIR *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	d->fd = fd;
	d->pos = 0;
	d->len = 0;
	d->off = 0;
	return d;
}

EXPORT DIR *opendir(const char *p)
{
	int fd = (int)FP1(SYS_openat, p, AT_FDCWD, p,
			  O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	struct stat st;
	DIR *d;

	if (fd < 0)
		return NULL;
	/*
	 * glibc's opendir fstats the new descriptor (for st_blksize); doing the
	 * same keeps a fast-path trace call-for-call equal to a ptrace one.
	 */
	if (FP1(SYS_newfstatat, "", fd, "", &st, AT_EMPTY_PATH, 0, 0) < 0) {
		FP0(SYS_close, fd, 0, 0, 0, 0, 0);
		return NULL;
	}
	d = fp_dir_new(fd);
	if (!d)
		FP0(SYS_close, fd, 0, 0, 0, 0, 0);
	return d;
}

EXPORT DIR *fdopendir(int fd)
{
	struct stat st;
	long fl;

	/* glibc checks the same two things before taking the fd over */
	if (FP1(SYS_newfstatat, "", fd, "", &st, AT_EMPTY_PATH, 0, 0) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	fl = FP0(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0)
		return NULL;
	if ((fl & O_ACCMODE) == O_WRONLY) {
		errno = EINVAL;
		return NULL;
	}
	return fp_dir_new(fd);
}

EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct dirent64 *e;
	int saved = errno;
	long n;

	if (d->pos >= d->len) {
		n = FP0(SYS_getdents64, d->fd, d->buf, sizeof(d->buf), 0, 0, 0);
		if (n <= 0) {
			/* end of directory leaves errno alone; a failure sets it */
			if (n == 0)
				errno = saved;
			return NULL;
		}
		d->len = (size_t)n;
		d->pos = 0;
	}
	e = (struct dirent64 *)(d->buf + d->pos);
	d->pos += e->d_reclen;
	d->off = e->d_off;
	return e;
}

EXPORT struct dirent *readdir(DIR *d) __attribute__((alias("readdir64")));

EXPORT int readdir64_r(DIR *d, struct dirent64 *ent, struct dirent64 **res)
{
	int saved = errno;
	struct dirent64 *e;

	errno = 0;
	e = readdir64(d);
	if (!e) {
		int err = errno;

		errno = saved;
		*res = NULL;
		return err;
	}
	memcpy(ent, e, e->d_reclen < sizeof(*ent) ? e->d_reclen : sizeof(*ent));
	*res = ent;
	errno = saved;
	return 0;
}

EXPORT int readdir_r(DIR *d, struct dirent *ent, struct dirent **res)
	__attribute__((alias("readdir64_r")));

EXPORT int closedir(DIR *d)
{
	int fd = d->fd;

	free(d);
	return (int)FP0(SYS_close, fd, 0, 0, 0, 0, 0);
}

EXPORT int dirfd(DIR *d)
{
	return d->fd;
}

EXPORT void rewinddir(DIR *d)
{
	FP0(SYS_lseek, d->fd, 0, SEEK_SET, 0, 0, 0);
	d->pos = d->len = 0;
	d->off = 0;
}

EXPORT long telldir(DIR *d)
{
	return d->off;
}

EXPORT void seekdir(DIR *d, long off)
{
	FP0(SYS_lseek, d->fd, off, SEEK_SET, 0, 0, 0);
	d->pos = d->len = 0;
	d->off = off;
}
