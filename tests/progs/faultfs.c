/*
 * faultfs.c - a FUSE filesystem for the fault tests: it passes every call
 * through to a backing directory, and fails a chosen one with EIO (or
 * another errno) once it has been made N times, as a dying disk would.
 *
 *   faultfs BACKING MOUNTPOINT [--fail OP] [--after N] [--errno E]
 *
 * OP is one of getattr, open, create, read, write, mkdir, unlink, rename,
 * fsync, any (every call counts); E is a number (default 5, EIO).  It
 * runs in the foreground, single-threaded; kill it and the mount's calls
 * get ENOTCONN (the daemon gone), which the tests use too.
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

static int backing = -1;
static const char *fail_op = "none";
static long fail_after = -1;
static int fail_errno = EIO;
static long calls;

/* @return : -errno if call @op is to fail now, else 0 */
static int fault(const char *op)
{
	if (strcmp(fail_op, "any") != 0 && strcmp(fail_op, op) != 0)
		return 0;
	calls++;
	return fail_after >= 0 && calls > fail_after ? -fail_errno : 0;
}

/* FUSE paths start with '/': relative to the backing directory. */
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

#define FAULT(op) do { int f_ = fault(op); if (f_) return f_; } while (0)
#define RET(x) return (x) < 0 ? -errno : 0

static int ff_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	FAULT("getattr");
	if (fi)
		RET(fstat((int)fi->fh, st));
	RET(fstatat(backing, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int ff_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(backing, rel(path), buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int ff_mkdir(const char *path, mode_t mode)
{
	FAULT("mkdir");
	RET(mkdirat(backing, rel(path), mode));
}

static int ff_unlink(const char *path)
{
	FAULT("unlink");
	RET(unlinkat(backing, rel(path), 0));
}

static int ff_rmdir(const char *path)
{
	FAULT("unlink");
	RET(unlinkat(backing, rel(path), AT_REMOVEDIR));
}

static int ff_symlink(const char *target, const char *path)
{
	RET(symlinkat(target, backing, rel(path)));
}

static int ff_rename(const char *from, const char *to, unsigned int flags)
{
	FAULT("rename");
	if (flags)
		return -EINVAL;
	RET(renameat(backing, rel(from), backing, rel(to)));
}

static int ff_link(const char *from, const char *to)
{
	RET(linkat(backing, rel(from), backing, rel(to), 0));
}

static int ff_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (fi)
		RET(fchmod((int)fi->fh, mode));
	RET(fchmodat(backing, rel(path), mode, 0));
}

static int ff_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	if (fi)
		RET(fchown((int)fi->fh, uid, gid));
	RET(fchownat(backing, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int ff_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int fd, r;

	if (fi)
		RET(ftruncate((int)fi->fh, size));
	fd = openat(backing, rel(path), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = ftruncate(fd, size) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static int ff_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	if (fi)
		RET(futimens((int)fi->fh, tv));
	RET(utimensat(backing, rel(path), tv, AT_SYMLINK_NOFOLLOW));
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	int fd;

	FAULT("open");
	fd = openat(backing, rel(path), (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int ff_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd;

	FAULT("create");
	fd = openat(backing, rel(path), fi->flags | O_CREAT | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int ff_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n;

	FAULT("read");
	n = pread((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int ff_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;

	FAULT("write");
	n = pwrite((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int ff_statfs(const char *path, struct statvfs *sv)
{
	RET(fstatvfs(backing, sv));
}

static int ff_release(const char *path, struct fuse_file_info *fi)
{
	close((int)fi->fh);
	return 0;
}

static int ff_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	FAULT("fsync");
	RET(datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh));
}

static int ff_access(const char *path, int mask)
{
	RET(faccessat(backing, rel(path), mask, AT_SYMLINK_NOFOLLOW));
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(backing, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (fill(buf, de->d_name, NULL, 0, 0))
			break;
	closedir(d);
	return 0;
}

static void *ff_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->use_ino = 1;
	return NULL;
}

static const struct fuse_operations ops = {
	.init = ff_init,
	.getattr = ff_getattr,
	.readlink = ff_readlink,
	.mkdir = ff_mkdir,
	.unlink = ff_unlink,
	.rmdir = ff_rmdir,
	.symlink = ff_symlink,
	.rename = ff_rename,
	.link = ff_link,
	.chmod = ff_chmod,
	.chown = ff_chown,
	.truncate = ff_truncate,
	.utimens = ff_utimens,
	.open = ff_open,
	.create = ff_create,
	.read = ff_read,
	.write = ff_write,
	.statfs = ff_statfs,
	.release = ff_release,
	.fsync = ff_fsync,
	.access = ff_access,
	.readdir = ff_readdir,
};

int main(int argc, char **argv)
{
	char *fargv[8];
	int i, fargc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: faultfs BACKING MOUNTPOINT [--fail OP] [--after N] "
			"[--errno E]\n");
		return 2;
	}
	backing = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (backing < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 3; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--fail") == 0)
			fail_op = argv[i + 1];
		else if (strcmp(argv[i], "--after") == 0)
			fail_after = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--errno") == 0)
			fail_errno = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "faultfs: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	fargv[fargc++] = argv[0];
	fargv[fargc++] = argv[2];
	fargv[fargc++] = (char *)"-f";
	fargv[fargc++] = (char *)"-s";
	fargv[fargc++] = (char *)"-o";
	fargv[fargc++] = (char *)"fsname=faultfs,subtype=faultfs";
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
