/*
 * ops_subvol.c - btrfs's subvolume calls (BTRFS_IOC_SUBVOL_CREATE,
 * _SNAP_CREATE, _SNAP_DESTROY and their _V2 forms), from the event the
 * recorder made of them (format/iotape.h, IOT_SUBVOL_*: the name the last
 * of its path, the flags and a snapshot's source descriptor in its
 * arguments).  Left out, the subvolume was never made and every call
 * under it failed with ENOENT (`btrfs subvolume create v; cp -a src/. v/`:
 * 385 mismatches).
 *
 * Where the parent is on btrfs, the same ioctl is made through the
 * replay's descriptor of the parent, with the name alone.  Elsewhere, or
 * where btrfs refuses it here and not when recorded (a snapshot of a
 * directory that the starting tree made a plain one, not a subvolume),
 * the call is emulated: a create is a mkdir (0755), a snapshot a copy of
 * the source's tree as it is at that point of the replay (reflinked where
 * the filesystem can, else copied; a read-only snapshot is left writable
 * and counted), a destroy the removal of the tree.  Everything is done
 * from the parent's and the source's descriptors by name, never following
 * a symlink (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW): nothing outside --root.
 * The summary counts the subvolumes made as such and those emulated.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rpl.h"

#define TREE_DEPTH_MAX 256

/* Is @name one name in a directory (no slash, not "." or "..")? */
static int plain_name(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* File @in's data into @out: a clone, else a copy (rpl_copy_range()). */
static int copy_data(struct rpl_ctx *c, int in, int out)
{
	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	return rpl_copy_range(c, in, out, 0, 0, 0);
}

/* What a snapshot's copy copies: @top is the snapshot itself, left out
 * where it is under its source (a snapshot of "." in "."), as btrfs
 * leaves it out; @c the replaying thread (its scratch, the copy's
 * buffer) */
struct tree_copy {
	struct stat top;
	struct rpl_ctx *c;
};

/* Entry @name of directory @sd (its lstat @st) as a new entry of @dd:
 * a directory with its tree, a file with its data, a symlink, a node;
 * owner, mode and times as the source's. */
static int copy_entry(const struct tree_copy *tc, int sd, int dd, const char *name,
		      const struct stat *st, int depth);

static int copy_tree(const struct tree_copy *tc, int sd, int dd, int depth)
{
	int fd = openat(sd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(sd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (st.st_dev == tc->top.st_dev && st.st_ino == tc->top.st_ino))
			continue;	/* gone since the listing; the snapshot */
		err = copy_entry(tc, sd, dd, de->d_name, &st, depth);
	}
	closedir(d);
	return err;
}

static int copy_entry(const struct tree_copy *tc, int sd, int dd, const char *name,
		      const struct stat *st, int depth)
{
	char *buf = tc->c->scratch;
	size_t cap = RPL_SCRATCH;
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int in = -1, out = -1, err = 0;
	ssize_t n;

	if (S_ISDIR(st->st_mode)) {
		if (depth >= TREE_DEPTH_MAX)
			return -ELOOP;
		if (mkdirat(dd, name, 0700) < 0)
			return -errno;
		in = openat(sd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		out = openat(dd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = in < 0 || out < 0 ? -errno : copy_tree(tc, in, out, depth + 1);
	} else if (S_ISREG(st->st_mode)) {
		in = openat(sd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		out = in < 0 ? -1 : openat(dd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					   O_CLOEXEC, 0600);
		err = in < 0 || out < 0 ? -errno : copy_data(tc->c, in, out);
	} else if (S_ISLNK(st->st_mode)) {
		n = readlinkat(sd, name, buf, cap - 1);
		if (n < 0)
			return -errno;
		buf[n] = 0;
		if (symlinkat(buf, dd, name) < 0)
			return -errno;
	} else if (mknodat(dd, name, st->st_mode & (S_IFMT | 07777), st->st_rdev) < 0) {
		return -errno;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (err)
		return err;
	/* the snapshot's owner, mode and times are the source's */
	(void)fchownat(dd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW);
	if (!S_ISLNK(st->st_mode))
		(void)fchmodat(dd, name, st->st_mode & 07777, 0);
	(void)utimensat(dd, name, ts, AT_SYMLINK_NOFOLLOW);
	return 0;
}

/* Entry @name of directory @dd and, a directory, everything below it. */
static int remove_tree(int dd, const char *name, int depth)
{
	struct dirent *de;
	struct stat st;
	int fd, err = 0;
	DIR *d;

	if (fstatat(dd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dd, name, 0) < 0 ? -errno : 0;
	if (depth >= TREE_DEPTH_MAX)
		return -ELOOP;
	fd = openat(dd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	while (!err && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			err = remove_tree(fd, de->d_name, depth + 1);
	closedir(d);
	if (err)
		return err;
	return unlinkat(dd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* The call emulated: @kind at @name of @dir (a snapshot of @src). */
static int emulate(struct rpl_ctx *c, int kind, int dir, const char *name, int src)
{
	struct tree_copy tc = { .c = c };
	int fd, err;

	if (kind == IOT_SUBVOL_DESTROY)
		return remove_tree(dir, name, 0);
	if (mkdirat(dir, name, 0755) < 0)
		return -errno;
	if (kind != IOT_SUBVOL_SNAP)
		return 0;
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &tc.top) < 0 ? -errno : copy_tree(&tc, src, fd, 0);
	close(fd);
	return err;
}

/* The recorded ioctl made here through @dir (the name alone). */
static int64_t same_ioctl(struct rpl_ctx *c, struct rpl_op *op, int dir, const char *name,
			  int src)
{
	uint32_t req = (uint32_t)op->ev.args[1], off, max;
	union {
		struct btrfs_ioctl_vol_args v1;
		struct btrfs_ioctl_vol_args_v2 v2;
	} *a = (void *)c->scratch;

	iot_subvol_call(req, &off, &max);
	if (strlen(name) >= max)
		return -ENAMETOOLONG;
	memset(a, 0, sizeof(*a));
	if (off == 8) {
		a->v1.fd = src;
		strcpy(a->v1.name, name);
	} else {
		a->v2.fd = src;
		a->v2.flags = (uint64_t)op->ev.args[IOT_SUBVOL_FLAGS];
		strcpy(a->v2.name, name);
	}
	return RPL_CALL(c, ioctl(dir, (unsigned long)req, a));
}

int64_t rpl_subvol(struct rpl_ctx *c, struct rpl_op *op)
{
	int kind = iot_subvol_call((uint32_t)op->ev.args[1], NULL, NULL);
	const char *path = op->ev.path, *name;
	int dir, src = -1;
	struct statfs sf;
	int64_t r;

	/* a trace from before 2026-12-08 has the pointer alone */
	if (op->ev.nargs < IOT_SUBVOL_NARGS || op->ev.args[IOT_SUBVOL_FLAGS] < 0 || !path)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	name = strrchr(path, '/');
	name = name ? name + 1 : path;
	if (!plain_name(name))
		return rpl_skip(op, RPL_SKIP_BADARG);
	dir = rpl_live_fd(c, op, op->ev.args[0]);
	if (dir < 0)
		return RPL_SKIPPED;
	if (kind == IOT_SUBVOL_SNAP &&
	    (src = rpl_live_fd(c, op, op->ev.args[IOT_SUBVOL_SRC_FD])) < 0)
		return RPL_SKIPPED;
	if (fstatfs(dir, &sf) == 0 && sf.f_type == BTRFS_SUPER_MAGIC) {
		r = same_ioctl(c, op, dir, name, src);
		if (r == 0) {
			atomic_fetch_add(&c->p->subvols_made, 1);
			if (kind == IOT_SUBVOL_DESTROY)
				rpl_ns_changed(c->p);
			return r;
		}
		/* refused here but not when recorded: a source or a
		 * subvolume that is a plain directory here */
		if (op->ev.ret < 0 || (r != -EINVAL && r != -ENOTTY && r != -EXDEV &&
				       r != -EOPNOTSUPP && r != -EPERM && r != -ENOTEMPTY))
			return r;
	}
	r = RPL_TIMED(c, (int64_t)emulate(c, kind, dir, name, src));
	if (r == 0) {
		atomic_fetch_add(&c->p->subvols_emulated, 1);
		if (kind == IOT_SUBVOL_SNAP &&
		    ((uint64_t)op->ev.args[IOT_SUBVOL_FLAGS] & IOT_SUBVOL_RDONLY))
			atomic_fetch_add(&c->p->subvols_rdonly, 1);
	}
	if (r == 0 && kind == IOT_SUBVOL_DESTROY)
		rpl_ns_changed(c->p);
	return r;
}
