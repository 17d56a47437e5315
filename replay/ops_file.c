/*
 * ops_file.c - replay handlers for opening, closing and duplicating
 * descriptors, pipes and socket pairs.
 *
 * Opens keep the recorded flags, resolved in the root, plus O_NONBLOCK:
 * a FIFO open or read must never wait for a peer the replay may not have
 * (on regular files the flag changes nothing).  Pipes are real pipes
 * (socket pairs real pairs), non-blocking for the same reason: with
 * resource order a read follows the writes that fed it, so the data is
 * there; if not, the read gets EAGAIN and counts as a mismatch instead
 * of hanging.
 * A FIFO opened for writing that no reader has open answers ENXIO to
 * O_NONBLOCK, where the program's open waited for its reader (`mkfifo p;
 * cat p & echo x >p`: ENXIO, and a read of 0 bytes, before).  Where the
 * recorded open succeeded, it waits here too, trying again after 50 us,
 * then less often (up to every millisecond), for as long as four times
 * the recorded open took and at least a second (the reader's process may
 * be starting on a loaded machine; the two opens of a FIFO do not follow
 * each other in resource order, plan_pipes.c, and its reads follow its
 * writes); a reader that does not come then (its open not replayed) gets
 * the FIFO opened read-write, which Linux never makes wait: the writes
 * wait in it while the writer has it open.
 * A successful open returns the *recorded* descriptor number: live numbers
 * are the replayer's own business.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

static void map_result(struct rpl_ctx *c, struct rpl_op *op, int live, int flags,
		       const char *path)
{
	struct rpl_fd e = { .live = live, .path = path };

	if (op->ev.ret < 0) {
		if (live >= 0)		/* succeeded here, failed there */
			close(live);
		return;
	}
	e.state = live >= 0 ? RPL_FD_LIVE : RPL_FD_SKIP;
	e.cloexec = (flags & O_CLOEXEC) != 0;
	if (rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &e) < 0 && live >= 0)
		close(live);
}

#define FIFO_TRY_NS 50000LL
#define FIFO_TRY_MAX_NS 1000000LL
#define FIFO_WAIT_MIN_NS 1000000000LL
#define FIFO_WAIT_MAX_NS 4000000000LL

/* How long a call that waits for another process (a FIFO's writer for
 * its reader, a lock for its holder) is tried again: four times as long
 * as the recorded call took, at least a second, at most four. */
static int64_t try_again_ns(const struct rpl_op *op)
{
	int64_t wait = 4 * (op->ev.t_exit - op->ev.t_enter);

	if (wait < FIFO_WAIT_MIN_NS || (op->ev.flags & IOT_EV_NOEXIT_TS))
		wait = FIFO_WAIT_MIN_NS;
	return wait > FIFO_WAIT_MAX_NS ? FIFO_WAIT_MAX_NS : wait;
}

/* Sleep @ts before the next try, and twice as long the next time, up to
 * FIFO_TRY_MAX_NS (@ts starts at FIFO_TRY_NS). */
static void back_off(struct timespec *ts)
{
	nanosleep(ts, NULL);
	if (ts->tv_nsec < FIFO_TRY_MAX_NS)
		ts->tv_nsec *= 2;
}

/* A FIFO's write end, opened where no reader had it open (see above). */
static int fifo_writer(struct rpl_ctx *c, struct rpl_op *op, const char *p, int flags,
		       mode_t mode)
{
	int64_t until = iot_now_ns() + try_again_ns(op);
	struct timespec ts = { 0, FIFO_TRY_NS };
	int fd;

	do {
		back_off(&ts);
		fd = RPL_TIMED(c, rpl_open_at(c, p, flags | O_NONBLOCK | O_NOCTTY, mode));
	} while (fd == -ENXIO && iot_now_ns() < until &&
		 !atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed));
	if (fd == -ENXIO) {
		atomic_fetch_add(&c->p->fifo_alone, 1);
		fd = RPL_TIMED(c, rpl_open_at(c, p, (flags & ~O_ACCMODE) | O_RDWR | O_NONBLOCK |
					      O_NOCTTY, mode));
	}
	return fd;
}

/*
 * An open of a descriptor's magic link (/proc/self/fd/N, /dev/fd/N,
 * /dev/stdin, /proc/PID/fd/N: rpl_path_fd()) opens the file or pipe that
 * descriptor has here, through the descriptor's own magic link, as the
 * program's open did: not the path recorded, which is /dev/fd/N itself
 * (outside the root, not replayed: bash's `cat <(cmd)` read nothing of
 * cmd's pipe), or the file's path, which names its directory where the
 * file has no name (O_TMPFILE) or another file where it was renamed.
 * Another process's descriptor (/proc/PID/fd/N) is read in that
 * process's table, under the lock its end takes (spawn_lock) and its
 * table's own (plan_fds.c made it one that locks), and opened through
 * the thread whose kernel table holds it (rpl_fdtab.ktid).  Where no
 * such descriptor is there (a terminal not replayed, a process that
 * has ended, a pid not in the trace) the open is skipped and counted:
 * "descriptor not replayed", or "another process's descriptor"; but
 * where the path recorded is the file's (/proc/self/fd/N of a file),
 * that path is opened, as before.
 * @return : 0 if @op is no such open, else 1 with its result in *@r.
 */
#define FD_LINK_FLAGS (O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static int open_fd_link(struct rpl_ctx *c, struct rpl_op *op, int flags, mode_t mode,
			int64_t *r)
{
	struct rpl_fdtab *tab = c->pr->tab;
	struct rpl_proc *other = NULL;
	char proc[64];
	struct rpl_fd e = { .live = -1 };
	int32_t pid, pi;
	int64_t fd = rpl_path_fd(op, &pid);
	int live = -1, why = RPL_SKIP_FD, got;

	if (fd < 0)
		return 0;
	if (pid && pid != c->t->pid) {
		why = RPL_SKIP_OTHERFD;
		if ((pi = rpl_op_fd_proc(op)) < 0 || (size_t)pi >= c->p->n_procs)
			goto skip;
		other = &c->p->procs[pi];
		pthread_mutex_lock(&c->p->spawn_lock);
		if (!(tab = other->tab)) {
			pthread_mutex_unlock(&c->p->spawn_lock);
			goto skip;
		}
		pthread_mutex_lock(&tab->lock);
		got = fd < tab->n && tab->v[fd].state == RPL_FD_LIVE;
		if (got) {
			e = tab->v[fd];
			if (tab->ktid)
				snprintf(proc, sizeof(proc), "/proc/self/task/%d/fd/%d", tab->ktid,
					 e.live);
			else
				snprintf(proc, sizeof(proc), "/proc/self/fd/%d", e.live);
			live = (int)RPL_CALL(c, open(proc, flags | FD_LINK_FLAGS, mode));
		}
		pthread_mutex_unlock(&tab->lock);
		pthread_mutex_unlock(&c->p->spawn_lock);
		if (!got)
			goto skip;
	} else {
		if (rpl_fdtab_get(tab, (long)fd, &e) < 0 || e.state != RPL_FD_LIVE)
			goto skip;
		rpl_proc_fd(proc, e.live);
		live = (int)RPL_CALL(c, open(proc, flags | FD_LINK_FLAGS, mode));
	}
	if (live >= 0)
		atomic_fetch_add(&c->p->fd_links, 1);
	map_result(c, op, live, flags, e.path);
	*r = live < 0 ? live : op->ev.ret >= 0 ? op->ev.ret : live;
	return 1;
skip:
	/* a descriptor the trace did not see opened (inherited), whose
	 * path the recorder wrote: the path, as before */
	if (why == RPL_SKIP_FD && op->ev.path && rpl_path_skip(NULL, op->ev.path) == 0)
		return 0;
	map_result(c, op, -1, flags, op->ev.path);
	*r = rpl_skip(op, why);
	return 1;
}

/*
 * An openat2 given resolve bits of its own (record/decode.c keeps them).
 * RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS and RESOLVE_NO_XDEV refuse
 * in the lookup from the root what they refused in the program's.
 * RESOLVE_BENEATH and RESOLVE_IN_ROOT confine the lookup to the directory
 * the call was given (its descriptor, or the working directory): the
 * name is looked up from that directory's live descriptor, as the path
 * recorded less the directory's, so an absolute symlink met there is
 * taken in that directory and a ".." out of it is refused, as recorded.
 * Where the directory has no live descriptor here, or the path is not
 * below its path, from the root without them.  RESOLVE_CACHED is left
 * out: what the kernel has cached is the machine's, and a lookup it
 * refused (EAGAIN) is not made again (plan_threads.c refused()).
 */
static int open_resolve(struct rpl_ctx *c, struct rpl_op *op, const char *p, int flags,
			mode_t mode, uint64_t resolve)
{
	const uint64_t confine = RESOLVE_BENEATH | RESOLVE_IN_ROOT;
	int dirfd = (int)op->ev.args[0], fd = -EBADF;
	struct rpl_fd e;
	size_t n;

	resolve &= ~(uint64_t)RESOLVE_CACHED;
	if (!(resolve & confine))
		return rpl_resolve_how(c->p->root_fd, p, flags, mode, resolve);
	if (dirfd == AT_FDCWD) {
		pthread_mutex_lock(&c->pr->cwd_lock);
		if (c->pr->cwd_fd > 0 && c->pr->cwd_path &&
		    (n = strlen(c->pr->cwd_path)) > 1 && strncmp(p, c->pr->cwd_path, n) == 0 &&
		    p[n] == '/')
			fd = rpl_open_below(c->pr->cwd_fd, p + n + 1, flags, mode, resolve);
		pthread_mutex_unlock(&c->pr->cwd_lock);
	} else if (rpl_fdtab_get(c->pr->tab, dirfd, &e) == 0 && e.state == RPL_FD_LIVE &&
		   e.path && (n = strlen(e.path)) > 1 && strncmp(p, e.path, n) == 0 &&
		   p[n] == '/') {
		fd = rpl_open_below(e.live, p + n + 1, flags, mode, resolve);
	}
	if (fd == -EBADF || fd == -EINVAL)
		fd = rpl_resolve_how(c->p->root_fd, p, flags, mode, resolve & ~confine);
	return fd;
}

static int64_t do_open(struct rpl_ctx *c, struct rpl_op *op, const char *path,
		       int flags, mode_t mode, uint64_t resolve)
{
	const char *p;
	struct rpl_name n;
	int64_t r;
	int fd;

	if (open_fd_link(c, op, flags, mode, &r))
		return r;
	p = rpl_op_path(c, op, path);
	if (!p) {
		map_result(c, op, -1, flags, path);
		return RPL_SKIPPED;
	}
	fd = -ENOENT - 1;
	if (resolve) {
		fd = RPL_TIMED(c, open_resolve(c, op, p, flags | O_NONBLOCK | O_NOCTTY, mode,
					       resolve));
	} else if (p == op->ev.path && rpl_parent_fd(c, op, &n) == 0) {
		fd = RPL_TIMED(c, rpl_open_name(n.dirfd, n.name, flags | O_NONBLOCK | O_NOCTTY,
						mode));
		/* only a plain answer, as rpl_open_at() takes */
		if (fd < 0 && fd != -ENOENT && fd != -EEXIST)
			fd = -ENOENT - 1;
	}
	if (fd == -ENOENT - 1) {
		/* timed whole, without the first try: a parent it opens
		 * stands for the lookup */
		uint32_t gen = atomic_load(&c->p->ns_gen);

		c->sys0 = 0;
		fd = RPL_TIMED(c, rpl_open_at(c, p, flags | O_NONBLOCK | O_NOCTTY, mode));
		/* a directory opened is offered as the parent it is, but
		 * O_TMPFILE has O_DIRECTORY's bit: a file made there, which
		 * the cache would have handed out as the directory (a link
		 * into it failed with ENOTDIR) */
		if (fd >= 0 && (flags & O_DIRECTORY) && !(flags & O_CREAT) &&
		    (flags & O_TMPFILE) != O_TMPFILE)
			rpl_dcache_offer(c, p, fd, gen);
	}
	if (fd == -ENXIO && op->ev.ret >= 0 && (flags & O_ACCMODE) == O_WRONLY)
		fd = fifo_writer(c, op, p, flags, mode);
	/* a working directory since removed, or its ".." (cwd.c) */
	if (fd == -ENOENT && op->ev.ret >= 0)
		fd = RPL_TIMED(c, rpl_cwd_open(c, p, flags | O_NONBLOCK));
	map_result(c, op, fd, flags, p);
	if (fd < 0)
		return fd;
	return op->ev.ret >= 0 ? op->ev.ret : fd;
}

static int64_t h_open(struct rpl_ctx *c, struct rpl_op *op)
{
	return do_open(c, op, op->ev.path, (int)op->ev.args[1], (mode_t)op->ev.args[2], 0);
}

static int64_t h_openat(struct rpl_ctx *c, struct rpl_op *op)
{
	uint64_t resolve = 0;
	int64_t r;

	/* openat2 failed on what its open_how holds past flags and mode
	 * (unknown resolve bits, the struct's size), which the replay does
	 * not pass on (stress-ng's open stressor): made again, it created
	 * the file and a descriptor the program never had.  Failed so here,
	 * before any lookup: unknown resolve bits, or a longer struct's
	 * tail. */
	if (op->ev.nr == SYS_openat2 && (op->ev.ret == -EINVAL || op->ev.ret == -E2BIG)) {
		uint64_t how[4] = { 0, 0, op->ev.ret == -EINVAL ? 1ULL << 63 : 0, 1 };

		return RPL_CALL(c, syscall(SYS_openat2, AT_FDCWD, "", how,
					   op->ev.ret == -EINVAL ? 24 : 32));
	}
	if (op->ev.nr == SYS_openat2 && op->ev.nargs > IOT_OPENAT2_RESOLVE)
		resolve = (uint64_t)op->ev.args[IOT_OPENAT2_RESOLVE];
	r = do_open(c, op, op->ev.path, (int)op->ev.args[2], (mode_t)op->ev.args[3], resolve);

	/* a walk opens the entries it listed relative to the directory */
	if (r >= 0 && (int)op->ev.args[0] != AT_FDCWD)
		rpl_dirwalk_opened(c->t, op->ev.args[0], op->ev.path);
	return r;
}

static int64_t h_creat(struct rpl_ctx *c, struct rpl_op *op)
{
	return do_open(c, op, op->ev.path, O_CREAT | O_WRONLY | O_TRUNC,
		       (mode_t)op->ev.args[1], 0);
}

static int64_t h_close(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_fd e;

	/* close(-1) failed when recorded and fails anywhere (EBADF), touching
	 * nothing: made again for its cost, so a loop of it takes as long.
	 * A negative descriptor closed with success is a trace's lie. */
	if (op->ev.args[0] < 0 && op->ev.ret == -EBADF)
		return RPL_TIMED(c, close(-1) < 0 ? -errno : 0);
	if (rpl_fdtab_get(c->pr->tab, (long)op->ev.args[0], &e) < 0)
		return rpl_skip(op, op->ev.args[0] < 0 ? RPL_SKIP_BADARG : RPL_SKIP_FD);
	/* the process's record locks of the file go with any close of it */
	rpl_plock_closing_fds(c->pr, (unsigned long)op->ev.args[0], (unsigned long)op->ev.args[0], 0);
	RPL_TIMED(c, rpl_fdtab_close(c->pr->tab, (long)op->ev.args[0]));
	return e.state == RPL_FD_LIVE ? 0 : rpl_skip(op, RPL_SKIP_FD);
}

static int64_t h_close_range(struct rpl_ctx *c, struct rpl_op *op)
{
	unsigned int flags = (unsigned int)op->ev.args[2];

	/* a range that ends before it starts, or unknown flags: failed,
	 * closing nothing, when recorded; failed so again for its cost (a
	 * range of the replayer's own descriptors never given) */
	if (op->ev.ret == -EINVAL)
		return RPL_TIMED(c, syscall(SYS_close_range, 1U, 0U, 0U) < 0 ? -errno : 0);
	if (flags & CLOSE_RANGE_UNSHARE) {
		/* The process stops sharing its table with others. */
		struct rpl_fdtab *copy = rpl_fdtab_copy(c->pr->tab);

		if (copy) {
			rpl_fdtab_unref(c->pr->tab);
			c->pr->tab = copy;
		}
	}
	/* closed, the process's record locks of their files go */
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		rpl_plock_closing_fds(c->pr, (unsigned long)op->ev.args[0],
				      (unsigned long)op->ev.args[1], 0);
	rpl_fdtab_close_range(c->pr->tab, (unsigned long)op->ev.args[0],
			      (unsigned long)op->ev.args[1], flags);
	return 0;
}

static int64_t do_dup(struct rpl_ctx *c, struct rpl_op *op, int cloexec)
{
	struct rpl_fd e;

	if (op->ev.ret < 0) {
		/* Failed when recorded: replay the failure's cost only. */
		int live = rpl_live_fd(c, op, op->ev.args[0]);
		int r;

		if (live < 0)
			return RPL_SKIPPED;
		r = fcntl(live, F_DUPFD_CLOEXEC, 0);
		if (r >= 0)
			close(r);
		/* the program's limit on descriptors, not the replayer's:
		 * EMFILE, or F_DUPFD's lowest one past it (EINVAL) */
		if (r >= 0 && (op->ev.ret == -EMFILE || op->ev.ret == -EINVAL))
			return op->ev.ret;
		return r < 0 ? -errno : 0;
	}
	if (op->ev.ret >= RPL_FD_MAX)
		return rpl_skip(op, RPL_SKIP_BADARG);
	/* what the new number held is closed: the process's record locks
	 * of that file go */
	if (op->ev.ret != op->ev.args[0])
		rpl_plock_closing_fds(c->pr, (unsigned long)op->ev.ret, (unsigned long)op->ev.ret, 0);
	if (rpl_fdtab_get(c->pr->tab, (long)op->ev.args[0], &e) < 0) {
		/* A descriptor the replay does not know (inherited: a
		 * shell's saved stdout) still replaced the new one when
		 * recorded: dup2(saved, 1) closes the file a redirection put
		 * there.  Left open, it would stay open for writing for the
		 * rest of the replay (and no remount to read-only could
		 * happen). */
		struct rpl_fd skip = { .state = RPL_FD_SKIP };

		if (op->ev.args[0] >= 0)
			rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &skip);
		return rpl_skip(op, op->ev.args[0] < 0 ? RPL_SKIP_BADARG : RPL_SKIP_FD);
	}
	if (rpl_fdtab_dup(c->pr->tab, (long)op->ev.args[0], (long)op->ev.ret, cloexec) < 0)
		return -EMFILE;
	return e.state == RPL_FD_LIVE ? op->ev.ret : rpl_skip(op, RPL_SKIP_FD);
}

static int64_t h_dup(struct rpl_ctx *c, struct rpl_op *op)
{
	return do_dup(c, op, 0);
}

static int64_t h_dup3(struct rpl_ctx *c, struct rpl_op *op)
{
	return do_dup(c, op, (op->ev.args[2] & O_CLOEXEC) != 0);
}

/*
 * Locks: flock() and fcntl()'s record locks (their struct flock recorded
 * since 2026-12-05, iot_fcntl_lock()).  The replay's threads are one
 * process, and a POSIX record lock is its process's: taken here as such,
 * every recorded process's lock would be the replayer's one, never in
 * another's way.  So a record lock is taken as a lock of the open file
 * (F_OFD_SETLK, F_OFD_GETLK: owned by the open the descriptor stands
 * for, as each recorded process's own opens are), and flock() is
 * already one; one open per process and file stands for the process's
 * record locks (plocks.c), so that its own locks never conflict, a
 * child's do with its parent's, and a close releases them.  The plan
 * orders the locks of a file as recorded
 * (plan_fds.c: a process that waited for another's unlock follows it,
 * one that was refused comes before it), so a lock the program waited
 * for (F_SETLKW, flock without LOCK_NB) is free by the time it is
 * taken.  Where it is not (a lock released by a close or an exit not in
 * the plan's order), it is taken
 * without waiting and tried again, as a FIFO's writer waits for its
 * reader (above): after 50 us, then less often, for four times as long
 * as the recorded call took and at least a second; then the call fails
 * with EAGAIN, a mismatch, instead of hanging the replay.
 */
static int64_t take_lock(struct rpl_ctx *c, struct rpl_op *op, int live, int is_flock,
			 int how, struct flock *fl, int wait)
{
	int64_t until = 0, r;
	struct timespec ts = { 0, FIFO_TRY_NS };

	for (;;) {
		r = is_flock ? RPL_CALL(c, flock(live, how | LOCK_NB)) :
			       RPL_CALL(c, fcntl(live, F_OFD_SETLK, fl));
		if (!wait || (r != -EAGAIN && r != -EWOULDBLOCK && r != -EACCES) ||
		    atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed))
			return r;
		if (!until)
			until = iot_now_ns() + try_again_ns(op);
		else if (iot_now_ns() >= until)
			return -EAGAIN;
		back_off(&ts);
	}
}

static int64_t h_flock(struct rpl_ctx *c, struct rpl_op *op)
{
	int how = (int)op->ev.args[1], live = rpl_live_fd(c, op, op->ev.args[0]);

	if (live < 0)
		return RPL_SKIPPED;
	/* taken with LOCK_NB always; LOCK_UN and LOCK_NB never waited */
	return take_lock(c, op, live, 1, how & ~LOCK_NB, NULL, !(how & (LOCK_NB | LOCK_UN)));
}

int rpl_op_flock(const struct rpl_op *op, struct flock *fl)
{
	int64_t type = op->ev.args[IOT_FLOCK_TYPE];

	if (op->ev.nargs < IOT_FLOCK_NARGS || type == -1)
		return -1;
	memset(fl, 0, sizeof(*fl));
	fl->l_type = (short)(uint16_t)type;
	fl->l_whence = (short)(uint16_t)((uint64_t)type >> 16);
	fl->l_start = (off_t)op->ev.args[IOT_FLOCK_START];
	fl->l_len = (off_t)op->ev.args[IOT_FLOCK_LEN];
	return 0;
}

/* fcntl's record locks (see take_lock()) */
static int64_t fcntl_lock(struct rpl_ctx *c, struct rpl_op *op, int cmd)
{
	struct flock fl;
	int live;

	/* (l_pid 0, as a lock of the open must have it) */
	if (rpl_op_flock(op, &fl) < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);	/* its struct not recorded */
	live = rpl_live_fd(c, op, op->ev.args[0]);
	if (live < 0)
		return RPL_SKIPPED;
	/* a POSIX lock is its process's (plocks.c); an OFD lock its open's.
	 * The open that holds a process's locks may read and write: a lock
	 * its own descriptor cannot take, the kernel refuses (EBADF: a
	 * write lock through O_RDONLY, SQLite's in tracker, 76 a replay) */
	if (cmd == F_SETLK || cmd == F_SETLKW) {
		int acc = fcntl(live, F_GETFL);

		if (acc >= 0 && ((fl.l_type == F_WRLCK && (acc & O_ACCMODE) == O_RDONLY) ||
				 (fl.l_type == F_RDLCK && (acc & O_ACCMODE) == O_WRONLY)))
			return RPL_CALL(c, fcntl(live, F_OFD_SETLK, &fl));
	}
	if (cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW)
		live = rpl_plock_fd(c, live);
	if (cmd == F_GETLK || cmd == F_OFD_GETLK)
		return RPL_CALL(c, fcntl(live, F_OFD_GETLK, &fl));
	return take_lock(c, op, live, 0, 0, &fl,
			 (cmd == F_SETLKW || cmd == F_OFD_SETLKW) && fl.l_type != F_UNLCK);
}

static int64_t h_fcntl(struct rpl_ctx *c, struct rpl_op *op)
{
	int cmd = (int)op->ev.args[1], live;
	long r;

	if (iot_fcntl_lock(cmd))
		return fcntl_lock(c, op, cmd);
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return do_dup(c, op, cmd == F_DUPFD_CLOEXEC);
	case F_SETFD:
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		rpl_fdtab_set_cloexec(c->pr->tab, (long)op->ev.args[0],
				      (op->ev.args[2] & FD_CLOEXEC) != 0);
		return 0;
	case F_GETFD:
	case F_GETFL:
	case F_GETOWN:
	case F_GETSIG:
	case F_GETLEASE:
	case F_GETPIPE_SZ:
	case F_GET_SEALS:
		/* questions: asked again of the replay's descriptor */
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		r = fcntl(live, cmd);
		if (r < 0)
			return -errno;
		return op->ev.ret >= 0 ? op->ev.ret : r;
	case F_SETFL:
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		/* Keep O_NONBLOCK: see the top of this file. */
		r = fcntl(live, F_SETFL, (int)op->ev.args[2] | O_NONBLOCK);
		return r < 0 ? -errno : r;
	case F_SETPIPE_SZ:
		/* a pipe's capacity decides when its writer waits */
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		r = RPL_CALL(c, fcntl(live, F_SETPIPE_SZ, (int)op->ev.args[2]));
		return r >= 0 && op->ev.ret >= 0 ? op->ev.ret : r;
	case F_ADD_SEALS:
		/* a memfd's seals refuse what the program did after them (a
		 * write, a truncate, growing it: EPERM), so they go on the
		 * replay's memfd too (make_memfd() allows them where the
		 * program's did).  One refused as busy when recorded (EBUSY:
		 * a writable mapping of it, which the replay does not hold)
		 * is not tried: here it would be taken. */
		if (op->ev.ret == -EBUSY)
			return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		return RPL_CALL(c, fcntl(live, F_ADD_SEALS, (int)op->ev.args[2]));
	case IOT_F_SET_RW_HINT:
	case IOT_F_SET_FILE_RW_HINT: {
		/* a write hint (the inode's data lifetime: RocksDB sets one on
		 * each table and log it writes, 141-212 calls of db_bench left
		 * out as unsupported before): the 64 bits the trace kept since
		 * 2026-12-08, a trace from before has none.  RocksDB 7.8 passes
		 * a pointer to an int, so the kernel reads 4 bytes of its stack
		 * past it and refuses the value (EINVAL): the replay passes the
		 * same bits, refused alike.  One refused EFAULT gets no pointer. */
		uint64_t v;

		if (op->ev.nargs < IOT_HINT_NARGS)
			return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		v = (uint64_t)op->ev.args[IOT_HINT_VALUE];
		return RPL_CALL(c, fcntl(live, cmd, op->ev.ret == -EFAULT ? NULL : &v));
	}
	case IOT_F_SET_RW_HINT - 1:
	case IOT_F_SET_FILE_RW_HINT - 1: {
		/* F_GET_RW_HINT, F_GET_FILE_RW_HINT: asked again */
		uint64_t v;

		live = rpl_live_fd(c, op, op->ev.args[0]);
		if (live < 0)
			return RPL_SKIPPED;
		r = fcntl(live, cmd, &v);
		if (r < 0)
			return -errno;
		return op->ev.ret >= 0 ? op->ev.ret : r;
	}
	}
	/* leases, owners, signals (their value behind a pointer): not
	 * replayed; a lease or a notice would signal the replayer itself.
	 * On a descriptor the replay does not have (a device's), counted
	 * with its other calls, as an ioctl is (ops_io.c h_ioctl()). */
	if (rpl_live_fd(c, op, op->ev.args[0]) < 0)
		return RPL_SKIPPED;
	return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
}

/* A socket pair is two ends that each read what the other wrote: a pair
 * of pipes to the plan (plan_pipes.c), a real pair here, non-blocking as pipes
 * are.  Only AF_UNIX makes pairs the replay can stand for; the type
 * (stream, datagram, seqpacket) is kept.  @return : 0, -errno, or 1
 * for a pair of another kind. */
static int make_pair(const struct rpl_op *op, int fds[2])
{
	int flags = op->ev.nr == SYS_pipe2 ? (int)op->ev.args[1] : 0;
	int type = (int)op->ev.args[1] & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (op->ev.nr != SYS_socketpair)
		return pipe2(fds, O_CLOEXEC | O_NONBLOCK | (flags & O_DIRECT)) < 0 ? -errno : 0;
	if (op->ev.args[0] != AF_UNIX ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_SEQPACKET))
		return 1;
	return socketpair(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0 ? -errno : 0;
}

static int64_t h_pipe(struct rpl_ctx *c, struct rpl_op *op)
{
	int at = iot_syscall_arg(iot_syscall_by_nr(op->ev.nr), IOT_ARG_FDPAIR);
	int32_t r0 = (int32_t)(op->ev.args[at] & 0xffffffff);
	int32_t r1 = (int32_t)((uint64_t)op->ev.args[at] >> 32);
	/* SOCK_CLOEXEC is O_CLOEXEC, in the same argument as pipe2's */
	struct rpl_fd e = { .state = RPL_FD_LIVE,
			    .cloexec = op->ev.nr != SYS_pipe && (op->ev.args[1] & O_CLOEXEC) };
	int fds[2], r;

	if (op->ev.ret < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	if (r0 < 0 || r1 < 0 || r0 >= RPL_FD_MAX || r1 >= RPL_FD_MAX)
		return rpl_skip(op, RPL_SKIP_BADARG);
	r = make_pair(op, fds);
	if (r > 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	if (r < 0)
		return r;
	e.live = fds[0];
	rpl_fdtab_set(c->pr->tab, r0, &e);
	e.live = fds[1];
	rpl_fdtab_set(c->pr->tab, r1, &e);
	return 0;
}

/* MFD_NOEXEC_SEAL (Linux 6.3): not executable, sealed so, and sealable */
#define MEMFD_NOEXEC_SEAL 0x0008U

/* A file with no name (memfd_create): made again, as anonymous, under
 * the recorded number; it is in no filesystem, the replay's as the
 * program's was, so its reads and writes are replayed on it and reach no
 * file under the root, nor outside it.  Sealable where the program's
 * was: MFD_ALLOW_SEALING, or MFD_NOEXEC_SEAL, which allows seals too
 * (h_fcntl() adds them); a kernel without the latter is asked for the
 * former. */
static int64_t make_memfd(struct rpl_ctx *c, const struct rpl_op *op)
{
	unsigned fl = (unsigned)op->ev.args[1] & (MFD_ALLOW_SEALING | MEMFD_NOEXEC_SEAL);
	int64_t r = RPL_CALL(c, memfd_create("iotape-replay", MFD_CLOEXEC | fl));

	if (r == -EINVAL && (fl & MEMFD_NOEXEC_SEAL))
		r = RPL_CALL(c, memfd_create("iotape-replay", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	return r;
}

static int64_t h_memfd(struct rpl_ctx *c, struct rpl_op *op)
{
	return rpl_anon_fd(c, op, ((unsigned)op->ev.args[1] & MFD_CLOEXEC) != 0, make_memfd);
}

void rpl_ops_file(rpl_handler *h)
{
	h[SYS_open] = h_open;
	h[SYS_openat] = h_openat;
	h[SYS_openat2] = h_openat;
	h[SYS_creat] = h_creat;
	h[SYS_close] = h_close;
	h[SYS_close_range] = h_close_range;
	h[SYS_dup] = h_dup;
	h[SYS_dup2] = h_dup;
	h[SYS_dup3] = h_dup3;
	h[SYS_fcntl] = h_fcntl;
	h[SYS_flock] = h_flock;
	h[SYS_pipe] = h_pipe;
	h[SYS_sendmsg] = rpl_msg_rw;
	h[SYS_recvmsg] = rpl_msg_rw;
	h[SYS_pipe2] = h_pipe;
	h[SYS_socketpair] = h_pipe;
	h[SYS_memfd_create] = h_memfd;
}
