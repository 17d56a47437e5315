/*
 * ops_meta.c - replay handlers for metadata: stat, statfs, readlink,
 * access, chmod, chown, utimes; the xattr family is in ops_xattr.c and
 * shares the lookups below (ops_meta.h).
 *
 * A path is opened O_PATH inside the root (O_NOFOLLOW for the l* forms and
 * AT_SYMLINK_NOFOLLOW), then the call acts on that descriptor with
 * AT_EMPTY_PATH, so a symlink at the last component is followed by the
 * kernel's confined lookup, never by a plain one.  The AT_SYMLINK_NOFOLLOW
 * forms of utimensat and chown act on the last component in its cached
 * parent instead: one call, as the recorded program made, and nothing
 * followed.  Times set by utime* are "now": the recorder does not keep
 * the values.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rpl.h"
#include "ops_meta.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* The live descriptor when an *at call names its dirfd itself: with
 * AT_EMPTY_PATH, with no path, or with the path the fd was opened as. */
static int self_fd(struct rpl_ctx *c, struct rpl_op *op, int64_t dirfd, int empty)
{
	struct rpl_fd e;

	if (dirfd < 0)
		return -1;
	if (rpl_fdtab_get(c->pr->tab, (long)dirfd, &e) < 0) {
		/* A descriptor the workload had before the trace began (its
		 * standard output: a pipe, a log file), named by itself: not
		 * replayed. */
		if (empty) {
			rpl_skip(op, RPL_SKIP_FD);
			return RPL_META_SKIP_FD;
		}
		return -1;
	}
	if (!empty && op->ev.path && !(e.path && strcmp(e.path, op->ev.path) == 0))
		return -1;
	if (e.state != RPL_FD_LIVE) {
		rpl_skip(op, RPL_SKIP_FD);
		return RPL_META_SKIP_FD;
	}
	return e.live;
}

int rpl_meta_target(struct rpl_ctx *c, struct rpl_op *op, int dirfd_arg, int at_flags,
		    int nofollow, int *owned)
{
	const char *path;
	int fd;

	*owned = 0;
	if (dirfd_arg >= 0) {
		fd = self_fd(c, op, op->ev.args[dirfd_arg], (at_flags & AT_EMPTY_PATH) != 0);
		if (fd >= 0 || fd == RPL_META_SKIP_FD)
			return fd;
	}
	path = rpl_op_path(c, op, op->ev.path);
	if (!path)
		return RPL_META_SKIP_FD;
	fd = rpl_open_at(c, path, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0);
	*owned = fd >= 0;
	return fd;
}

int64_t rpl_meta_finish(int fd, int owned, int64_t r)
{
	if (owned)
		close(fd);
	return r;
}

/*
 * Names a thread has just seen are not symlinks.  The calls that follow
 * a last symlink (getxattr, setxattr, removexattr, utimensat without
 * AT_SYMLINK_NOFOLLOW) are made on the name in its cached parent with
 * AT_SYMLINK_NOFOLLOW, one call, once the name is known not to be a
 * symlink: an fstatat says so, or a recent call did.  cp -a makes four
 * such calls and two stats per directory it copies, on two names.
 * Trusted while nothing was removed, renamed or made a symlink (the
 * dcache's generation); a wrong answer (two paths of one 64-bit hash)
 * would act on a symlink itself, inside the root all the same.
 */
static uint64_t path_key(const char *path)
{
	return iot_hash(path, strlen(path), 7) | 1;	/* 0: an empty slot */
}

static int nolink_known(struct rpl_ctx *c, uint64_t key, uint32_t gen)
{
	int i;

	for (i = 0; i < RPL_NOLINK; i++)
		if (c->t->nolink[i].h == key && c->t->nolink[i].gen == gen)
			return 1;
	return 0;
}

static void nolink_learn(struct rpl_ctx *c, uint64_t key, uint32_t gen)
{
	unsigned k = c->t->nolink_next++ % RPL_NOLINK;

	c->t->nolink[k].h = key;
	c->t->nolink[k].gen = gen;
}

int rpl_meta_not_symlink(struct rpl_ctx *c, const char *path, const struct rpl_name *n)
{
	uint32_t gen = atomic_load_explicit(&c->p->ns_gen, memory_order_acquire);
	uint64_t key = path_key(path);
	struct stat st;

	if (nolink_known(c, key, gen))
		return 1;
	if (fstatat(n->dirfd, n->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(st.st_mode))
		return 0;
	nolink_learn(c, key, gen);
	return 1;
}

/* Is symlink target @t one whose every component is a plain name (no
 * ".", "..", empty component or trailing slash), so that the string,
 * joined to the symlink's directory where relative, names what the kernel
 * would reach? */
static int plain_target(const char *t)
{
	const char *s = t[0] == '/' ? t + 1 : t, *e;

	if (!*s)
		return 0;
	for (;; s = e + 1) {
		e = strchr(s, '/');
		if (e == s || (s[0] == '.' && (s + 1 == e || s[1] == 0 ||
					       (s[1] == '.' && (s + 2 == e || s[2] == 0)))))
			return 0;
		if (!e)
			return 1;
	}
}

/* The stat of @n, a name in a directory inside the root, not following
 * it: @*lnk : whether it is a symlink. */
static int64_t stat_name(struct rpl_ctx *c, struct rpl_op *op, const struct rpl_name *n,
			 int flags, int *lnk)
{
	int64_t err;

	if (op->ev.nr == SYS_statx) {
		struct statx stx;

		err = ret_of(statx(n->dirfd, n->name, AT_SYMLINK_NOFOLLOW | (flags & AT_STATX_SYNC_TYPE),
				   (unsigned)op->ev.args[3], &stx));
		*lnk = err == 0 && S_ISLNK(stx.stx_mode);
	} else {
		struct stat st;

		err = ret_of(fstatat(n->dirfd, n->name, &st, AT_SYMLINK_NOFOLLOW));
		*lnk = err == 0 && S_ISLNK(st.st_mode);
	}
	return err;
}

/*
 * A stat that follows the symlink @n (@path's last component, its parent
 * open): the target read there and looked up in the thread's cache of
 * parents in turn, up to a few links deep, as the kernel would walk it
 * inside the root.  zip and tar stat /etc/localtime (a symlink to the
 * zone file) once per file they archive, through localtime(): that was
 * a stat, a failed open of the name as a plain one, an open of the whole
 * path from the root, a stat of it and a close, 35,600 opens in a replay
 * of zip's 155,000 calls.  Anything but plain names in a target, a path
 * the replay does not make (/proc...), or a parent not found:
 * RPL_META_TRY_FULL, and the confined lookup of the whole path says.
 * Releases @n.
 */
static int64_t stat_through_links(struct rpl_ctx *c, struct rpl_op *op, const char *path,
				  struct rpl_name *n, int flags)
{
	char cur[PATH_MAX], next[PATH_MAX], t[PATH_MAX];
	int64_t len, err = RPL_META_TRY_FULL;
	size_t dlen, end, plen = strlen(path);
	int hop, lnk = 1;

	/* (a trailing slash never comes here: stat_in_parent()) */
	if (plen >= sizeof(cur)) {
		rpl_name_done(n);
		return RPL_META_TRY_FULL;
	}
	memcpy(cur, path, plen + 1);
	for (hop = 0; hop < 8 && lnk; hop++) {
		len = ret_of(readlinkat(n->dirfd, n->name, t, sizeof(t) - 1));
		rpl_name_done(n);
		if (len <= 0 || len >= (int64_t)sizeof(t) - 1)
			return RPL_META_TRY_FULL;
		t[len] = 0;
		if (!plain_target(t))
			return RPL_META_TRY_FULL;
		dlen = rpl_last_name(cur, strlen(cur), &end);	/* "/a/" of "/a/l" */
		if (t[0] == '/')
			dlen = 0;
		else if (dlen == 0 || dlen + (size_t)len >= sizeof(next))
			return RPL_META_TRY_FULL;
		memcpy(next, cur, dlen);
		memcpy(next + dlen, t, (size_t)len + 1);
		if (rpl_path_skip(c->p->o, next) || rpl_parent_at(c, next, n) != 0)
			return RPL_META_TRY_FULL;
		err = stat_name(c, op, n, flags, &lnk);
		strcpy(cur, next);
	}
	rpl_name_done(n);
	return lnk ? RPL_META_TRY_FULL : err;	/* still a link: 8 deep, or more */
}

/* The common stat: one fstatat/statx in the cached parent, not following
 * the last component.  If it is a symlink to follow, stat_through_links(),
 * else RPL_META_TRY_FULL: the confined lookup of the whole path follows
 * it. */
static int64_t stat_in_parent(struct rpl_ctx *c, struct rpl_op *op, int dirarg, int flags,
			      int nofollow)
{
	const char *path;
	struct rpl_name n;
	uint32_t gen = atomic_load_explicit(&c->p->ns_gen, memory_order_acquire);
	struct rpl_fd e;
	int err, lnk;

	/* the dirfd itself, live here: its path may be none of the root's
	 * (/dev/fd/63, bash's `cat <(cmd)`: the pipe opened through it) */
	if (dirarg >= 0 && op->ev.args[dirarg] >= 0 && (flags & AT_EMPTY_PATH) &&
	    rpl_fdtab_get(c->pr->tab, (long)op->ev.args[dirarg], &e) == 0 &&
	    e.state == RPL_FD_LIVE)
		return RPL_META_TRY_FULL;
	path = rpl_op_path(c, op, op->ev.path);
	if (!path)
		return RPL_SKIPPED;
	if (rpl_slashed(path))
		return RPL_META_TRY_FULL;
	if (dirarg >= 0 && op->ev.args[dirarg] >= 0) {
		/* a name in its dirfd, or maybe the dirfd itself */
		if ((flags & AT_EMPTY_PATH) || rpl_parent_fd(c, op, &n) < 0)
			return RPL_META_TRY_FULL;
	} else {
		err = rpl_parent_at(c, path, &n);
		if (err)
			return err == -EINVAL ? RPL_META_TRY_FULL : err;
	}
	err = (int)stat_name(c, op, &n, flags, &lnk);
	if (lnk && !nofollow)
		return stat_through_links(c, op, path, &n, flags);
	rpl_name_done(&n);
	if (err == 0 && !lnk)
		nolink_learn(c, path_key(path), gen);
	return err;
}

int64_t rpl_meta_nofollow_name(struct rpl_ctx *c, struct rpl_op *op, int dirarg,
			       struct rpl_name *n)
{
	const char *path;
	int err;

	path = rpl_op_path(c, op, op->ev.path);
	if (!path)
		return RPL_SKIPPED;
	if (path[0] != '/' || path[1] == 0 || rpl_slashed(path))
		return RPL_META_TRY_FULL;
	if (dirarg >= 0 && op->ev.args[dirarg] >= 0)
		return rpl_parent_fd(c, op, n) == 0 ? 0 : RPL_META_TRY_FULL;
	/* Any trouble with the parent: the whole path says what it is. */
	err = rpl_parent_at(c, path, n);
	return err ? RPL_META_TRY_FULL : 0;
}

int64_t rpl_meta_unfollowed_name(struct rpl_ctx *c, struct rpl_op *op, int dirarg, int nofollow,
				 struct rpl_name *n)
{
	int64_t r = rpl_meta_nofollow_name(c, op, dirarg, n);

	if (r == 0 && !nofollow && !rpl_meta_not_symlink(c, op->ev.path, n)) {
		rpl_name_done(n);
		return RPL_META_TRY_FULL;
	}
	return r;
}

static int64_t h_stat(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int fd, owned = 0, flags = 0, dirarg = -1, nofollow = 0;
	struct statx stx;
	struct stat st;

	switch (op->ev.nr) {
	case SYS_fstat: case SYS_fstatfs:
		fd = rpl_live_fd(c, op, a[0]);
		if (fd < 0)
			return RPL_SKIPPED;
		if (op->ev.nr == SYS_fstat)
			return ret_of(fstat(fd, &st));
		else {
			struct statfs sf;

			return ret_of(fstatfs(fd, &sf));
		}
	case SYS_lstat:
		nofollow = 1;
		break;
	case SYS_newfstatat:
		flags = (int)a[3];
		dirarg = 0;
		break;
	case SYS_statx:
		flags = (int)a[2];
		dirarg = 0;
		break;
	}
	nofollow |= (flags & AT_SYMLINK_NOFOLLOW) != 0;
	if (op->ev.nr != SYS_statfs) {
		int64_t r = stat_in_parent(c, op, dirarg, flags, nofollow);

		if (r != RPL_META_TRY_FULL)
			return r;
	}
	fd = rpl_meta_target(c, op, dirarg, flags, nofollow, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	if (op->ev.nr == SYS_statx)
		return rpl_meta_finish(fd, owned, ret_of(statx(fd, "", AT_EMPTY_PATH |
			(flags & AT_STATX_SYNC_TYPE), (unsigned)a[3], &stx)));
	if (op->ev.nr == SYS_statfs) {
		struct statfs sf;

		return rpl_meta_finish(fd, owned, ret_of(fstatfs(fd, &sf)));
	}
	return rpl_meta_finish(fd, owned, ret_of(fstatat(fd, "", &st, AT_EMPTY_PATH)));
}

static int64_t h_readlink(struct rpl_ctx *c, struct rpl_op *op)
{
	int at = op->ev.nr == SYS_readlinkat;
	int64_t size = op->ev.args[at ? 3 : 2], r, nfd;
	struct rpl_name n;
	int fd, owned;
	int32_t pid;

	if (size < 0 || size > RPL_SCRATCH)
		size = RPL_SCRATCH;
	/* a descriptor's own magic link, /proc/self/fd/N (the recorder
	 * names the file it holds, which is no symlink: EINVAL here, 750 of
	 * clamd's calls): that descriptor's here, whose name under the root
	 * is longer; the recorded length where it reads one */
	/* readlinkat(fd, "") of a descriptor opened O_PATH|O_NOFOLLOW on a
	 * symlink reads that symlink (systemd-tmpfiles): the replay's
	 * descriptor's (the recorder keeps the empty name) */
	if (at && op->ev.path && !op->ev.path[0]) {
		if ((fd = rpl_live_fd(c, op, op->ev.args[0])) < 0)
			return RPL_SKIPPED;
		return ret_of(readlinkat(fd, "", c->scratch, (size_t)size));
	}
	if ((nfd = rpl_path_fd(op, &pid)) >= 0 && !pid) {
		char name[48];

		if ((fd = rpl_live_fd(c, op, nfd)) < 0)
			return RPL_SKIPPED;
		snprintf(name, sizeof(name), "/proc/thread-self/fd/%d", fd);
		r = ret_of(readlink(name, c->scratch, (size_t)size));
		return r >= 0 && op->ev.ret >= 0 ? op->ev.ret : r;
	}
	/* gcc's realpath reads every component of every header's path:
	 * 98,000 readlinks in a make -j2 of 468 processes, on directories
	 * mostly; one call each on the name in its cached parent. */
	r = rpl_meta_nofollow_name(c, op, at ? 0 : -1, &n);
	if (r == 0) {
		r = ret_of(readlinkat(n.dirfd, n.name, c->scratch, (size_t)size));
		rpl_name_done(&n);
	}
	if (r != RPL_META_TRY_FULL)
		return r;
	fd = rpl_meta_target(c, op, -1, 0, 1, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	r = ret_of(readlinkat(fd, "", c->scratch, (size_t)size));
	/* On a descriptor of what is not a symlink the kernel says ENOENT;
	 * on its name, as the program asked, EINVAL. */
	if (r == -ENOENT)
		r = -EINVAL;
	return rpl_meta_finish(fd, owned, r);
}

static int64_t h_access(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int at = op->ev.nr != SYS_access;
	int flags = op->ev.nr == SYS_faccessat2 ? (int)a[3] : 0;
	int mode = (int)a[at ? 2 : 1];
	int fd, owned;

	/* a mode or flags the kernel does not take: EINVAL before any
	 * look-up (stress-ng's access stressor tries them), made so here
	 * on the root, which the call then never reaches */
	if ((mode & ~S_IRWXO) || (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
		return RPL_TIMED(c, syscall(SYS_faccessat2, c->p->root_fd, "", mode, flags) < 0 ?
				 -errno : 0);
	fd = rpl_meta_target(c, op, at ? 0 : -1, flags, (flags & AT_SYMLINK_NOFOLLOW) != 0, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	return rpl_meta_finish(fd, owned, ret_of(syscall(SYS_faccessat2, fd, "", mode,
						 AT_EMPTY_PATH | (flags & AT_EACCESS))));
}

/*
 * A connect that succeeded when recorded, from a socket the replay made
 * (ops_sock.c), to the socket its name finds under the root, @target (a
 * descriptor of it: /proc/thread-self/fd/N, never a path the kernel
 * would resolve from the machine's root).  Its listener may not listen
 * yet, nor have room (ECONNREFUSED, EAGAIN: the plan orders a connect
 * after the bind of its name, not after the listen): tried again as a
 * pipe's read waits for its writer.
 */
static int64_t connect_for_real(struct rpl_ctx *c, struct rpl_op *op, int sock, int target)
{
	struct pollfd pfd = { .fd = sock, .events = POLLOUT };
	struct sockaddr_un sa;
	int64_t r, deadline = 0;

	if (rpl_sock_addr(&sa, target, NULL) < 0)
		return -ENAMETOOLONG;
	for (;;) {
		struct timespec ts = { 0, 200000 };

		r = RPL_CALL(c, connect(sock, (struct sockaddr *)&sa, sizeof(sa)));
		if ((r != -ECONNREFUSED && r != -EAGAIN) || !rpl_wait_again(c, op, &pfd, &deadline))
			break;
		nanosleep(&ts, NULL);	/* a refused socket polls ready at once */
	}
	return r == -EINPROGRESS ? 0 : r;
}

/* Did connect() fail in its look-up of the socket's name, not at the
 * socket behind it (ECONNREFUSED, EAGAIN: no listener, a full queue)? */
static int lookup_err(int64_t r)
{
	switch (-r) {
	case ENOENT: case ENOTDIR: case EACCES: case EPERM: case ELOOP:
	case ENAMETOOLONG:
		return 1;
	}
	return 0;
}

/*
 * connect() to a Unix socket's path looks the name up and needs write
 * permission on it: the look-up and an access(W_OK) here.  What the
 * socket behind the name answered is no filesystem's: where the name is
 * found, the recorded result (0, ECONNREFUSED, EAGAIN...) is the
 * replay's; where the recorded call did not find it, 0 (a mismatch).
 */
static int64_t h_connect(struct rpl_ctx *c, struct rpl_op *op)
{
	int sock = rpl_sock_live(c, op->ev.args[0]), fd, owned;
	int64_t r;

	fd = rpl_meta_target(c, op, -1, 0, 0, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	if (sock >= 0 && op->ev.ret == 0) {
		rpl_conn_name(c, op, sock);
		r = rpl_meta_finish(fd, owned, connect_for_real(c, op, sock, fd));
		if (r == 0)
			rpl_conn_made(c, op, sock);
		return r;
	}
	r = rpl_meta_finish(fd, owned, ret_of(syscall(SYS_faccessat2, fd, "", W_OK, AT_EMPTY_PATH)));
	if (r < 0)
		return r;
	return lookup_err(op->ev.ret) ? 0 : op->ev.ret;
}

static int64_t h_chmod(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int at = op->ev.nr == SYS_fchmodat || op->ev.nr == SYS_fchmodat2;
	int flags = op->ev.nr == SYS_fchmodat2 ? (int)a[3] : 0;
	int fd, owned;

	if (op->ev.nr == SYS_fchmod) {
		fd = rpl_live_fd(c, op, a[0]);
		return fd < 0 ? RPL_SKIPPED : ret_of(fchmod(fd, (mode_t)a[1]));
	}
	if (!(flags & ~AT_SYMLINK_NOFOLLOW)) {
		/* on the name in its cached parent, one call, as utimensat
		 * below, where it is not a symlink to follow: fchmodat2 with
		 * AT_SYMLINK_NOFOLLOW acts on a symlink itself (EOPNOTSUPP),
		 * never on what it points to (chmod -R: 4,990 calls, each an
		 * open of the whole path, the change and a close before) */
		struct rpl_name n;
		int64_t r = rpl_meta_unfollowed_name(c, op, at ? 0 : -1,
						     (flags & AT_SYMLINK_NOFOLLOW) != 0, &n);

		if (r == 0) {
			r = ret_of(syscall(SYS_fchmodat2, n.dirfd, n.name,
					   (mode_t)a[at ? 2 : 1] & 07777, AT_SYMLINK_NOFOLLOW));
			rpl_name_done(&n);
		}
		if (r != RPL_META_TRY_FULL)
			return r;
	}
	fd = rpl_meta_target(c, op, at ? 0 : -1, flags, (flags & AT_SYMLINK_NOFOLLOW) != 0, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	return rpl_meta_finish(fd, owned, ret_of(syscall(SYS_fchmodat2, fd, "",
						 (mode_t)a[at ? 2 : 1] & 07777, AT_EMPTY_PATH)));
}

static int64_t h_chown(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int at = op->ev.nr == SYS_fchownat;
	int flags = at ? (int)a[4] : 0;
	int fd, owned;

	if (op->ev.nr == SYS_fchown) {
		fd = rpl_live_fd(c, op, a[0]);
		return fd < 0 ? RPL_SKIPPED : ret_of(fchown(fd, (uid_t)a[1], (gid_t)a[2]));
	}
	if (op->ev.nr == SYS_lchown || (flags & AT_SYMLINK_NOFOLLOW)) {
		struct rpl_name n;
		int64_t r = rpl_meta_nofollow_name(c, op, at ? 0 : -1, &n);

		if (r == 0) {
			r = ret_of(fchownat(n.dirfd, n.name, (uid_t)a[at ? 2 : 1],
					    (gid_t)a[at ? 3 : 2], AT_SYMLINK_NOFOLLOW));
			rpl_name_done(&n);
		}
		if (r != RPL_META_TRY_FULL)
			return r;
	}
	fd = rpl_meta_target(c, op, at ? 0 : -1, flags,
		    op->ev.nr == SYS_lchown || (flags & AT_SYMLINK_NOFOLLOW), &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	return rpl_meta_finish(fd, owned, ret_of(fchownat(fd, "", (uid_t)a[at ? 2 : 1],
						 (gid_t)a[at ? 3 : 2], AT_EMPTY_PATH)));
}

static int64_t h_utimes(struct rpl_ctx *c, struct rpl_op *op)
{
	int at = op->ev.nr == SYS_futimesat || op->ev.nr == SYS_utimensat;
	int flags = op->ev.nr == SYS_utimensat ? (int)op->ev.args[3] : 0;
	int fd, owned;

	if (op->ev.ret == -EINVAL) {
		/* failed on its arguments when recorded (flags, or times
		 * whose values the trace does not keep: out of range): failed
		 * so here, on flags it does not take, before any lookup */
		static const struct timeval bad_tv[2] = { { 0, 1000000L }, { 0, 1000000L } };

		if (op->ev.nr == SYS_utimensat)
			return RPL_CALL(c, syscall(SYS_utimensat, AT_FDCWD, NULL, NULL, AT_RECURSIVE));
		if (op->ev.nr == SYS_futimesat)
			return RPL_CALL(c, syscall(SYS_futimesat, -1, NULL, bad_tv));
	}
	if (op->ev.nr == SYS_utimensat && !op->ev.path) {	/* futimens() */
		fd = rpl_live_fd(c, op, op->ev.args[0]);
		return fd < 0 ? RPL_SKIPPED : ret_of(futimens(fd, NULL));
	}
	if (!(flags & ~AT_SYMLINK_NOFOLLOW)) {
		/* on the name, if it is a symlink only when not followed */
		struct rpl_name n;
		int64_t r = rpl_meta_unfollowed_name(c, op, at ? 0 : -1,
						     (flags & AT_SYMLINK_NOFOLLOW) != 0, &n);

		if (r == 0) {
			r = ret_of(utimensat(n.dirfd, n.name, NULL, AT_SYMLINK_NOFOLLOW));
			rpl_name_done(&n);
		}
		if (r != RPL_META_TRY_FULL)
			return r;
	}
	fd = rpl_meta_target(c, op, at ? 0 : -1, flags, (flags & AT_SYMLINK_NOFOLLOW) != 0, &owned);
	if (fd < 0)
		return fd == RPL_META_SKIP_FD ? RPL_SKIPPED : fd;
	return rpl_meta_finish(fd, owned, ret_of(utimensat(fd, "", NULL, AT_EMPTY_PATH)));
}

void rpl_ops_meta(rpl_handler *h)
{
	static const int stat_nrs[] = { SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat,
					SYS_statx, SYS_statfs, SYS_fstatfs };
	size_t i;

	for (i = 0; i < sizeof(stat_nrs) / sizeof(stat_nrs[0]); i++)
		h[stat_nrs[i]] = h_stat;
	h[SYS_readlink] = h_readlink;
	h[SYS_readlinkat] = h_readlink;
	h[SYS_access] = h_access;
	h[SYS_faccessat] = h_access;
	h[SYS_faccessat2] = h_access;
	h[SYS_connect] = h_connect;
	h[SYS_chmod] = h_chmod;
	h[SYS_fchmod] = h_chmod;
	h[SYS_fchmodat] = h_chmod;
	h[SYS_fchmodat2] = h_chmod;
	h[SYS_chown] = h_chown;
	h[SYS_fchown] = h_chown;
	h[SYS_lchown] = h_chown;
	h[SYS_fchownat] = h_chown;
	h[SYS_utime] = h_utimes;
	h[SYS_utimes] = h_utimes;
	h[SYS_futimesat] = h_utimes;
	h[SYS_utimensat] = h_utimes;
}
