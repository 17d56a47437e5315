/*
 * rpl_exec.h - the replayer's execution: per-thread contexts, record
 * locks, async I/O, mapped pages, sockets, credentials, the umask and
 * faults of the filesystem under test (rpl.h's part on execution).
 * Included by rpl.h only, at its place there (what comes before it in
 * rpl.h is in scope).
 */
#ifndef RPL_RPL_EXEC_H
#define RPL_RPL_EXEC_H

/* ---- execution ---- */

/* Per-thread context of the executor. */
struct rpl_ctx {
	struct rpl_plan *p;
	struct rpl_thread *t;
	struct rpl_proc *pr;
	char *scratch;			/* RPL_SCRATCH bytes, page aligned */
	int64_t sys0, sys1;		/* the op's own calls: first start, last end */
	uint32_t pos;			/* the op's position in its thread (t->ops[pos]) */
};

/* cwd.c: a process's working directory, kept open for when it is removed:
 * set (taking @fd), copied to a child, closed; and @path, that directory or
 * its "..", opened through it with @flags (no O_CREAT, no O_TRUNC), or
 * -ENOENT */
void rpl_cwd_set(struct rpl_ctx *c, int fd, const char *path);
void rpl_cwd_inherit(struct rpl_proc *pr, struct rpl_proc *parent);
void rpl_cwd_drop(struct rpl_proc *pr);

/*! rpl_fork_closes() : into @fc, the closes that other threads of the
 *  process forking @t's process (@t its first thread) began before the
 *  recorded fork had copied the table (@t->copied_ns) and have not run
 *  here yet (fork_fds.c); at most RPL_FORK_CLOSES; none where the
 *  process has one thread or its threads are not listed (the run lists
 *  them: rpl_proc_threads()).  Called before the copy of the table: an op
 *  run after it may have closed its descriptor after the copy. */
void rpl_fork_closes(struct rpl_plan *p, const struct rpl_thread *t, struct rpl_fork_closes *fc);
/*! rpl_fork_wait_makers() : before the table of @t's process is copied
 *  from its parent's: wait until the parent's other threads have run the
 *  calls that made a descriptor and returned before the recorded clone
 *  began (fork_fds.c) */
void rpl_fork_wait_makers(struct rpl_plan *p, const struct rpl_thread *t);
/*! rpl_fork_wait_copies() : before @op of @t closes a descriptor, wait
 *  until the children that the other threads of @t's process forked, and
 *  whose recorded clone returned before @op began, have their copy of the
 *  table (fork_fds.c) */
void rpl_fork_wait_copies(struct rpl_plan *p, const struct rpl_thread *t, const struct rpl_op *op);

/* ---- plocks.c: POSIX record locks, each recorded process's own ---- */
struct rpl_plocks;
/* rpl_plock_fd() : the descriptor a record lock of the running process
 * is taken on for the file @live has open (its process's own open of
 * it, made at its first use; @live where none can be made). */
int rpl_plock_fd(struct rpl_ctx *c, int live);
/* rpl_plock_closing_fds() : @pr is closing its recorded descriptors
 * @first to @last (@cloexec: those of them that close on exec; a close,
 * a close_range, a dup2 onto one, an exec), before they close: its locks
 * of their files go. */
void rpl_plock_closing_fds(struct rpl_proc *pr, unsigned long first, unsigned long last,
			   int cloexec);
/* rpl_plock_drop() : @pr ended: its locks go. */
void rpl_plock_drop(struct rpl_proc *pr);
int rpl_cwd_open(struct rpl_ctx *c, const char *path, int flags);

/* RPL_CALL(c, call): make the op's own syscall, timed.  @return : its
 * result, or -errno.  The profile's times and the schedule are those of
 * the calls the op makes on the filesystem, not of the replayer's work
 * around them (looking up caches and descriptor maps, opening a parent
 * directory), so that the schedule can hide that work in think time. */
#define RPL_CALL(c, call) __extension__ ({				\
	int64_t t0_ = iot_now_ns();					\
	long r_ = (long)(call);						\
	int e_ = errno;							\
	rpl_called((c), t0_);						\
	r_ < 0 ? -(int64_t)e_ : (int64_t)r_;				\
})

static inline void rpl_called(struct rpl_ctx *c, int64_t t0)
{
	if (!c->sys0)
		c->sys0 = t0;
	c->sys1 = iot_now_ns();
}

/* RPL_TIMED(c, expr): as RPL_CALL, for a helper that makes the op's
 * call and returns its result itself (-errno, not errno). */
#define RPL_TIMED(c, expr) __extension__ ({				\
	int64_t t0_ = iot_now_ns();					\
	__typeof__(expr) v_ = (expr);					\
	rpl_called((c), t0_);						\
	v_;								\
})

#define RPL_SCRATCH (1 << 20)
#define RPL_IO_MAX (256LL << 20)	/* largest transfer one call replays */

/*
 * The closed-loop schedule of one replay thread (exec_thread.c explains it):
 * @lag : how much later than ideal its calls have started, in all, not
 * yet made up.  An op whose call should ideally start at @ideal (the
 * previous call's end plus think time) is started at rpl_sched_start();
 * once it ran, rpl_sched_ran() takes when its call really started.
 */
struct rpl_sched {
	int64_t lag;
};

static inline int64_t rpl_sched_start(const struct rpl_sched *s, int64_t ideal)
{
	return ideal - s->lag;
}

static inline void rpl_sched_ran(struct rpl_sched *s, int64_t ideal, int64_t started)
{
	s->lag += started - ideal;
	if (s->lag < 0)
		s->lag = 0;
}

/*
 * How long a thread was kept off the CPU from @wall0 to @wall1 (the wall
 * clock), its CPU clock reading @cpu0 and @cpu1 there: the wall time its
 * CPU clock did not advance.  From a call's end to the spin of the next
 * think time this is the workload's time, as the spin's own (exec_thread.c):
 * a program preempted there computes later.
 */
static inline int64_t rpl_sched_offcpu(int64_t wall0, int64_t cpu0, int64_t wall1, int64_t cpu1)
{
	int64_t off = (wall1 - wall0) - (cpu1 - cpu0);

	return off > 0 ? off : 0;
}

/* A handler replays one op: @return : the result (>= 0 or -errno), or
 * RPL_SKIPPED after setting op->skip. */
#define RPL_SKIPPED INT64_MIN
typedef int64_t (*rpl_handler)(struct rpl_ctx *c, struct rpl_op *op);

/* The handler of syscall @nr, or NULL (ops_table.c); the first call fills
 * rpl_handlers[], which the executor then reads directly. */
rpl_handler rpl_handler_for(int nr);
extern rpl_handler rpl_handlers[RPL_MAX_NR];
/* Family tables: fill h[nr] for the syscalls each file handles. */
void rpl_ops_file(rpl_handler *h);
void rpl_ops_io(rpl_handler *h);
void rpl_ops_meta(rpl_handler *h);
void rpl_ops_xattr(rpl_handler *h);
void rpl_ops_dir(rpl_handler *h);
void rpl_ops_proc(rpl_handler *h);
void rpl_ops_aio(rpl_handler *h);
void rpl_ops_uring(rpl_handler *h);
void rpl_ops_wait(rpl_handler *h);

/*! rpl_wait_sleep_ns() : what a WAIT op (ops_wait.c) sleeps in the replay.
 *  @return : its recorded duration, no longer than its relative timeout,
 *  where it ended by that timeout; -1 where it returned for an event or a
 *  signal (left to the plan's order) or is no wait. */
int64_t rpl_wait_sleep_ns(const struct rpl_ev *ev);

/*! rpl_wait_timeout_ns() : the relative timeout WAIT op @ev was given, in
 *  ns (ops_wait.c).  @return : it, or -1: none, absolute, or no WAIT op */
int64_t rpl_wait_timeout_ns(const struct rpl_ev *ev);
/*! rpl_timed_ns() : a recorded time @ns as the replay's timing plays it:
 *  none under afap, multiplied under scale, as recorded otherwise. */
static inline int64_t rpl_timed_ns(const struct rpl_opts *o, int64_t ns)
{
	if (o->timing == RPL_TIMING_AFAP)
		return 0;
	if (o->timing == RPL_TIMING_SCALE)
		return (int64_t)((double)ns * o->scale);
	return ns;
}

/*! rpl_sleep_until() : sleep until @t (the monotonic clock) as a wait
 *  the replay sleeps (ops_wait.c, aio.c); a stop (SIGINT) ends it.
 *  @return : 0, or -EINTR if stopped. */
int64_t rpl_sleep_until(int64_t t);

/*! rpl_wait_until() : wait until @t (the monotonic clock), asleep but for
 *  its last RPL_SPIN_NS, spun; a stop ends the wait (it may be a long
 *  think time).
 *  @return : 0, or 1 if stopped. */
int rpl_wait_until(int64_t t);

/* ---- async I/O (aio.c, uring.c) ---- */
/*! rpl_aio_collect() : keep AsyncOp @a read from the trace, tied to the
 *  op of its event.  @return : 0 or -ENOMEM. */
int rpl_aio_collect(struct rpl_plan *p, const struct iot_aio *a);
/*! rpl_aio_tally() : the async counts of @res. */
void rpl_aio_tally(struct rpl_plan *p, struct rpl_result *res);
/*! rpl_aio_ring_key() : the key of @a's ring or libaio context (in
 *  plan.aio_ring, and aio_depth.c's): its process and its descriptor. */
uint64_t rpl_aio_ring_key(const struct iot_aio *a);
/*! rpl_aio_depth() : the requests in flight, recorded and replayed, into
 *  @res (aio_depth.c says how they are counted). */
void rpl_aio_depth(const struct rpl_plan *p, struct rpl_result *res);
/*! rpl_aio_wait_seen() : a wait for completions began with @inflight
 *  requests in flight, in the recording (@replay 0) or the replay. */
void rpl_aio_wait_seen(struct rpl_plan *p, int replay, uint64_t inflight);
/*! rpl_aio_fault() : request @ra, reaped by @op, failed with a fault of
 *  the filesystem under test: stop as for a failed call. */
void rpl_aio_fault(struct rpl_ctx *c, struct rpl_op *op, const struct rpl_aio *ra);
/*! rpl_aio_profile() : write to profile @w the async records of @op,
 *  written as the profile's event @event: its requests, set-ups and
 *  registrations as the replay made them (those it could not make are
 *  left out), at the op's entry (@t_ns, its call's start in the replay),
 *  and the completions it reaped, with their results and the time the
 *  replay saw them.  The first call indexes the completions by the op
 *  that reaped them.
 *  @return : 0 or a negative code of the writer. */
int rpl_aio_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		    int64_t t_ns, uint64_t event);
/*! rpl_aio_await() : before @op (a close, munmap or exit, not an
 *  io_uring_enter, which waits itself): the io_uring requests whose
 *  completions the recording saw there are waited for here too (after
 *  those a polling ring took, rpl_uring_submit_polled()). */
void rpl_aio_await(struct rpl_ctx *c, struct rpl_op *op);
/* free every process's contexts and rings */
void rpl_aio_free(struct rpl_plan *p);

/* ---- pages of file mappings (mpages.c) ---- */
#define RPL_MP_DONE	0x100	/* iot_mpages.flags: replayed */
#define RPL_MP_FAILED	0x200	/* ... could not be */
#define RPL_MP_LOOSE	0x400	/* ... its event another thread's: rpl_mpages_tie() */
/*! rpl_mpages_collect() : keep MapPages @m, tied to the op of its event. */
int rpl_mpages_collect(struct rpl_plan *p, const struct iot_mpages *m);
/*! rpl_mpages_tie() : after the last event read, in file order: pages whose
 *  event is another thread's tied to their own thread's exec or exit. */
void rpl_mpages_tie(struct rpl_plan *p);
/*! rpl_path_plain() : absolute @path of @len bytes with its "." and
 *  ".." components taken out, lexically, in place (clean.c).  @return :
 *  its new length. */
size_t rpl_path_plain(char *path, size_t len);
/*! rpl_mp_taken_here() : does @op carry pages taken by its own call (a
 *  munmap, msync, mremap, exit or exec), which stay in its recorded place?
 *  Pages moved to an op of the gap that held them (rpl_mpages_plan())
 *  go with that op, wherever a walk takes its path (dirwalk.c). */
int rpl_mp_taken_here(const struct rpl_op *op);
/*! rpl_mpages_plan() : after rpl_plan_think(): tie each op's pages to the
 *  op of its thread with the longest gap since their mappings were made
 *  (mpages.c). */
void rpl_mpages_plan(struct rpl_plan *p);
/*! rpl_mpages_run() : read and write the pages tied to @op. */
void rpl_mpages_run(struct rpl_ctx *c, struct rpl_op *op);
void rpl_mpages_tally(struct rpl_plan *p, struct rpl_result *res);
/*! rpl_mpages_profile() : write to profile @w the pages @op read and
 *  wrote (those of its MapPages records it replayed), as records of the
 *  profile's event @event at the op's exit (@t_ns, its call's end in the
 *  replay).  @return : 0 or a negative code of the writer. */
int rpl_mpages_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		       int64_t t_ns, uint64_t event);
/*! rpl_mpages_mmap() : replayed mmap, munmap and msync: an mmap of a
 *  file keeps a copy of its descriptor for the pages taken later (the
 *  name may be gone by then), a munmap drops those it unmaps.  The call
 *  itself is not made: @return : RPL_SKIPPED (RPL_SKIP_MMAP). */
int64_t rpl_mpages_mmap(struct rpl_ctx *c, struct rpl_op *op);
/*! rpl_mpages_fork() : @pr, forked without CLONE_VM, gets a copy of its
 *  parent's file mappings: with @dup, of their descriptors (F_DUPFD); else
 *  the same numbers, which the child's own kernel table holds since it
 *  was copied.  The caller holds plan.aio_lock.  @return : 0 or -ENOMEM */
int rpl_mpages_fork(struct rpl_plan *p, struct rpl_proc *pr, int dup);
/*! rpl_mpages_fds() : the descriptors @pr's mappings hold, into *@v
 *  (malloc'd; NULL if none) and *@n.  @return : 0 or -ENOMEM */
int rpl_mpages_fds(const struct rpl_proc *pr, int **v, uint32_t *n);
/*! rpl_mpages_exec() : a successful execve of @c's process: its file
 *  mappings are gone, and their copies of descriptors closed. */
void rpl_mpages_exec(struct rpl_ctx *c);
void rpl_mpages_free(struct rpl_plan *p);

/* A context (libaio) or ring (io_uring) of a replayed process. */
struct rpl_actx {
	uint32_t api;
	uint64_t rec;			/* recorded aio_context_t or ring fd */
	uint64_t live;			/* live aio_context_t */
	void *ring;			/* struct io_uring * */
	int ring_fd;
	uint32_t inflight;
	uint32_t depth;			/* io_uring: most in flight when recorded; 0: unknown */
	uint64_t rec_sub, rec_done;	/* io_uring: requests submitted and completions
					 * seen when recorded, up to the op replayed */
	void **bufs;			/* registered buffers (io_uring) */
	uint64_t *buf_len;
	uint32_t n_bufs;
	pthread_mutex_t lock;		/* one call on it at a time */
};

#define RPL_AIO_BUF (8 << 20)
#define RPL_AIO_IOVS 64		/* iovecs of a vectored request replayed */

/* the context @api/@rec of @c's process, or NULL; created if @make */
struct rpl_actx *rpl_actx_get(struct rpl_ctx *c, uint32_t api, uint64_t rec, int make);
void rpl_actx_drop(struct rpl_ctx *c, uint32_t api, uint64_t rec);
/*! rpl_aio_buf() : where async request @a writes from (the bytes
 *  `record --data` kept, or plan.aio_buf) or reads into (its own bytes
 *  of plan.aio_rbuf while it is in flight); *@cap its length. */
char *rpl_aio_buf(struct rpl_plan *p, const struct iot_aio *a, uint64_t *cap);
/*! rpl_aio_iovs() : the iovecs of vectored request @a (its recorded
 *  lengths, at most RPL_AIO_IOVS) laid end to end in @buf of @cap bytes,
 *  into @iov; none reaches past @cap.  @return : how many. */
struct iovec;
uint32_t rpl_aio_iovs(const struct iot_aio *a, char *buf, uint64_t cap, struct iovec *iov);
/*! rpl_aio_plan_buf() : plan.aio_buf made (aio.c says why before the
 *  run).  @return : 0 or -errno */
int rpl_aio_plan_buf(struct rpl_plan *p);
void rpl_uring_free(struct rpl_actx *x);
#define RPL_RING_REGS 16	/* IO_RINGFD_REG_MAX */
/* rpl_aio_reg_get() : the recorded ring descriptor that registered index
 * @idx names in @c's process (*@live: the replay's index), or -1;
 * rpl_aio_reg_set() : @idx names @rec (-1: none) */
int64_t rpl_aio_reg_get(struct rpl_ctx *c, uint32_t idx, uint32_t *live);
void rpl_aio_reg_set(struct rpl_ctx *c, uint32_t idx, int64_t rec, uint32_t live);
/* rpl_uring_submit_polled() : before @op (not an io_uring_enter): the
 * requests recorded after it, which a ring in SQPOLL mode took with no
 * call of the program's, submitted through the replay's ring (which
 * does not poll) */
void rpl_uring_submit_polled(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_uring_await() : with @x locked, wait until the requests of the
 * completions among @op's records [@from, @to) are complete here */
void rpl_uring_await(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x,
		     uint32_t from, uint32_t to);
/* rpl_uring_drain() : with @x locked, at the ring's end: wait until no
 * more requests are in flight here than were when recorded */
void rpl_uring_drain(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x);

/* rpl_subvol() : btrfs's subvolume ioctls, made here on btrfs, else
 * emulated (ops_subvol.c) */
int64_t rpl_subvol(struct rpl_ctx *c, struct rpl_op *op);

/* helpers for handlers (ops_common.c) */
int64_t rpl_skip(struct rpl_op *op, int why);
/* The live fd of recorded fd @fd, or -1 after setting op->skip. */
int rpl_live_fd(struct rpl_ctx *c, struct rpl_op *op, int64_t fd);
/* As rpl_live_fd(), and *@e gets the whole entry. */
int rpl_live_fd_entry(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, struct rpl_fd *e);
/* As rpl_live_fd(), and *@marks gets the entry's RPL_FD_CLONE_* and
 * RPL_FD_EVENTFD flags. */
int rpl_live_fd_marks(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, int *marks);
/* The op's path, or NULL after setting op->skip (none, pseudo, excluded). */
const char *rpl_op_path(struct rpl_ctx *c, struct rpl_op *op, const char *path);
/* Deterministic, incompressible bytes for writes (RPL_SCRATCH long). */
const char *rpl_wbuf(void);
/* "/proc/thread-self/fd/@fd" into @buf (32 bytes at least): a path
 * naming a descriptor, without snprintf() (~700 instructions) */
void rpl_proc_fd(char *buf, int fd);
/* What @op's write writes: zeros where the program wrote zeros
 * (IOT_EV_ZERO), else rpl_wbuf(); RPL_SCRATCH long. */
const char *rpl_wbuf_of(const struct rpl_op *op);
/* A descriptor of no file (an eventfd, a memfd) made again by @make (a
 * live descriptor, or -errno) under @op's recorded result; a failed or
 * out-of-range one is skipped.  @return : as a handler's. */
int64_t rpl_anon_fd(struct rpl_ctx *c, struct rpl_op *op, int cloexec,
		    int64_t (*make)(struct rpl_ctx *c, const struct rpl_op *op));
/*! rpl_starts_open() : make the program a process start runs (spawn.c)
 *  into p->start_fd (-errno if it cannot be made: the starts then fail,
 *  and are counted).  rpl_starts_close() : close it. */
void rpl_starts_open(struct rpl_plan *p);
void rpl_starts_close(struct rpl_plan *p);
/*! rpl_start_process() : run that program, natively, and wait for it: a
 *  process start.  @return : 0, or -errno. */
int64_t rpl_start_process(struct rpl_plan *p);
/*! rpl_spin_wanted() : a think time of @ns is spent as CPU time (spin.c:
 *  --think cpu, a timing that budgets think time by CPU time, longer than
 *  the wall-clock spin that ends every wait anyway).
 *  rpl_spin_cpu() : run until this thread has used @ns more CPU time
 *  than @cpu0, its CPU clock read by the caller (or < 0: read here),
 *  yielding the CPU while @p has a hand-over pending (plan.handovers,
 *  plan.wake_seq moved).  @return : 0, or 1 if the replay was asked to
 *  stop. */
#define RPL_SPIN_MIN_NS 50000
int rpl_spin_wanted(const struct rpl_plan *p, int64_t ns);
int rpl_spin_cpu(struct rpl_plan *p, int64_t ns, int64_t cpu0);
/*! rpl_woke() : a sleeping thread of the replay was woken: spinning
 *  threads yield once to it. */
static inline void rpl_woke(struct rpl_plan *p)
{
	atomic_fetch_add_explicit(&p->wake_seq, 1, memory_order_relaxed);
}
/* Pipes and sockets (ops_pipe.c): rpl_pipe_nothing() : @op moved nothing
 * when recorded (EAGAIN), and is not made.  rpl_pipe_rest() : after the
 * replayed call's result @r on live @fd (a read or write at the file
 * position), move the rest of what @op moved when recorded, waiting for
 * the other end.  @return : the bytes moved, or @r. */
int rpl_pipe_nothing(const struct rpl_op *op);
int64_t rpl_pipe_rest(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r, int wr);
/* ops_io.c: rpl_copy_range() : @len bytes (0: to its end) from @soff of
 *  @in to @doff of @out, as a program whose clone failed copies them:
 *  copy_file_range, else reads and writes through @c's scratch.
 *  @return : 0, or -errno */
int rpl_copy_range(struct rpl_ctx *c, int in, int out, loff_t soff, loff_t doff, uint64_t len);
/* ops_sock.c: rpl_conn_name() : before connect @op (RPL_OPF_CONNQ)
 *  connects live socket @sock, a name for it that its accept knows it
 *  by.  rpl_conn_made() : it connected: its accept takes the connection
 *  of that socket. */
void rpl_conn_name(struct rpl_ctx *c, const struct rpl_op *op, int sock);
void rpl_conn_made(struct rpl_ctx *c, const struct rpl_op *op, int sock);
/* rpl_conn_courier() : the courier of kept connections made (before any
 * thread copies the replayer's kernel table), where the plan pairs
 * connects with accepts; rpl_conn_courier_close() : it closed. */
void rpl_conn_courier(struct rpl_plan *p);
void rpl_conn_courier_close(struct rpl_plan *p);
/* rpl_pipe_gone_first() : before a write that met EPIPE when recorded,
 * the end of the process whose descriptors closed its reading end
 * (RPL_OPF_WAITS: plan_pipes.c rpl_sent_into()). */
void rpl_pipe_gone_first(struct rpl_ctx *c, const struct rpl_op *op);
/* rpl_pipe_reader() : a new read end of the pipe whose write end is live
 * @fd (RPL_OPF_LATE_READER), to be closed by the caller, or -1. */
int rpl_pipe_reader(int fd);
/* rpl_msg_got_fds() : the descriptors a received message @m carried,
 * into @live (up to @max; those beyond are closed).  @return : how many
 * were kept. */
struct msghdr;
int rpl_msg_got_fds(const struct msghdr *m, int *live, int max);
/* rpl_pipe_move() : @op's splice or tee of @n bytes from live @in to live
 * @out, waiting for its pipes where it moved bytes when recorded.
 * @return : its result, or -errno. */
int64_t rpl_pipe_move(struct rpl_ctx *c, struct rpl_op *op, int in, int out, size_t n);
/* rpl_sendfile_rest() : @op's sendfile of @n bytes from @in (at *@off,
 * or its offset) into @out, whose first try gave @r (EAGAIN: a full pipe
 * of the replay's, or fewer bytes than recorded): the rest of what it
 * moved when recorded, waiting for room as a write does.  @return : the
 * bytes moved, or @r. */
int64_t rpl_sendfile_rest(struct rpl_ctx *c, struct rpl_op *op, int out, int in, off_t *off,
			  size_t n, int64_t r);
/* rpl_fd_is_stream() : is live descriptor @fd a pipe or a socket (not a
 * file, where short is short)? */
int rpl_fd_is_stream(int fd);
/* rpl_msg_rw() : @op's sendmsg or recvmsg, with the descriptors its
 * message carried (ops_pipe.c). */
int64_t rpl_msg_rw(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_wait_again() : after an EAGAIN of @op's call on @pfd's descriptor,
 * wait (20 ms at most) for it to be ready, unless the replay is stopping
 * or the wait is given up, as a pipe's is (ops_pipe.c).  @return : 1 to
 * make the call again, else 0. */
struct pollfd;
int rpl_wait_again(struct rpl_ctx *c, const struct rpl_op *op, struct pollfd *pfd,
		   int64_t *deadline);
/* ---- ops_sock.c: Unix sockets with names ---- */
struct sockaddr_un;
/* rpl_sock_live() : the replay's own socket for descriptor @fd of the
 * running process, or -1 (none, not a socket). */
int rpl_sock_live(struct rpl_ctx *c, int64_t fd);
/* rpl_sock_addr() : into @sa, the address of NAME in directory @dirfd
 * (NULL @name: of @dirfd itself) through /proc/thread-self/fd.
 * @return : 0, or -ENAMETOOLONG where it does not fit. */
int rpl_sock_addr(struct sockaddr_un *sa, int dirfd, const char *name);
void rpl_ops_sock(rpl_handler *h);
/* rpl_send_recv() : @op's sendto or recvfrom (@wr: the first) on live
 * descriptor @fd, moving what it moved when recorded (ops_pipe.c). */
int64_t rpl_send_recv(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr);
/* rpl_vmsplice() : @op's vmsplice into (or out of) a pipe (ops_pipe.c). */
int64_t rpl_vmsplice(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_eventfd_rw() : @op's read or write of eventfd @fd, live (ops_pipe.c).
 * @return : as a handler's. */
int64_t rpl_eventfd_rw(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr);
/* rpl_pipe_fit() : of a pipe's writes, ending after @w_end[i] bytes, the
 * latest from @first (the first with bytes a read from byte @from moves)
 * to @cur (the one that put its last byte in) that fits in the pipe with
 * the bytes from @from: the write that read may be ordered after.
 * @return : its index, or -1 (none: the read waits for its bytes alone). */
ptrdiff_t rpl_pipe_fit(const int64_t *w_end, size_t first, size_t cur, int64_t from);
/* The executor (exec.c), for the process handlers: start thread @ti (a
 * clone op did, or the run at start). */
int rpl_thread_start(struct rpl_plan *p, uint32_t ti);
/* Wait until process @pi finished (wait4; exec_wait.c). */
void rpl_wait_proc(struct rpl_plan *p, uint32_t pi);

/* ---- credentials (creds.c) ---- */
enum {
	RPL_CREDS_OFF = 0,		/* none recorded, or IOTAPE_REPLAY_CREDS=0 */
	RPL_CREDS_ON,			/* threads take theirs */
	RPL_CREDS_CANNOT,		/* not root: counted, not taken */
	RPL_CREDS_ROOT_CLOSED,		/* --root not searchable by others: as root */
};
/*! rpl_creds_init() : whether the run follows credentials, and the
 *  first threads' from the header (before any thread starts). */
void rpl_creds_init(struct rpl_plan *p);
void rpl_creds_free(struct rpl_plan *p);
/* syscall @nr changes a thread's credentials (the set*id calls, capset) */
int rpl_creds_call(int nr);
/* thread @t, not yet running, started by @parent (NULL: by the replay) */
void rpl_creds_inherit(struct rpl_plan *p, struct rpl_thread *t, const struct rpl_thread *parent);
/* the calling replay thread's kernel filesystem ids and groups set to
 * its cred (a no-op where they are) */
void rpl_creds_apply(struct rpl_ctx *c);
/* ... set to root's, for the replayer's own work in the thread: undone
 * by rpl_creds_apply() */
void rpl_creds_root(struct rpl_ctx *c);
/* a successful exec of the calling thread's process: its saved and
 * filesystem ids become its effective ones, and it keeps capabilities
 * only as root */
void rpl_creds_exec(struct rpl_ctx *c);
static inline int rpl_creds_other(const struct rpl_ctx *c)
{
	return c->t->cred_set == RPL_CRED_THREAD &&
	       (c->t->cred.uid[RPL_CRED_FS] || c->t->cred.gid[RPL_CRED_FS]);
}
void rpl_ops_creds(rpl_handler *h);

/* ---- the mask new files are made without (umask.c) ---- */
/*! rpl_umask_init() : whether the run follows the processes' masks, and
 *  the first one's from the header (before any thread starts). */
void rpl_umask_init(struct rpl_plan *p);
/* an octal mask (record.umask; blanks after it allowed) into @mask.
 * @return : 0, or -1 */
int rpl_umask_parse(const char *s, uint32_t *mask);
/* process @pr's mask at its start: its parent's now (under spawn_lock) */
void rpl_umask_inherit(struct rpl_plan *p, struct rpl_proc *pr);
/* the calling replay thread's own filesystem context, with its mask */
void rpl_umask_start(struct rpl_ctx *c);
/* the thread's kernel mask set to its process's, changed by another thread */
void rpl_umask_take(struct rpl_ctx *c);
static inline void rpl_umask_sync(struct rpl_ctx *c)
{
	if (c->t->umask_now >= 0 &&
	    (int32_t)atomic_load_explicit(&c->pr->umask, memory_order_relaxed) != c->t->umask_now)
		rpl_umask_take(c);
}
void rpl_ops_umask(rpl_handler *h);

/* Parent directories, cached per thread (dcache.c). */
struct rpl_dcache;
/* Slots: a thread whose process has its kernel descriptor table to
 * itself keeps more parents open than one whose table other threads fill
 * too (RLIMIT_NOFILE counts per table: 20,000 here). */
#define RPL_DC_OWN 256
#define RPL_DC_SHARED 64
/* slots a parent may take: the set its path's hash picks (dcache.c) */
#define RPL_DC_WAYS 4
struct rpl_dcache *rpl_dcache_new(uint32_t slots);
void rpl_dcache_free(struct rpl_dcache *d);
/* Close every parent @d holds: its thread's credentials changed, and a
 * parent it opened before may be one it could not reach now (creds.c). */
void rpl_dcache_drop(struct rpl_dcache *d);
/* As rpl_parent(), through the thread's cache; release with
 * rpl_name_done(). */
int rpl_parent_at(struct rpl_ctx *c, const char *path, struct rpl_name *n);
/* As rpl_parent_at(), for an op's second name while @first (its first's)
 * is in use: the cache never closes @first's descriptor for it. */
int rpl_parent_at2(struct rpl_ctx *c, const char *path, struct rpl_name *n,
		   const struct rpl_name *first);
/* The op's path as one plain name in the live descriptor its dirfd
 * argument names: @return : 0 (n->dirfd is not owned) or -1. */
int rpl_parent_fd(struct rpl_ctx *c, const struct rpl_op *op, struct rpl_name *n);
/* As rpl_resolve(), first as one component of the cached parent. */
int rpl_open_at(struct rpl_ctx *c, const char *path, int flags, mode_t mode);
void rpl_name_done(struct rpl_name *n);
/* @fd, a directory opened at @path (no name changed since @gen), is a
 * parent for the names below it. */
void rpl_dcache_offer(struct rpl_ctx *c, const char *path, int fd, uint32_t gen);
/* A name was removed, renamed or made a symlink: cached parents are stale. */
void rpl_ns_changed(struct rpl_plan *p);
/* A name that was no directory was removed (unlink), renamed over no
 * directory, or made a symlink: stale only are the cached parents whose
 * path went through a symlink. */
void rpl_ns_nodir(struct rpl_plan *p);
/*! rpl_op_flock() : fcntl lock op @op's struct flock, as the trace keeps
 *  it (iot_flock_pack()), into *@fl, l_pid 0.  @return : 0, or -1 if
 *  its struct was not recorded (ops_file.c). */
struct flock;
int rpl_op_flock(const struct rpl_op *op, struct flock *fl);
/*! rpl_only_looks() : whether @op (of syscall @sc) leaves its path, and
 *  its parent's names, as it found them: a look-up, a read, a close, an
 *  open that neither creates nor truncates, any call that failed
 *  (plan_fds.c). */
int rpl_only_looks(const struct iot_syscall *sc, const struct rpl_op *op);
/*! rpl_path_key() : the resource key of @path (its trailing slashes
 *  dropped), as an op that names it has it (plan_fds.c). */
uint64_t rpl_path_key(const char *path);
/*! rpl_parent_key() : the resource key of the directory of @path's last
 *  name, whose length goes to *@name_len (plan_fds.c). */
uint64_t rpl_parent_key(const char *path, size_t *name_len);
/*! rpl_locks_key() : the resource key of the locks of the file at
 *  @path, as its lock calls have it (plan_fds.c). */
uint64_t rpl_locks_key(const char *path);
/*! rpl_open_flags_arg() : @return : the index of @sc's open flags (an
 *  open's flags argument, or openat2's open_how, whose flags the trace
 *  keeps there), or -1: not an open. */
int rpl_open_flags_arg(const struct iot_syscall *sc);

/*! rpl_plan_moves() : mark RPL_OPF_NODIR the renames the recorded calls
 *  and path states show to move no directory, over none (moves.c).
 *  @return : 0 or -ENOMEM. */
int rpl_plan_moves(struct rpl_plan *p);

/*! rpl_stop_sig : the signal (SIGINT, SIGTERM, SIGHUP) that asked the
 *  replay to stop, RPL_STOP_FAULT if a target fault did (fault.c), or 0.
 *  Threads finish the op they are in and stop; the ops not reached are
 *  skipped as RPL_SKIP_INTERRUPTED. */
extern _Atomic int rpl_stop_sig;
#define RPL_STOP_FAULT (-1)

/* ---- faults of the filesystem under test (fault.c) ---- */

/*! rpl_fault_kind() : @return : the kind (0 .. RPL_FAULT_KINDS - 1) of
 *  result @r if it is a target fault (-ENOSPC ...), else -1. */
int rpl_fault_kind(int64_t r);
/*! rpl_fault_of() : as rpl_fault_kind(), for result @r of @op: -1 for
 *  what only looks like a target fault (setxattr's ENOSPC: a value too
 *  large for the filesystem). */
int rpl_fault_of(const struct rpl_op *op, int64_t r);
/*! rpl_fault_seen() : @op failed with target fault @r that the recording
 *  did not have: keep the first one and, unless --on-error continue,
 *  stop the replay. */
void rpl_fault_seen(struct rpl_ctx *c, struct rpl_op *op, int64_t r);
/*! rpl_fault_watch_start(), rpl_fault_watch() : note what --root leads
 *  to; later, stop the replay if it leads elsewhere (the mount was
 *  detached).  @ops_done : about how many ops ran.  @return : 1 if it
 *  stopped the replay now. */
void rpl_fault_watch_start(struct rpl_plan *p);
int rpl_fault_watch(struct rpl_plan *p, uint64_t ops_done);
/*! rpl_fault_result() : the first fault, as text, into @res. */
void rpl_fault_result(const struct rpl_plan *p, struct rpl_result *res);

/*! rpl_prepare_fit() : does the starting tree of @p fit the root?  Sets
 *  res->tree_bytes and res->root_free_bytes.  @return : 0 (*@sparse set
 *  if it does not fit and --sparse-prepare asked for sparse files), or
 *  -ENOSPC with res->tree_too_big set (the caller says so). */
int rpl_prepare_fit(struct rpl_plan *p, struct rpl_result *res, int *sparse);

/*! rpl_ps_data_bytes() : the bytes of data the prepare writes for the
 *  regular file state @ps (its size; a sparse file's data ranges). */
uint64_t rpl_ps_data_bytes(const struct iot_path_state *ps);
/*! rpl_ps_range() : data range @i of the sparse state @ps, cut to its
 *  size (ranges ascend: none after one past it).  @return : 1 and *@off,
 *  *@len; 0 when there is no such range. */
int rpl_ps_range(const struct iot_path_state *ps, uint32_t i, uint64_t *off, uint64_t *len);
/*! rpl_ps_made_by_workload() : whether the workload made @ps (or an
 *  ancestor) itself: not part of the starting tree (prepare.c). */
int rpl_ps_made_by_workload(const struct rpl_plan *p, const struct iot_path_state *ps);

/* ends a call a stopped thread is blocked in (its handler does nothing) */
#define RPL_POKE_SIG	SIGURG

/*! rpl_execute() : run every thread; fills the timing fields of the ops. */
int rpl_execute(struct rpl_plan *p, struct rpl_result *res);

/*! rpl_profile_write() : write the profile @o->out and fill @res's
 *  counters. */
int rpl_profile_write(struct rpl_plan *p, struct rpl_result *res);
/* The run's counters into @res, from every op's outcome: 0, or -errno
 * (said) if the outcomes could not be kept or read back. */
int rpl_tally(struct rpl_plan *p, struct rpl_result *res);

/* The ops' outcomes (outcome.c): rpl_outcome_open() before the threads
 * run (-errno, said), rpl_outcome_add() by a thread for each op it ran,
 * in its order, rpl_outcome_end() when it ends, rpl_outcome_free() with
 * the plan.  After the run, rpl_outs_open() goes through every op with
 * its outcome (enter 0: it did not run), in the plan's order or, with
 * @by_time, by when it started (then its position in the file):
 * rpl_outs_next() gives 1 and the next one, 0 at the end, or -errno;
 * rpl_outcome_at() one of them. */
struct rpl_outs;
int rpl_outcome_open(struct rpl_plan *p);
#define RPL_OUT_BLOCK 512	/* outcomes a thread writes at once (12 KiB) */
void rpl_outcome_put(struct rpl_plan *p, struct rpl_thread *t, int64_t enter, int64_t exit,
		     int64_t ret);
/* Inline: the one call the replay makes for every op.  What is not a
 * plain store in a block in hand (the first call, the block's first
 * outcome, its last, which writes it) is rpl_outcome_put()'s. */
static inline void rpl_outcome_add(struct rpl_plan *p, struct rpl_thread *t, int64_t enter,
				   int64_t exit, int64_t ret)
{
	if (t->first_ns && t->out_buf && t->out_fill + 1 < RPL_OUT_BLOCK) {
		t->out_buf[t->out_fill++] = (struct rpl_outcome){ enter, exit, ret };
		t->n_out++;
		return;
	}
	rpl_outcome_put(p, t, enter, exit, ret);
}
void rpl_outcome_end(struct rpl_plan *p, struct rpl_thread *t);
void rpl_outcome_free(struct rpl_plan *p);
int rpl_outs_open(struct rpl_plan *p, int by_time, struct rpl_outs **m);
/* the outcome of @t's op at position @k alone: 0 or -errno */
int rpl_outcome_at(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t k,
		   struct rpl_outcome *oc);
int rpl_outs_next(struct rpl_outs *m, struct rpl_op **op, struct rpl_outcome *oc);
void rpl_outs_close(struct rpl_outs *m);

/* How late calls started (late.c): rpl_late_init() before the threads
 * run, rpl_late_add() by each thread (@ns > 0: a late call),
 * rpl_late_result() the p50, p99 and max of @replayed calls into @res. */
int rpl_late_init(struct rpl_plan *p);
void rpl_late_add(struct rpl_plan *p, struct rpl_thread *t, int64_t ns);
void rpl_late_result(const struct rpl_plan *p, uint64_t replayed, struct rpl_result *res);

/* The starting-tree state of @path, or NULL. */
const struct iot_path_state *rpl_path_state(const struct rpl_plan *p, const char *path);

#endif
