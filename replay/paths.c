/*
 * paths.c - recorded absolute paths, confined to the replay root.
 *
 * Everything the replayer does to a path goes through the kernel with
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, so "..", absolute symlinks and
 * symlinks swapped in while the replay runs all stay inside the root:
 * the check is the kernel's, made atomically at each lookup, not ours.
 * Operations that create, remove or rename a name open the parent that
 * way and act on a plain last component relative to it; opens do too
 * (rpl_open_name), but take only a plain answer from the parent and
 * otherwise resolve the whole path again from the root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

static int openat2_how(int dirfd, const char *path, int flags, mode_t mode,
		       uint64_t resolve)
{
	struct open_how how;
	long fd;

	/* openat2 rejects what openat ignores: with O_PATH only these count. */
	if (flags & O_PATH)
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	how = (struct open_how){
		.flags = (uint64_t)(flags | O_CLOEXEC),
		/* (__O_TMPFILE holds O_DIRECTORY's bit: an O_DIRECTORY open
		 * given a mode, which openat2 refuses, EINVAL; integrit's) */
		.mode = ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE) ?
			(mode & 07777) : 0,
		.resolve = resolve,
	};
	/* with RESOLVE_IN_ROOT or RESOLVE_BENEATH, a ".." met while a rename
	 * or mount ran anywhere on the machine fails EAGAIN, to be tried
	 * again (openat2(2)): a chdir("d/s/..") of namazu's failed so, 1
	 * replay in 9, and a third of a loop of them beside a renaming
	 * process */
	do
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && (resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH)) &&
	       !(resolve & RESOLVE_CACHED) && !atomic_load(&rpl_stop_sig));
	return fd < 0 ? -errno : (int)fd;
}

#define PATH_PART 3072

/*
 * @path from the root.  One longer than the kernel takes in a lookup
 * (PATH_MAX: a tree deeper than that, which programs walk with chdir or
 * descriptors) is taken in parts: the first from the root as any path,
 * each next one below the directory the last opened, with
 * RESOLVE_BENEATH.  The plan's paths have their "NAME/.." made plain
 * (clean.c) but after a symlink.  Still inside the root; where the
 * recording's lookup went on across a part's start (an absolute symlink
 * after the first part, a ".." after a symlink) this one fails EXDEV.
 */
static int openat2_in_root(int root_fd, const char *path, int flags, mode_t mode,
			   uint64_t resolve)
{
	char part[PATH_PART + 1];
	uint64_t how = RESOLVE_IN_ROOT;
	int dfd = root_fd, fd;

	resolve |= RESOLVE_NO_MAGICLINKS;
	while (strlen(path) >= PATH_MAX) {
		size_t cut = PATH_PART;

		while (cut > 0 && path[cut] != '/')
			cut--;
		if (cut == 0) {		/* no name is that long */
			fd = -ENAMETOOLONG;
			goto out;
		}
		memcpy(part, path, cut);
		part[cut] = 0;
		fd = openat2_how(dfd, part, O_PATH | O_DIRECTORY, 0, how | resolve);
		if (dfd != root_fd)
			close(dfd);
		dfd = root_fd;
		if (fd < 0)
			goto out;
		dfd = fd;
		how = RESOLVE_BENEATH;
		path += cut;
		while (*path == '/')
			path++;
	}
	fd = openat2_how(dfd, path, flags, mode, how | resolve);
out:
	if (dfd != root_fd)
		close(dfd);
	return fd;
}

int rpl_open_name(int dirfd, const char *name, int flags, mode_t mode)
{
	if (!*name || rpl_dot_name(name) || strchr(name, '/'))
		return -EINVAL;
	return openat2_how(dirfd, name, flags, mode,
			   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

int rpl_resolve(int root_fd, const char *path, int flags, mode_t mode)
{
	if (!path || !*path)
		return -ENOENT;
	return openat2_in_root(root_fd, path, flags, mode, 0);
}

int rpl_resolve_how(int root_fd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
	if (!path || !*path)
		return -ENOENT;
	return openat2_in_root(root_fd, path, flags, mode, resolve);
}

int rpl_open_below(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
	if (!(resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT)) || !path || path[0] == '/')
		return -EINVAL;
	return openat2_how(dirfd, path, flags, mode, resolve | RESOLVE_NO_MAGICLINKS);
}

size_t rpl_last_name(const char *path, size_t len, size_t *end)
{
	size_t e = len, start;

	while (e > 0 && path[e - 1] == '/')
		e--;
	start = e;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*end = e;
	return start;
}

int rpl_slashed(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 1 && path[n - 1] == '/';
}

long rpl_split_name(const char *path, size_t len, struct rpl_name *n)
{
	size_t end, start = rpl_last_name(path, len, &end);

	if (end == start)		/* the root itself */
		return -EINVAL;
	if (end - start >= sizeof(n->name))
		return -ENAMETOOLONG;
	memcpy(n->name, path + start, end - start);
	n->name[end - start] = 0;
	if (rpl_dot_name(n->name))
		return -EINVAL;
	return (long)start;
}

static int parent_how(int root_fd, const char *path, struct rpl_name *n, uint64_t resolve)
{
	char sbuf[4096], *buf = sbuf;
	size_t len = path ? strlen(path) : 0;
	long start;
	int fd, too_long = 0;

	n->dirfd = -1;
	n->owned = 1;
	if (len == 0)
		return -ENOENT;
	start = rpl_split_name(path, len, n);
	/* A last name longer than a name can be: the kernel looks the
	 * parent up first, and a missing component there is ENOENT
	 * (chromium stats its command line as a path: a 231-byte name
	 * missing before a 514-byte one); else ENAMETOOLONG. */
	if (start == -ENAMETOOLONG) {
		size_t end;

		start = (long)rpl_last_name(path, len, &end);
		too_long = 1;
	}
	if (start < 0)
		return (int)start;
	if (len >= sizeof(sbuf) && !(buf = malloc(len + 1)))
		return -ENOMEM;
	if (start == 0) {		/* a relative name: from the root */
		buf[0] = '/';
		buf[1] = 0;
	} else {
		memcpy(buf, path, (size_t)start);
		buf[start] = 0;
	}
	fd = openat2_in_root(root_fd, buf, O_PATH | O_DIRECTORY, 0, resolve);
	if (buf != sbuf)
		free(buf);
	if (fd < 0)
		return fd;
	if (too_long) {
		close(fd);
		return -ENAMETOOLONG;
	}
	n->dirfd = fd;
	return 0;
}

int rpl_parent(int root_fd, const char *path, struct rpl_name *n)
{
	return parent_how(root_fd, path, n, 0);
}

/*
 * A parent reached through directories only stays what its path names
 * until a directory is removed or renamed; one reached through a symlink
 * changes when that symlink is removed, which an unlink does.  Tried
 * without symlinks first (the common case: one lookup), then with them.
 */
int rpl_parent_plain(int root_fd, const char *path, struct rpl_name *n, int *plain)
{
	int err = parent_how(root_fd, path, n, RESOLVE_NO_SYMLINKS);

	*plain = err == 0;
	if (err == -ELOOP)
		err = parent_how(root_fd, path, n, 0);
	return err;
}

/* Is @st the system root?  Comparing with "/" catches /tmp/.., bind
 * mounts of / and symlinks to it. */
static int is_system_root(const struct stat *st)
{
	struct stat r;

	return stat("/", &r) == 0 && r.st_dev == st->st_dev && r.st_ino == st->st_ino;
}

static int dir_is_empty(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int empty = 1;

	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "lost+found") == 0)
			continue;
		empty = 0;
		break;
	}
	closedir(d);
	return empty;
}

int rpl_root_open(const char *root, int need_empty)
{
	struct stat st;
	int fd, err;

	if (!root || !*root)
		return -ENOENT;
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = -errno;
	if (fstat(fd, &st) < 0)
		goto fail;
	err = -EPERM;
	if (is_system_root(&st))
		goto fail;
	if (need_empty) {
		err = dir_is_empty(fd);
		if (err < 0)
			goto fail;
		if (err == 0) {
			err = -ENOTEMPTY;
			goto fail;
		}
	}
	return fd;
fail:
	close(fd);
	return err;
}

int rpl_prefix_match(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (strncmp(path, prefix, n) != 0)
		return 0;
	return path[n] == 0 || path[n] == '/' || (n == 1 && prefix[0] == '/');
}

int rpl_path_skip(const struct rpl_opts *o, const char *path)
{
	size_t i;

	/* every path op asks: the first letter rules most out */
	if (path[0] == '/' && (path[1] == 'p' || path[1] == 's' || path[1] == 'd') &&
	    (rpl_prefix_match(path, "/proc") || rpl_prefix_match(path, "/sys") ||
	     rpl_prefix_match(path, "/dev")))
		return RPL_SKIP_PSEUDO;
	if (!o)
		return 0;
	for (i = 0; i < o->n_exclude; i++)
		if (rpl_prefix_match(path, o->exclude[i]))
			return RPL_SKIP_EXCLUDED;
	if (o->n_include == 0)
		return 0;
	for (i = 0; i < o->n_include; i++)
		if (rpl_prefix_match(path, o->include[i]))
			return 0;
	return RPL_SKIP_EXCLUDED;
}

int64_t rpl_path_fd(const struct rpl_op *op, int32_t *pid)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int i = sc ? iot_syscall_arg(sc, IOT_ARG_PATH) : -1;

	*pid = 0;
	if (i >= 0 && (uint32_t)i < op->ev.nargs && op->ev.args[i] > 0 &&
	    op->ev.args[i] <= RPL_FD_MAX)
		return op->ev.args[i] - 1;
	return iot_path_fd(op->ev.path, RPL_FD_MAX, pid);
}
