/*
 * ops_dir.c - replay handlers for directories and names: getdents, mkdir,
 * rmdir, unlink, rename, link, symlink, mknod, bind (a Unix socket's
 * name), chdir.
 *
 * Calls that create, remove or rename a name act on the last component
 * relative to its parent opened inside the root (rpl_parent()), so they
 * never follow a symlink at that component.  A symlink's target is kept
 * as recorded, absolute or not: the replayer itself only ever resolves
 * inside the root.  A link whose source is a descriptor (/proc/self/fd/N
 * followed, AT_EMPTY_PATH) links that descriptor's file: an O_TMPFILE
 * file's recorded path is its directory (link_src_fd()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

/* the op's own call, timed (RPL_CALL) */
#define ret_of(call) RPL_CALL(c, call)

static int64_t h_getdents(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_live_fd(c, op, op->ev.args[0]);
	int64_t n = op->ev.args[2];
	int64_t r;

	if (fd < 0)
		return RPL_SKIPPED;
	if (n < 0 || n > RPL_SCRATCH)
		n = RPL_SCRATCH;
	r = ret_of(syscall(SYS_getdents64, fd, c->scratch, (size_t)n));
	if (r > 0)
		rpl_dirwalk_listed(c->t, op->ev.args[0], op->ev.path, c->scratch, r);
	if (op->ev.ret == 0)		/* the end, as recorded */
		rpl_dirwalk_end(c->t, op->ev.args[0], c->pos + 1);
	return r;
}

/* Open the parent of @path for a name operation; skips set op->skip.
 * @first : the op's first name, still in use, where @path is its second
 * (rpl_parent_at2()), or NULL. */
/* Is @p's last component "." or ".."? */
static int last_is_dot(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && rpl_dot_name(s + 1);
}

static int name_of(struct rpl_ctx *c, struct rpl_op *op, const char *path,
		   struct rpl_name *n, const struct rpl_name *first)
{
	const char *p = rpl_op_path(c, op, path);

	n->dirfd = -1;
	n->owned = 0;
	if (!p)
		return 1;
	/* the root itself, or a last "." or "..", which name no entry of a
	 * parent: a link, removal or rename of it, a make over it, failed
	 * natively with an answer no filesystem changes (EPERM, EBUSY,
	 * EISDIR, EEXIST, ENOTEMPTY for rmdir's ".."), given as recorded;
	 * the replay never changes its root */
	if ((p[0] == '/' && !p[1]) || last_is_dot(p))
		return op->ev.ret < 0 ? (int)op->ev.ret : -EINVAL;
	if (first)
		return rpl_parent_at2(c, p, n, first);
	if (p == op->ev.path && rpl_parent_fd(c, op, n) == 0)
		return 0;
	return rpl_parent_at(c, p, n);
}

#define OPEN_NAME(c, op, path, n) do {					\
	int e_ = name_of((c), (op), (path), (n), NULL);			\
	if (e_ > 0)							\
		return RPL_SKIPPED;					\
	if (e_ < 0)							\
		return e_;						\
} while (0)

/*
 * A name given with a trailing slash must be a directory.  The calls
 * below are made on the bare name in its parent, never with the slash,
 * which would have the kernel follow a symlink there, out of the root if
 * it points out.  So the answer the slash changes is given here, from the
 * name as it is (not followed, as these calls do not follow it): for a
 * name that must exist (unlink's, rename's source and link's), ENOTDIR
 * unless a directory; for a name to be made (link's, symlink's, mknod's
 * and bind's new name), EEXIST if there, ENOENT if not.  0: make the call.
 */
static int64_t slash_answer(const struct rpl_name *n, int must_exist)
{
	struct stat st;

	if (fstatat(n->dirfd, n->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return !must_exist && errno == ENOENT ? -ENOENT : 0;
	if (!must_exist)
		return -EEXIST;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static int64_t h_mkdir(struct rpl_ctx *c, struct rpl_op *op)
{
	mode_t mode = (mode_t)op->ev.args[op->ev.nr == SYS_mkdirat ? 2 : 1];
	struct rpl_name n;
	int64_t r;

	OPEN_NAME(c, op, op->ev.path, &n);
	r = ret_of(mkdirat(n.dirfd, n.name, mode & 07777));
	rpl_name_done(&n);
	return r;
}

static int64_t h_unlink(struct rpl_ctx *c, struct rpl_op *op)
{
	int flags = op->ev.nr == SYS_rmdir ? AT_REMOVEDIR :
		    op->ev.nr == SYS_unlinkat ? (int)op->ev.args[2] & AT_REMOVEDIR : 0;
	struct rpl_name n;
	int64_t r;

	OPEN_NAME(c, op, op->ev.path, &n);
	/* (rmdir of a name that is no directory is ENOTDIR as it is) */
	r = flags & AT_REMOVEDIR || !rpl_slashed(op->ev.path) ? 0 : slash_answer(&n, 1);
	if (r == 0)
		r = ret_of(unlinkat(n.dirfd, n.name, flags));
	if (r == 0 && (flags & AT_REMOVEDIR))
		rpl_ns_changed(c->p);
	else if (r == 0)
		rpl_ns_nodir(c->p);	/* not a directory: dcache.c */
	rpl_name_done(&n);
	return r;
}

/* Do @x and @y name their last components in the same parent (the same
 * bytes before it)? */
static int same_parent(const char *x, const char *y)
{
	size_t end, i = rpl_last_name(x, strlen(x), &end), j = rpl_last_name(y, strlen(y), &end);

	return i > 0 && i == j && memcmp(x, y, i) == 0;
}

/*
 * A rename with a slash on a name (the names are split without it): the
 * kernel's answers, in its order (fs/namei.c do_renameat2()): no source,
 * ENOENT; a target there with RENAME_NOREPLACE, EEXIST; with
 * RENAME_EXCHANGE none, ENOENT, or one not a directory with a slash,
 * ENOTDIR; then a source not a directory with a slash on either name
 * (on its own only, exchanged), ENOTDIR.  `mv FILE DIR/` tries a
 * no-replace rename onto DIR/ first, and met EEXIST where the replay
 * answered ENOTDIR (notmuch: 5 mismatches).  @old_slash, @new_slash :
 * on the source, on the target.  @return : the answer, or 0: make the
 * call.
 */
static int64_t rename_slashed(const struct rpl_name *a, const struct rpl_name *b,
			      unsigned int flags, int old_slash, int new_slash)
{
	struct stat sa, sb;
	int has_b;

	if (fstatat(a->dirfd, a->name, &sa, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	has_b = fstatat(b->dirfd, b->name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
	if ((flags & RENAME_NOREPLACE) && has_b)
		return -EEXIST;
	if (flags & RENAME_EXCHANGE) {
		if (!has_b)
			return -ENOENT;
		if (!S_ISDIR(sb.st_mode) && new_slash)
			return -ENOTDIR;
	}
	if (!S_ISDIR(sa.st_mode) && (old_slash || !(flags & RENAME_EXCHANGE)))
		return -ENOTDIR;
	return 0;
}

/*
 * A file renamed within its directory (written aside, then put in
 * place) names one parent twice: the second name uses the first's
 * descriptor, as the program did, instead of a lookup from the root and
 * a close per rename.  Only where the recorded call named both from the
 * same directory descriptor (or none): the first may be a descriptor of
 * the program's, which need not be what the path says any more.
 */
static int64_t h_rename(struct rpl_ctx *c, struct rpl_op *op)
{
	unsigned int flags = op->ev.nr == SYS_renameat2 ? (unsigned)op->ev.args[4] : 0;
	int same_fd = op->ev.nr == SYS_rename || op->ev.args[0] == op->ev.args[2];
	struct rpl_name a, b;
	int64_t r;

	/* Its two names were on two filesystems when recorded (a build's
	 * output renamed from /tmp into the tree): the replay's root is one
	 * filesystem, where it would succeed, and the program's way around
	 * it (a copy, its own calls) is in the trace. */
	if (op->ev.ret == -EXDEV)
		return rpl_skip(op, RPL_SKIP_XDEV);
	OPEN_NAME(c, op, op->ev.path, &a);
	/* (a last "." or ".." names no entry: name_of() answers it, where
	 * the split gave EINVAL: `mv FILE ..` tries a no-replace rename
	 * onto "..", EEXIST) */
	if (same_fd && op->ev.path2 && !rpl_path_skip(c->p->o, op->ev.path2) &&
	    same_parent(op->ev.path, op->ev.path2) && !last_is_dot(op->ev.path2)) {
		b.dirfd = a.dirfd;
		b.owned = 0;
		r = rpl_split_name(op->ev.path2, strlen(op->ev.path2), &b);
		r = r < 0 ? r : 0;
	} else {
		r = name_of(c, op, op->ev.path2, &b, &a);
	}
	if (r) {
		rpl_name_done(&a);
		return r > 0 ? RPL_SKIPPED : r;
	}
	if (rpl_slashed(op->ev.path) || rpl_slashed(op->ev.path2))
		r = rename_slashed(&a, &b, flags, rpl_slashed(op->ev.path),
				   rpl_slashed(op->ev.path2));
	if (r == 0)
		r = ret_of(renameat2(a.dirfd, a.name, b.dirfd, b.name, flags));
	/* a file or symlink moved over no directory (moves.c): dcache.c */
	if (r == 0 && (op->rflags & RPL_OPF_NODIR))
		rpl_ns_nodir(c->p);
	else if (r == 0)
		rpl_ns_changed(c->p);
	rpl_name_done(&a);
	rpl_name_done(&b);
	return r;
}

/*
 * The recorded descriptor whose file a link's source names, where the
 * recorded path need not be that file's: linkat(AT_FDCWD,
 * "/proc/self/fd/N", ..., AT_SYMLINK_FOLLOW) (the event keeps N + 1 as
 * the path argument, record/decode.c; or /dev/fd/N as written) or linkat(N, "", ...,
 * AT_EMPTY_PATH) (the path recorded is N's).  The path a descriptor
 * has is the one it was opened with: an O_TMPFILE file's is its
 * directory, and linking that is not what the program did.  -1: none.
 */
static int64_t link_src_fd(struct rpl_ctx *c, const struct rpl_op *op, int flags)
{
	struct rpl_fd e;
	int64_t fd;
	int32_t pid;

	if (op->ev.nr != SYS_linkat)
		return -1;
	/* N + 1 kept, or a link to its own descriptor kept as written
	 * (/dev/fd/N: rpl_path_fd()) */
	if ((flags & AT_SYMLINK_FOLLOW) && (fd = rpl_path_fd(op, &pid)) >= 0 &&
	    (!pid || pid == c->t->pid))
		return fd;
	if ((flags & AT_EMPTY_PATH) && op->ev.args[0] >= 0 && op->ev.path &&
	    rpl_fdtab_get(c->pr->tab, (long)op->ev.args[0], &e) == 0 && e.path &&
	    strcmp(e.path, op->ev.path) == 0)
		return op->ev.args[0];
	return -1;
}

static int64_t h_link(struct rpl_ctx *c, struct rpl_op *op)
{
	int flags = op->ev.nr == SYS_linkat ? (int)op->ev.args[4] : 0;
	int64_t src = link_src_fd(c, op, flags);
	struct rpl_name b;
	int64_t r;

	if (op->ev.ret == -EXDEV)	/* as a rename's (h_rename()) */
		return rpl_skip(op, RPL_SKIP_XDEV);
	OPEN_NAME(c, op, op->ev.path2, &b);
	if (rpl_slashed(op->ev.path2) && (r = slash_answer(&b, 0)) != 0) {
		rpl_name_done(&b);
		return r;
	}
	if (src >= 0) {
		/* the descriptor's file, through its magic link here, which
		 * needs no CAP_DAC_READ_SEARCH as AT_EMPTY_PATH does */
		int fd = rpl_live_fd(c, op, src);
		char proc[64];

		if (fd < 0) {
			rpl_name_done(&b);
			return RPL_SKIPPED;
		}
		rpl_proc_fd(proc, fd);
		r = ret_of(linkat(AT_FDCWD, proc, b.dirfd, b.name, AT_SYMLINK_FOLLOW));
	} else if (flags & AT_SYMLINK_FOLLOW) {
		/* Follow the source inside the root, then link what was found. */
		const char *p = rpl_op_path(c, op, op->ev.path);
		char proc[64];
		int fd;

		if (!p) {
			rpl_name_done(&b);
			return RPL_SKIPPED;
		}
		fd = rpl_resolve(c->p->root_fd, p, O_PATH, 0);
		if (fd < 0) {
			rpl_name_done(&b);
			return fd;
		}
		rpl_proc_fd(proc, fd);
		r = ret_of(linkat(AT_FDCWD, proc, b.dirfd, b.name, AT_SYMLINK_FOLLOW));
		close(fd);
	} else {
		struct rpl_name a;

		r = name_of(c, op, op->ev.path, &a, &b);
		if (r) {
			rpl_name_done(&b);
			return r > 0 ? RPL_SKIPPED : r;
		}
		r = rpl_slashed(op->ev.path) ? slash_answer(&a, 1) : 0;
		if (r == 0)
			r = ret_of(linkat(a.dirfd, a.name, b.dirfd, b.name, 0));
		rpl_name_done(&a);
	}
	rpl_name_done(&b);
	return r;
}

static int64_t h_symlink(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_name n;
	int64_t r;

	if (!op->ev.path2)
		return rpl_skip(op, RPL_SKIP_NOPATH);
	OPEN_NAME(c, op, op->ev.path, &n);
	r = rpl_slashed(op->ev.path) ? slash_answer(&n, 0) : 0;
	if (r == 0)
		r = ret_of(symlinkat(op->ev.path2, n.dirfd, n.name));
	if (r == 0)
		rpl_ns_nodir(c->p);	/* a new name: no directory moved */
	rpl_name_done(&n);
	return r;
}

dev_t rpl_dev_standin(uint32_t type, uint64_t rdev)
{
	unsigned int ma = major((dev_t)rdev), mi = minor((dev_t)rdev);

	/* the memory devices: null, zero, full, random, urandom */
	if (type == S_IFCHR && ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9))
		return (dev_t)rdev;
	return makedev(0, 0);
}

static int64_t h_mknod(struct rpl_ctx *c, struct rpl_op *op)
{
	mode_t mode = (mode_t)op->ev.args[op->ev.nr == SYS_mknodat ? 2 : 1];
	struct rpl_name n;
	int64_t r;

	/* regular files, FIFOs, sockets' names (an inode, as bind makes
	 * it: h_bind()) and device nodes, these with a driver only where
	 * that is harmless (rpl_dev_standin()) */
	mode_t type = mode & S_IFMT;
	dev_t dev = S_ISCHR(mode) || S_ISBLK(mode) ?
		rpl_dev_standin(type, (uint64_t)op->ev.args[op->ev.nr == SYS_mknodat ? 3 : 2]) : 0;

	if (type != 0 && type != S_IFREG && type != S_IFIFO && type != S_IFSOCK &&
	    type != S_IFCHR && type != S_IFBLK)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	OPEN_NAME(c, op, op->ev.path, &n);
	r = rpl_slashed(op->ev.path) ? slash_answer(&n, 0) : 0;
	if (r == 0)
		r = ret_of(mknodat(n.dirfd, n.name, mode & (S_IFMT | 07777), dev));
	rpl_name_done(&n);
	return r;
}

/*
 * bind() of a Unix socket to a path makes its name: an S_IFSOCK inode,
 * which mknod makes without a socket (the recorder keeps only binds to a
 * path, record/decode.c).  Its mode is 0777 less the thread's umask, as
 * bind's is, and as the replay's mkdir and open take theirs (the recorded
 * process's where the trace gives it: umask.c).  A name already there is
 * bind's EADDRINUSE.  Where the replay made the socket (ops_sock.c), it
 * is bound for real, through its parent opened under the root
 * (/proc/thread-self/fd/N/NAME), so that connects reach it; a name too
 * long for that address is made as above.
 */
static int64_t h_bind(struct rpl_ctx *c, struct rpl_op *op)
{
	int sock = rpl_sock_live(c, op->ev.args[0]);
	struct sockaddr_un sa;
	struct rpl_name n;
	int64_t r;

	OPEN_NAME(c, op, op->ev.path, &n);
	r = rpl_slashed(op->ev.path) ? slash_answer(&n, 0) : 0;
	if (r == 0 && sock >= 0 && rpl_sock_addr(&sa, n.dirfd, n.name) == 0)
		r = ret_of(bind(sock, (struct sockaddr *)&sa, sizeof(sa)));
	else if (r == 0)
		r = ret_of(mknodat(n.dirfd, n.name, S_IFSOCK | 0777, 0));
	rpl_name_done(&n);
	return r == -EEXIST ? -EADDRINUSE : r;
}

/* Paths are absolute: chdir only costs its lookup. */
static int64_t h_chdir(struct rpl_ctx *c, struct rpl_op *op)
{
	const char *p;
	int fd;

	if (op->ev.nr == SYS_fchdir) {
		fd = rpl_live_fd(c, op, op->ev.args[0]);
		if (fd < 0)
			return RPL_SKIPPED;
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd >= 0)
			rpl_cwd_set(c, fd, op->ev.path);
		return 0;
	}
	p = rpl_op_path(c, op, op->ev.path);
	if (!p)
		return RPL_SKIPPED;
	fd = rpl_resolve(c->p->root_fd, p, O_PATH | O_DIRECTORY, 0);
	/* "..", or itself, of a working directory since removed */
	if (fd == -ENOENT && op->ev.ret == 0)
		fd = rpl_cwd_open(c, p, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	/* the chroot's look-up is no working directory */
	if (op->ev.nr == SYS_chroot)
		close(fd);
	else
		rpl_cwd_set(c, fd, p);
	return 0;
}

/*
 * mount, umount2, pivot_root: not made.  The replay runs in the
 * replayer's mount namespace, under --root, and a bind or tmpfs made there
 * would outlive it; the names the workload gave after them are replayed in
 * the one tree.  Counted as skipped (RPL_SKIP_MOUNT), and the summary says
 * what that means for the calls under them.
 */
static int64_t h_mount(struct rpl_ctx *c, struct rpl_op *op)
{
	return rpl_skip(op, RPL_SKIP_MOUNT);
}

void rpl_ops_dir(rpl_handler *h)
{
	h[SYS_getdents] = h_getdents;
	h[SYS_getdents64] = h_getdents;
	h[SYS_mkdir] = h_mkdir;
	h[SYS_mkdirat] = h_mkdir;
	h[SYS_rmdir] = h_unlink;
	h[SYS_unlink] = h_unlink;
	h[SYS_unlinkat] = h_unlink;
	h[SYS_rename] = h_rename;
	h[SYS_renameat] = h_rename;
	h[SYS_renameat2] = h_rename;
	h[SYS_link] = h_link;
	h[SYS_linkat] = h_link;
	h[SYS_symlink] = h_symlink;
	h[SYS_symlinkat] = h_symlink;
	h[SYS_mknod] = h_mknod;
	h[SYS_mknodat] = h_mknod;
	h[SYS_bind] = h_bind;
	h[SYS_chdir] = h_chdir;
	h[SYS_fchdir] = h_chdir;
	/* the names after it were recorded under its root: a look-up */
	h[SYS_chroot] = h_chdir;
	h[SYS_mount] = h_mount;
	h[SYS_umount2] = h_mount;
	h[SYS_pivot_root] = h_mount;
}
