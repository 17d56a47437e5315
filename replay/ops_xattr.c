/*
 * ops_xattr.c - replay handlers for the xattr family.
 *
 * xattr calls have no AT_EMPTY_PATH form: a path is opened O_PATH inside
 * the root as ops_meta.c does, and the call goes through
 * /proc/thread-self/fd/N of that descriptor (the thread's: a replayed
 * process has a table of its own), which names exactly the file already
 * found; where the kernel has the *xattrat calls (Linux 6.13), a name in
 * its cached parent is done in one call instead (xattr_at()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rpl.h"
#include "ops_meta.h"

#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif

/* struct xattr_args of <linux/xattr.h> (Linux 6.13) */
struct rpl_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

/* POSIX ACL values must parse: build a valid ACL of @size bytes (header,
 * then USER_OBJ, USER..., GROUP_OBJ, MASK, OTHER entries, sorted by tag)
 * granting @mode.  Setting one sets the mode bits too, so @mode matters:
 * the value was not recorded; the caller guesses it (see h_xattr).  Of 4
 * bytes, the header alone: an ACL of no entries, which removes it
 * (pylibacl's for an empty default ACL: rdiff-backup's were refused,
 * EOPNOTSUPP, set from the pattern's bytes). */
static const char *acl_value(char *buf, int64_t size, mode_t mode)
{
	int64_t n = (size - 4) / 8, i, k = 0;
	uint32_t v = 2;			/* POSIX_ACL_XATTR_VERSION */

	if (size != 4 && (size < 28 || (size - 4) % 8 || size > 4096))
		return NULL;
	memcpy(buf, &v, 4);
	if (size == 4)
		return buf;
#define ENT(tag, perm, id) do {						\
	uint16_t t_ = (tag), p_ = (perm);				\
	uint32_t i_ = (id);						\
	memcpy(buf + 4 + 8 * k, &t_, 2);				\
	memcpy(buf + 6 + 8 * k, &p_, 2);				\
	memcpy(buf + 8 + 8 * k, &i_, 4);				\
	k++;								\
} while (0)
	ENT(0x01, (mode >> 6) & 7, ~0u);
	for (i = 0; i < n - 4; i++)
		ENT(0x02, 4, 1000 + (uint32_t)i);
	ENT(0x04, (mode >> 3) & 7, ~0u);
	if (n > 3)
		ENT(0x10, 7, ~0u);
	ENT(0x20, mode & 7, ~0u);
#undef ENT
	return buf;
}

/* Set once the kernel answered ENOSYS to an *xattrat call. */
static _Atomic int no_xattrat;

/*
 * A path xattr call as one *xattrat call on the name in its cached
 * parent, AT_SYMLINK_NOFOLLOW.  The path forms otherwise cost an openat2,
 * a lookup of /proc/thread-self/fd/N and a close around the call (cp -a makes six
 * per directory: 6-7 us each against 1-2 us natively).  The following
 * forms (getxattr, not lgetxattr) first check with one fstatat that the
 * name is not a symlink: a symlink is left to the confined lookup of the
 * whole path.  @return : the result, or RPL_META_TRY_FULL.
 */
static int64_t xattr_at(struct rpl_ctx *c, struct rpl_op *op, const char *value,
			int64_t size, int nofollow)
{
	struct rpl_xattr_args xa = { .value = (uintptr_t)value, .size = (uint32_t)size };
	const char *name = op->ev.path2;
	struct rpl_name n;
	int64_t r;
	long k;

	if (atomic_load_explicit(&no_xattrat, memory_order_relaxed))
		return RPL_META_TRY_FULL;
	r = rpl_meta_unfollowed_name(c, op, -1, nofollow, &n);
	if (r != 0)
		return r == RPL_SKIPPED ? r : RPL_META_TRY_FULL;
	switch (op->ev.nr) {
	case SYS_setxattr: case SYS_lsetxattr:
		xa.flags = (uint32_t)op->ev.args[4];
		k = ret_of(syscall(SYS_setxattrat, n.dirfd, n.name, AT_SYMLINK_NOFOLLOW, name, &xa,
			    sizeof(xa)));
		break;
	case SYS_getxattr: case SYS_lgetxattr:
		xa.value = (uintptr_t)c->scratch;
		k = ret_of(syscall(SYS_getxattrat, n.dirfd, n.name, AT_SYMLINK_NOFOLLOW, name, &xa,
			    sizeof(xa)));
		break;
	case SYS_listxattr: case SYS_llistxattr:
		k = ret_of(syscall(SYS_listxattrat, n.dirfd, n.name, AT_SYMLINK_NOFOLLOW, c->scratch,
			    (size_t)size));
		break;
	default:
		k = ret_of(syscall(SYS_removexattrat, n.dirfd, n.name, AT_SYMLINK_NOFOLLOW, name));
		break;
	}
	r = k;
	rpl_name_done(&n);
	if (r == -ENOSYS) {
		atomic_store(&no_xattrat, 1);
		c->sys0 = 0;		/* not the op's call after all */
		return RPL_META_TRY_FULL;
	}
	return r;
}

/*
 * The mode of the file whose xattrs the thread read last: its first
 * state's, or where that says it did not exist (the workload made it),
 * the file's in the root now.  sed -i gives its temporary file the ACL
 * of the file it edits: one pg_basebackup wrote got an ACL of mode 0,
 * and its owner could no longer read it.  @return : 0, or -1 where
 * neither is known.
 */
static int src_mode(struct rpl_ctx *c, mode_t *mode)
{
	const struct iot_path_state *ps;
	struct stat st;
	int fd, r;

	if (!c->t->xattr_src)
		return -1;
	ps = rpl_path_state(c->p, c->t->xattr_src);
	if (ps && ps->type) {
		*mode = ps->mode;
		return 0;
	}
	fd = rpl_resolve(c->p->root_fd, c->t->xattr_src, O_PATH, 0);
	if (fd < 0)
		return -1;
	r = fstat(fd, &st);
	close(fd);
	if (r < 0)
		return -1;
	*mode = st.st_mode;
	return 0;
}

/* btrfs's compression property (`btrfs property set ... compression`,
 * setfattr -n btrfs.compression) takes only an algorithm's name ("lzo",
 * "zlib", "zstd", with ":level") or "", "no", "none" to clear it: the
 * pattern's bytes were refused (EINVAL), and the getxattr after found
 * none (ENODATA; 4 mismatches a replay of a property set to zstd and a
 * setfattr of lzo).  The value was not recorded: one of its size that
 * btrfs takes, NULL for a size none has. */
static const char *btrfs_compression(int64_t size)
{
	static const char *const v[] = { "", NULL, "no", "lzo", "zstd", NULL, "zstd:3", "zstd:15" };

	return size >= 0 && size < (int64_t)(sizeof(v) / sizeof(v[0])) ? v[size] : NULL;
}

static int is_set(int nr)
{
	return nr == SYS_setxattr || nr == SYS_lsetxattr || nr == SYS_fsetxattr;
}

static int64_t h_xattr(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	const char *name = op->ev.path2;
	int nr = op->ev.nr, fd, owned = 0;
	int byfd = nr == SYS_fsetxattr || nr == SYS_fgetxattr || nr == SYS_flistxattr ||
		   nr == SYS_fremovexattr;
	int nofollow = nr == SYS_lsetxattr || nr == SYS_lgetxattr || nr == SYS_llistxattr ||
		       nr == SYS_lremovexattr;
	int list = nr == SYS_listxattr || nr == SYS_llistxattr || nr == SYS_flistxattr;
	int acl = name && name[0] == 's' && strncmp(name, "system.posix_acl_", 17) == 0 &&
		  (nr == SYS_setxattr || nr == SYS_lsetxattr || nr == SYS_fsetxattr);
	int64_t size = list ? a[2] : a[3], r;
	mode_t mode = 0;
	int known = 0;
	const char *value = rpl_wbuf();
	char proc[64];

	if (!list && !name)
		return rpl_skip(op, RPL_SKIP_NOPATH);
	/* a value longer than the kernel takes (XATTR_SIZE_MAX) fails to be
	 * set (E2BIG) before it is read: asked so; a longer buffer to get
	 * into is cut to it */
	if (size < 0 || (size > 65536 && (list || !is_set(nr))))
		size = 65536;
	else if (size > 65536)
		size = 65537;
	if (byfd) {
		struct rpl_fd e;

		fd = rpl_live_fd_entry(c, op, a[0], &e);
		if (fd < 0)
			return RPL_SKIPPED;
		if (nr == SYS_fgetxattr || list)
			c->t->xattr_src = e.path;
	} else {
		fd = -1;
		if (nr == SYS_getxattr || nr == SYS_lgetxattr || list)
			c->t->xattr_src = op->ev.path;
	}
	/* cp -a and tar copy the mode of the file whose xattrs they just
	 * read; without one, the ACL keeps the target's own mode, which
	 * takes the target open. */
	if (is_set(nr) && name && strcmp(name, "btrfs.compression") == 0 &&
	    btrfs_compression(size))
		value = btrfs_compression(size);
	if (acl && src_mode(c, &mode) == 0) {
		known = 1;
		if (acl_value(c->scratch, size, mode & 0777))
			value = c->scratch;
	}
	if (!byfd && (!acl || known)) {
		r = xattr_at(c, op, value, size, nofollow);
		if (r != RPL_META_TRY_FULL)
			return r;
	}
	if (!byfd) {
		fd = rpl_meta_target(c, op, -1, 0, nofollow, &owned);
		if (fd < 0)
			return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	}
	if (acl && !known) {
		struct stat st;

		mode = 0644;

		if (fstatat(fd, "", &st, AT_EMPTY_PATH) == 0)
			mode = st.st_mode;
		if (acl_value(c->scratch, size, mode & 0777))
			value = c->scratch;
	}
	if (!byfd)
		rpl_proc_fd(proc, fd);
	switch (nr) {
	case SYS_fsetxattr:
		r = ret_of(fsetxattr(fd, name, value, (size_t)size, (int)a[4]));
		break;
	case SYS_fgetxattr:
		r = ret_of(fgetxattr(fd, name, c->scratch, (size_t)size));
		break;
	case SYS_flistxattr:
		r = ret_of(flistxattr(fd, c->scratch, (size_t)size));
		break;
	case SYS_fremovexattr:
		r = ret_of(fremovexattr(fd, name));
		break;
	case SYS_setxattr: case SYS_lsetxattr:
		r = ret_of(setxattr(proc, name, value, (size_t)size, (int)a[4]));
		break;
	case SYS_getxattr: case SYS_lgetxattr:
		r = ret_of(getxattr(proc, name, c->scratch, (size_t)size));
		break;
	case SYS_listxattr: case SYS_llistxattr:
		r = ret_of(listxattr(proc, c->scratch, (size_t)size));
		break;
	default:
		r = ret_of(removexattr(proc, name));
		break;
	}
	return rpl_meta_finish(fd, owned, r);
}

void rpl_ops_xattr(rpl_handler *h)
{
	static const int xattr_nrs[] = { SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr,
		SYS_getxattr, SYS_lgetxattr, SYS_fgetxattr, SYS_listxattr, SYS_llistxattr,
		SYS_flistxattr, SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr };
	size_t i;

	for (i = 0; i < sizeof(xattr_nrs) / sizeof(xattr_nrs[0]); i++)
		h[xattr_nrs[i]] = h_xattr;
}
