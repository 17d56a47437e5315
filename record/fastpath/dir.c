/*
 * dir.c - opendir/readdir on fp_call().  glibc's readdir calls getdents64
 * internally, out of reach of an LD_PRELOAD wrapper; cp and tar read every
 * directory that way, so without these each getdents64 would stop in the
 * tracer.  The DIR here is our own struct: every function that takes a
 * DIR * must therefore be ours too (opendir, fdopendir, readdir,
 * readdir64, readdir_r, readdir64_r, closedir, rewinddir, dirfd, telldir,
 * seekdir).
 *
 * Each follows glibc 2.36's dirent code call for call: the same opendir
 * flags, the fstat after the open, the F_SETFD fdopendir adds, a buffer of
 * st_blksize bytes clamped to [32 KiB, 1 MiB] (so the same getdents64
 * count argument, hence the same number of calls), ENOENT from a removed
 * directory read as the end, deleted entries (d_ino 0) skipped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define FP_DIRBUF_MIN 32768
#define FP_DIRBUF_MAX 1048576

/* an int argument zero-extended, as glibc passes it (see wrap.c) */
#define U(x) ((unsigned int)(x))

struct __dirstream {
	int fd;
	/* glibc locks a DIR too: two threads reading one stream stay sane */
	pthread_mutex_t lock;
	size_t allocation;	/* bytes of buf, the getdents64 count */
	size_t size;		/* bytes the last getdents64 returned */
	size_t offset;		/* next entry in buf */
	long filepos;		/* d_off of the last entry returned */
	int errcode;		/* readdir_r's delayed error */
	char buf[] __attribute__((aligned(8)));
};

/* close without touching errno, as glibc's close_nocancel_nostatus */
static void fp_close_quiet(int fd)
{
	int saved = errno;

	fp_call(SYS_close, U(fd), 0, 0, 0, 0, 0);
	errno = saved;
}

/*
 * glibc's __alloc_dir.  A descriptor the caller handed over (fdopendir)
 * gets close-on-exec first; the buffer is st_blksize within the limits,
 * which is what sets getdents64's count.
 */
static DIR *fp_dir_new(int fd, int close_fd, const struct stat *st)
{
	size_t alloc = (size_t)st->st_blksize;
	DIR *d;

	if (!close_fd && FP(SYS_fcntl, U(fd), F_SETFD, FD_CLOEXEC, 0, 0, 0) < 0)
		return NULL;
	if (alloc < FP_DIRBUF_MIN)
		alloc = FP_DIRBUF_MIN;
	if (alloc > FP_DIRBUF_MAX)
		alloc = FP_DIRBUF_MAX;
	d = malloc(sizeof(*d) + alloc);
	if (!d) {
		if (close_fd)
			fp_close_quiet(fd);
		return NULL;
	}
	d->fd = fd;
	pthread_mutex_init(&d->lock, NULL);
	d->allocation = alloc;
	d->size = 0;
	d->offset = 0;
	d->filepos = 0;
	d->errcode = 0;
	return d;
}

static int fp_fstat(int fd, struct stat *st)
{
	return (int)FP(SYS_newfstatat, U(fd), "", st, AT_EMPTY_PATH, 0, 0);
}

EXPORT DIR *opendir(const char *p)
{
	struct stat st;
	int fd;

	/* POSIX wants ENOENT for "", which glibc gives without a call */
	if (p[0] == '\0') {
		errno = ENOENT;
		return NULL;
	}
	fd = (int)FP(SYS_openat, U(AT_FDCWD), p,
		      O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return NULL;
	/* glibc fstats the new descriptor: for st_blksize, and to be sure */
	if (fp_fstat(fd, &st) < 0)
		goto lose;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		goto lose;
	}
	return fp_dir_new(fd, 1, &st);
lose:
	fp_close_quiet(fd);
	return NULL;
}

EXPORT DIR *fdopendir(int fd)
{
	struct stat st;
	long fl;

	/* glibc's fstat says EBADF for a negative fd without a call */
	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	if (fp_fstat(fd, &st) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	fl = FP(SYS_fcntl, U(fd), F_GETFL, 0, 0, 0, 0);
	if (fl < 0)
		return NULL;
	if ((fl & O_ACCMODE) == O_WRONLY) {
		errno = EINVAL;
		return NULL;
	}
	return fp_dir_new(fd, 0, &st);
}

/*
 * Refill d->buf.  @return : bytes read, 0 at the end, -1 with errno set.
 * A directory removed while open may say ENOENT: POSIX calls that the end.
 */
static long fp_dir_fill(DIR *d)
{
	long n = FP(SYS_getdents64, U(d->fd), d->buf, d->allocation, 0, 0, 0);

	if (n < 0 && errno == ENOENT)
		n = 0;
	if (n > 0) {
		d->size = (size_t)n;
		d->offset = 0;
	}
	return n;
}

EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct dirent64 *e;
	int saved = errno;

	pthread_mutex_lock(&d->lock);
	do {
		if (d->offset >= d->size) {
			long n = fp_dir_fill(d);

			if (n <= 0) {
				/* the end leaves errno alone; a failure sets it */
				if (n == 0)
					errno = saved;
				e = NULL;
				break;
			}
		}
		e = (struct dirent64 *)(d->buf + d->offset);
		d->offset += e->d_reclen;
		d->filepos = e->d_off;
	} while (e->d_ino == 0);	/* a deleted entry */
	pthread_mutex_unlock(&d->lock);
	return e;
}

EXPORT struct dirent *readdir(DIR *d) __attribute__((alias("readdir64")));

/*
 * glibc's readdir64_r, quirks kept: an error is remembered in errcode and
 * returned again at the end until rewinddir, errno is left as the failed
 * call set it, and a name longer than NAME_MAX is skipped (ENAMETOOLONG
 * at the end).
 */
EXPORT int readdir64_r(DIR *d, struct dirent64 *ent, struct dirent64 **res)
{
	const int saved = errno;
	struct dirent64 *e;
	size_t reclen = 0;
	int ret;

	pthread_mutex_lock(&d->lock);
	do {
		if (d->offset >= d->size) {
			long n = FP(SYS_getdents64, U(d->fd), d->buf,
				     d->allocation, 0, 0, 0);

			if (n < 0 && errno == ENOENT) {
				n = 0;
				errno = saved;
			}
			if (n <= 0) {
				if (n < 0)
					d->errcode = errno;
				e = NULL;
				break;
			}
			d->size = (size_t)n;
			d->offset = 0;
		}
		e = (struct dirent64 *)(d->buf + d->offset);
		reclen = e->d_reclen;
		d->offset += reclen;
		d->filepos = e->d_off;
		if (reclen > offsetof(struct dirent64, d_name) + NAME_MAX + 1) {
			/* padding the caller's buffer may do without */
			size_t namelen = strlen(e->d_name);

			if (namelen <= NAME_MAX) {
				reclen = offsetof(struct dirent64, d_name) + namelen + 1;
			} else {
				d->errcode = ENAMETOOLONG;
				e->d_ino = 0;
				continue;
			}
		}
	} while (e->d_ino == 0);
	if (e) {
		*res = memcpy(ent, e, reclen);
		ent->d_reclen = (unsigned short)reclen;
		ret = 0;
	} else {
		*res = NULL;
		ret = d->errcode;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

EXPORT int readdir_r(DIR *d, struct dirent *ent, struct dirent **res)
	__attribute__((alias("readdir64_r")));

EXPORT int closedir(DIR *dp)
{
	DIR *d = dp;
	int fd;

	/* an empty asm: dirent.h says nonnull, so a plain test of the
	 * argument would vanish (and clang warns about it) */
	__asm__("" : "+r"(d));
	if (!d) {
		errno = EINVAL;
		return -1;
	}
	fd = d->fd;
	pthread_mutex_destroy(&d->lock);
	free(d);
	return (int)FP(SYS_close, U(fd), 0, 0, 0, 0, 0);
}

EXPORT int dirfd(DIR *d)
{
	return d->fd;
}

EXPORT void rewinddir(DIR *d)
{
	pthread_mutex_lock(&d->lock);
	FP(SYS_lseek, U(d->fd), 0, SEEK_SET, 0, 0, 0);
	d->filepos = 0;
	d->offset = 0;
	d->size = 0;
	d->errcode = 0;
	pthread_mutex_unlock(&d->lock);
}

EXPORT long telldir(DIR *d)
{
	long pos;

	pthread_mutex_lock(&d->lock);
	pos = d->filepos;
	pthread_mutex_unlock(&d->lock);
	return pos;
}

EXPORT void seekdir(DIR *d, long off)
{
	pthread_mutex_lock(&d->lock);
	FP(SYS_lseek, U(d->fd), off, SEEK_SET, 0, 0, 0);
	d->size = 0;
	d->offset = 0;
	d->filepos = off;
	pthread_mutex_unlock(&d->lock);
}
