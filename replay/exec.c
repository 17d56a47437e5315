/*
 * exec.c - the executor, rpl_execute(): one pthread per recorded thread,
 * each running its op list in order; an op first waits for its
 * scheduled start (think time), then for its dependencies (resource
 * order), then runs its handler (ops_table.c).  replay.c around it makes
 * the whole replay.
 *
 * A dependency names an op by its thread and its position there (struct
 * rpl_dep): it is met once that thread's count of ops run has passed it,
 * which is read without touching the op.  Waiting on one is a futex wait
 * on one global generation word.  The waiter leaves in the thread it
 * waits for the lowest position waited for (wait_pos); only the
 * completion of that op bumps the word and wakes, so a thread waiting
 * for one op is not woken by every other op of every other thread.  A hostile trace
 * can make ops wait for each other in a circle; when every running thread
 * has waited on a dependency for RPL_DEADLOCK_NS, one wait is given up and
 * counted (an ordering violation follows), so a replay never hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

#define RPL_DEADLOCK_NS 200000000LL
#define RPL_SPIN_NS 50000
#define RPL_STACK (256 << 10)

_Atomic int rpl_stop_sig;

static int stopping(void)
{
	return atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed) != 0;
}

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

static void wake_all(struct rpl_plan *p)
{
	atomic_fetch_add(&p->gen, 1);
	if (atomic_load(&p->waiters) && futex(&p->gen, FUTEX_WAKE, INT_MAX, NULL) > 0)
		rpl_woke(p);
}

static int dep_done(const struct rpl_plan *p, const struct rpl_dep *d)
{
	return atomic_load_explicit(&p->threads[d->thread].n_done, memory_order_acquire) > d->pos;
}

/* Ask thread @t to wake the sleepers on plan.gen when its op at @pos has
 * run: the lowest position asked for is kept. */
static void want_pos(struct rpl_thread *t, uint32_t pos)
{
	uint32_t cur = atomic_load(&t->wait_pos);

	while (pos < cur && !atomic_compare_exchange_weak(&t->wait_pos, &cur, pos))
		;
}

/* Wait until thread @t has run its op at @pos, or (@t NULL) until
 * *@flag32 is set.  @return : 0, or 1 if the wait was given up to break
 * a deadlock. */
static int wait_flag(struct rpl_plan *p, struct rpl_thread *t, uint32_t pos,
		     _Atomic int *flag32)
{
	const struct timespec tick = { 0, 20000000 };
	int64_t stuck_since = 0;
	int broke = 0;

#define FLAG_SET() (t ? atomic_load(&t->n_done) > pos : atomic_load(flag32) != 0)
	if (FLAG_SET())
		return 0;
	/* An op is waited for on the shared generation word, its position
	 * left in its thread so that its completion wakes us; asked for
	 * after the word is read and before the count is: a completion that
	 * misses it has already counted the op, which the loop then sees,
	 * and one that clears it to wake others bumps the word, so the wait
	 * returns and asks again.  A process's end (wait4) is waited for on
	 * its own word. */
	if (t)
		atomic_fetch_add(&p->waiters, 1);
	atomic_fetch_add(&p->depwait, 1);
	for (;;) {
		uint32_t g = atomic_load(&p->gen);

		if (t)
			want_pos(t, pos);
		if (FLAG_SET())
			break;
		if (stopping()) {
			broke = 1;
			break;
		}
		if (atomic_load(&p->depwait) >= atomic_load(&p->active)) {
			int64_t now = iot_now_ns();

			if (!stuck_since)
				stuck_since = now;
			else if (now - stuck_since > RPL_DEADLOCK_NS) {
				atomic_fetch_add(&p->breaks, 1);
				broke = 1;
				break;
			}
		} else {
			stuck_since = 0;
		}
		if (t)
			futex(&p->gen, FUTEX_WAIT, g, &tick);
		else
			futex((_Atomic uint32_t *)flag32, FUTEX_WAIT, 0, &tick);
	}
#undef FLAG_SET
	atomic_fetch_sub(&p->depwait, 1);
	if (t)
		atomic_fetch_sub(&p->waiters, 1);
	return broke;
}

void rpl_wait_proc(struct rpl_plan *p, uint32_t pi)
{
	wait_flag(p, NULL, 0, &p->procs[pi].finished);
}

/* Have the ops @op follows all run? */
static int deps_met(const struct rpl_plan *p, const struct rpl_op *op)
{
	uint16_t i;

	for (i = 0; i < op->ndeps; i++)
		if (!dep_done(p, &p->deps[op->dep_off + i]))
			return 0;
	return 1;
}

/*
 * A call that failed ENAMETOOLONG on a path of PATH_MAX - 1 bytes or
 * more: the program gave a string the kernel refuses before any lookup,
 * which the recorder keeps cut to PATH_MAX - 1 bytes (bash's cd tries the
 * long logical name first, then a short relative one, whose path the
 * replay looks up in parts: paths.c).  Made as such a string, which
 * fails the same way, at the same cost, and never reaches a name.
 */
static int64_t too_long(struct rpl_ctx *c)
{
	static char name[PATH_MAX + 1];

	if (!name[0])
		memset(name, 'x', PATH_MAX);
	return RPL_CALL(c, syscall(SYS_faccessat, AT_FDCWD, name, F_OK));
}

/*
 * A call that failed EBADF on a descriptor the replay's table does not
 * hold either (bash's fcntl(255, F_GETFD) before it takes 255; a close
 * of one never opened): the kernel's answer, made on a number that is
 * no descriptor, at the same cost, where it was left out as "descriptor
 * not replayed" (32 calls of a meson build).  Not for a number that was
 * open in the recording and not here (RPL_FD_SKIP).
 */
static int bad_fd(struct rpl_ctx *c, const struct rpl_op *op)
{
	const struct iot_syscall *sc;
	struct rpl_fd e;
	int i;

	/* every op asks: the result rules nearly all out */
	if (op->ev.ret != -EBADF || !(sc = iot_syscall_by_nr(op->ev.nr)) ||
	    (i = iot_syscall_arg(sc, IOT_ARG_FD)) < 0)
		return 0;
	return op->ev.args[i] >= 0 && op->ev.args[i] < RPL_FD_MAX &&
	       rpl_fdtab_get(c->pr->tab, (long)op->ev.args[i], &e) < 0;
}

static int is_stat(int nr)
{
	return nr == SYS_stat || nr == SYS_lstat || nr == SYS_newfstatat || nr == SYS_statx;
}

static int64_t stat_cwd(struct rpl_ctx *c, const struct rpl_op *op)
{
	int fd = rpl_cwd_open(c, op->ev.path, O_PATH | O_DIRECTORY);
	struct stat st;
	int64_t r;

	if (fd < 0)
		return fd;
	r = RPL_CALL(c, fstatat(fd, "", &st, AT_EMPTY_PATH));
	close(fd);
	return r;
}

/* The pages of mappings tied to @op: the replayer's work, as root (it
 * may open the file again by name, which the program had mapped). */
static void run_mpages(struct rpl_ctx *c, struct rpl_op *op)
{
	rpl_creds_root(c);
	rpl_mpages_run(c, op);
	rpl_creds_apply(c);
}

/* @return : whether it had to wait */
static int wait_deps(struct rpl_plan *p, struct rpl_op *op)
{
	uint16_t i;
	int waited = 0;

	for (i = 0; i < op->ndeps; i++) {
		const struct rpl_dep *d = &p->deps[op->dep_off + i];

		if (!dep_done(p, d)) {
			wait_flag(p, &p->threads[d->thread], d->pos, NULL);
			waited = 1;
		}
	}
	return waited;
}

/* When dependency @d's op ended here, if its thread has run no op since
 * (its gap after it is not over): else 0.  For a woken op's lag: the
 * op's thread writes the end before its count (thread_main()). */
static int64_t waker_end(struct rpl_plan *p, const struct rpl_dep *d)
{
	struct rpl_thread *u = &p->threads[d->thread];
	uint32_t a = atomic_load_explicit(&u->needed_end_pos, memory_order_acquire);
	int64_t end = atomic_load_explicit(&u->needed_end_ns, memory_order_acquire);

	if (a != d->pos || atomic_load_explicit(&u->needed_end_pos, memory_order_acquire) != a ||
	    atomic_load(&u->n_done) != d->pos + 1)
		return 0;
	return end;
}

/* Wait until @until, or until the thread of dependency @d has run its op
 * after @d's (the waker's gap is over here, the wake-up in it too: it
 * came sooner than recorded).  @return : when it ended. */
static int64_t wait_lag(struct rpl_plan *p, const struct rpl_dep *d, int64_t until)
{
	struct rpl_thread *u = &p->threads[d->thread];
	int64_t now = iot_now_ns();

	atomic_fetch_add(&p->waiters, 1);
	while (now < until && !stopping()) {
		uint32_t g = atomic_load(&p->gen);
		int64_t left;

		want_pos(u, d->pos + 1);
		if (atomic_load(&u->n_done) > d->pos + 1)
			break;
		left = until - now - RPL_SPIN_NS;
		if (left > 0) {
			struct timespec ts = { left / 1000000000, left % 1000000000 };

			futex(&p->gen, FUTEX_WAIT, g, &ts);
		} else {
			__builtin_ia32_pause();
		}
		now = iot_now_ns();
	}
	atomic_fetch_sub(&p->waiters, 1);
	return now;
}

int rpl_wait_until(int64_t t)
{
	int64_t now = iot_now_ns();

	if (t - now > RPL_SPIN_NS) {
		int64_t w = t - RPL_SPIN_NS;
		struct timespec ts = { w / 1000000000, w % 1000000000 };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (stopping())
				return 1;
	}
	while (iot_now_ns() < t)
		__builtin_ia32_pause();
	return 0;
}

static int64_t think(const struct rpl_plan *p, const struct rpl_op *op)
{
	return rpl_timed_ns(p->o, op->think_ns);
}

/* The part of @op's gap slept apart from its think time: the recorded
 * sleep on a disk (think.c), none without timing or under raw, where
 * the think time holds it. */
static int64_t gap_sleep(const struct rpl_plan *p, const struct rpl_op *op)
{
	int64_t sl = rpl_op_col(p->slept_ns, p->n_slept, op);

	if (!sl || p->o->timing == RPL_TIMING_AFAP || p->o->timing == RPL_TIMING_RAW)
		return 0;
	return rpl_timed_ns(p->o, sl);
}

/* A poll, select, epoll_wait or sleep that returned for an event or a
 * signal: not slept, its wait left to the ordering (ops_wait.c). */
static int left_to_order(const struct rpl_op *op)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);

	return sc && sc->cls == IOT_CLASS_WAIT && !op->skip && rpl_wait_sleep_ns(&op->ev) < 0;
}

/* Process @pr's descriptors stay open until the ops they were recorded
 * open for are done (plan_fds.c rpl_plan_socks_end()): each of its
 * threads waits for them at its end, before the last one closes them. */
static void linger(struct rpl_plan *p, const struct rpl_proc *pr)
{
	int i;

	for (i = 0; i < RPL_LINGER && pr->linger[i]; i++) {
		uint32_t oi = pr->linger[i] - 1;
		struct rpl_thread *u = &p->threads[p->ops[oi].thread];
		size_t a = rpl_position_of(u, oi, 0);

		if (a < u->n_ops && u->ops[a] == oi)
			wait_flag(p, u, (uint32_t)a, NULL);
	}
}

static void thread_done(struct rpl_ctx *c)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		c->t->utime_ns = ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL;
		c->t->stime_ns = ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
	}
	c->t->end_ns = iot_now_ns();
	if (c->pr->linger[0])
		linger(c->p, c->pr);
	/* Under the lock rpl_thread_start() holds from its look at the
	 * table to its count of the new thread: a thread whose spawn was not
	 * recorded starts with the replay and may end before the process's
	 * other thread is started, which must then get a table, not NULL. */
	pthread_mutex_lock(&c->p->spawn_lock);
	if (atomic_fetch_sub(&c->pr->live, 1) == 1) {
		/* The process is gone: its descriptors close, its parent's
		 * wait4 may return. */
		rpl_cwd_drop(c->pr);
		rpl_plock_drop(c->pr);
		rpl_fdtab_unref(c->pr->tab);
		c->pr->tab = NULL;
		atomic_store(&c->pr->gone_ns, c->t->end_ns);
		atomic_store(&c->pr->finished, 1);
		if (futex((_Atomic uint32_t *)&c->pr->finished, FUTEX_WAKE, INT_MAX, NULL) > 0)
			rpl_woke(c->p);
	}
	pthread_mutex_unlock(&c->p->spawn_lock);
}

/* @pr got a table made for it, not shared with its parent's: used by one
 * thread only, its lookups take no lock (fdtab.c, tab_lock()), unless
 * another process reads it too (/proc/PID/fd/N, ops_file.c). */
static void table_made(struct rpl_proc *pr)
{
	if (pr->n_threads == 1 && !pr->fds_named)
		rpl_fdtab_single(pr->tab);
}

/* The first thread of a process with a table of its own (plan.own_files)
 * makes the table: fdtab.c says why. */
static void own_table(struct rpl_ctx *c)
{
	struct rpl_thread *t = c->t;
	struct rpl_fork_closes fc;
	uint32_t n_maps = 0;
	int *maps = NULL;
	int own, err = 0;

	rpl_fork_closes(c->p, t, &fc);
	/* the parent's mappings are copied with its table: one that another
	 * of its threads maps meanwhile is the parent's alone, as in a fork */
	pthread_mutex_lock(&c->p->aio_lock);
	c->pr->tab = rpl_fdtab_fork(t->fork_from, &own);
	if (c->pr->tab && t->fork_from)
		err = rpl_mpages_fork(c->p, c->pr, !own);
	pthread_mutex_unlock(&c->p->aio_lock);
	if (!c->pr->tab || err) {
		/* Its parent is waiting and its ops need a table: nothing
		 * sensible is left to do. */
		iot_err(c->p->o->cmd, "out of memory for the descriptor table of replayed "
			"process %d", (int)c->pr->pid);
		_exit(1);
	}
	if (t->spawn_op >= 0) {
		rpl_fdtab_drop_after(c->pr->tab, c->p->ops[t->spawn_op].ev.t_enter);
		rpl_fdtab_drop_closed(c->pr->tab, &fc);
	}
	table_made(c->pr);
	c->pr->own_kernel_table = own;
	/* its live numbers are this thread's kernel table's, shared with
	 * its parent's thread where it could not have one of its own */
	c->pr->tab->ktid = (int)syscall(SYS_gettid);
	/* its working directory: the parent's, whose number this copy of
	 * the parent's table holds (the parent waits for t->forked) */
	if (c->pr->parent >= 0)
		rpl_cwd_inherit(c->pr, &c->p->procs[c->pr->parent]);
	/* a mapping's copy of its descriptor stays, and the working
	 * directory's: if there is no room to list them, nothing is closed
	 * (a leak, not a lost mapping) */
	if (own && rpl_mpages_fds(c->pr, &maps, &n_maps) == 0) {
		int *more = realloc(maps, (n_maps + 3) * sizeof(*more));

		if (more) {
			maps = more;
			if (c->pr->cwd_fd > 0)
				maps[n_maps++] = c->pr->cwd_fd;
			/* and the courier of kept connections (ops_sock.c) */
			if (c->p->conn_sock[0] >= 0) {
				maps[n_maps++] = c->p->conn_sock[0];
				maps[n_maps++] = c->p->conn_sock[1];
			}
			rpl_fdtab_close_others(c->pr->tab, c->p->root_fd, c->p->start_fd,
					       c->p->out_fd, maps, n_maps);
		}
	}
	free(maps);
	atomic_store(&t->forked, 1);
	futex(&t->forked, FUTEX_WAKE, INT_MAX, NULL);
}

/* The replay was asked to stop: ops @i.. of @t are not replayed; they
 * count as done so that no other thread waits for them. */
static void stop_thread(struct rpl_plan *p, struct rpl_thread *t, uint32_t i)
{
	for (; i < t->n_ops; i++) {
		struct rpl_op *op = &p->ops[t->ops[i]];

		op->skip = RPL_SKIP_INTERRUPTED;
	}
	atomic_store(&t->n_done, t->n_ops);
	wake_all(p);
}

/*
 * The schedule, closed loop.  An op's call should start its think time
 * after the previous call of its thread ended: ideal = prev_end + think,
 * where prev_end is when that call really returned here (so a slower
 * filesystem delays everything after it, which is what is measured).
 * The replayer's own work between two calls (finding the op, looking up
 * its descriptor and parent directory) is not the workload's: it should
 * hide in the think time.  So the thread keeps its lag, how much later
 * than ideal its calls have started in all, and starts the next op that
 * much earlier; the lag shrinks wherever think time allows (in steady
 * state it is the previous op's own overhead, so each op starts early
 * by about its overhead) and grows where it does not (a thread whose
 * calls follow each other with no think time at all can only be as fast
 * as the replayer).  A wait for another thread (a dependency) clears it:
 * the workload waited there too.
 *
 * Think time spun as CPU (spin.c) is the program's computing, and time
 * the thread is kept off the CPU is not its replayer's work: the time
 * off the CPU in the spin is added to the schedule, and so is the time
 * off the CPU between the previous call's end and the spin (the wall
 * time there less the thread's CPU time): after a call that woke another
 * replayed thread, that thread may take the CPU at once, and the program,
 * preempted there, would have computed later too.  The thread's CPU
 * clock is a syscall: it is read at a call's end (before the wake) only
 * when the next op's think time may be spun, never under --timing afap
 * or --think sleep, and again at the spin, which takes it as its start.
 */
/*
 * A thread that ended is joined by the main thread as it ends, not after
 * the run: until joined, its stack stays mapped (two mappings, and the
 * pages glibc keeps of it at the end, 16 KiB below its last frame and
 * its thread block), and a trace's threads come and go all along (a
 * shell's commands, a build's compilers): held to the end, they grew the
 * replay's memory with the trace's length, and past ~32,000 threads its
 * mappings would pass the kernel's limit (vm.max_map_count, 65,530), so
 * that no further thread could start.  Joined, a stack goes to glibc's
 * cache, and the next thread takes it.  Pushed here last, when nothing
 * of @t is touched any more by the thread.
 */
static void ended_push(struct rpl_plan *p, struct rpl_thread *t)
{
	uint32_t head = atomic_load(&p->ended);

	do
		t->ended_next = head;
	while (!atomic_compare_exchange_weak(&p->ended, &head, (uint32_t)(t - p->threads) + 1));
}

/* Join every thread pushed by ended_push() (the main thread only). */
static void join_ended(struct rpl_plan *p)
{
	uint32_t i = atomic_exchange(&p->ended, 0);

	while (i) {
		struct rpl_thread *t = &p->threads[i - 1];

		i = t->ended_next;
		pthread_join(t->th, NULL);
		t->joined = 1;
	}
}

static void *thread_main(void *arg)
{
	struct rpl_thread *t = arg;
	struct rpl_plan *p = t->plan;
	struct rpl_ctx c = { .p = p, .t = t, .pr = &p->procs[t->proc] };
	int timed = p->o->timing != RPL_TIMING_AFAP, woken = 0;
	struct rpl_sched sched = { 0 };
	int64_t prev_end, r_enter, r_exit;
	/* the thread's CPU clock at the last call's end, and that end, if
	 * the next think time may be spun; else mark_cpu < 0 */
	int64_t mark_cpu = -1, mark_wall = 0;
	uint32_t i;

	atomic_fetch_sub(&p->handovers, 1);
	if (t->fork_table)
		own_table(&c);
	t->dcache = rpl_dcache_new(p->own_files && c.pr->n_threads == 1 ? RPL_DC_OWN :
				   RPL_DC_SHARED);
	/* Wake at the scheduled time, not up to 50 us later. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/* its file calls as the user it ran as (creds.c) */
	rpl_creds_apply(&c);
	/* ... and with its process's mask (umask.c) */
	rpl_umask_start(&c);
	t->start_ns = iot_now_ns();
	prev_end = t->spawn_op >= 0 ? t->start_ns : p->t0;
	c.scratch = t->scratch;
	for (i = 0; i < t->n_ops; i++) {
		struct rpl_op *op;
		rpl_handler h;
		int64_t ideal, start, now, r, sl;
		const struct rpl_wake_lag *wl;
		uint16_t d;
		int mp_done;

		c.pos = i;
		if (stopping())
			break;
		/* names of a directory listed here, given by their paths */
		if (i >= t->pw_from && atomic_load_explicit(&p->listed_any, memory_order_relaxed))
			rpl_dirwalk_paths(t, i);
		op = &p->ops[t->ops[i]];
		/* after a wait that returned for an event the replay left to
		 * the ordering, the op that carries that order waits first:
		 * the program thought once the event had come */
		if (op->ndeps && woken) {
			woken = 0;
			if (wait_deps(p, op)) {
				int64_t w = iot_now_ns();

				if (stopping())
					break;
				sched.lag = 0;
				t->dep_waits++;
				t->dep_wait_ns += w > prev_end ? w - prev_end : 0;
				prev_end = w;
				/* asleep in the wait: that is not preemption */
				if (mark_cpu >= 0) {
					mark_cpu = iot_thread_cpu_ns();
					mark_wall = iot_now_ns();
				}
			}
		}
		/*
		 * Pages touched through a mapping before this munmap, msync
		 * or exit: the program touched them in its computing before
		 * the call, whose time (faults, page-ins) the gap holds.
		 * Read and written at the gap's start, where its order
		 * allows, they take their time out of the gap; after the
		 * gap they counted twice (fio's mmap engine, whose random
		 * reads and writes are one gap between its mmap and munmap:
		 * replays 4 % slower than the same replay without the pages,
		 * which was as long as the native runs).
		 */
		mp_done = 0;
		if (op->n_mp && deps_met(p, op)) {
			run_mpages(&c, op);
			mp_done = 1;
			/* its time on the CPU or asleep on the disk is the
			 * gap's, not time taken from the thread */
			if (mark_cpu >= 0) {
				mark_cpu = iot_thread_cpu_ns();
				mark_wall = iot_now_ns();
			}
		}
		/* the think time, then the gap's sleep on a disk, if any,
		 * then the wait for other threads' ops (below) */
		sl = gap_sleep(p, op);
		ideal = prev_end + think(p, op) + sl;
		start = rpl_sched_start(&sched, ideal);
		/* Not a clock read more than needed: they are a good part of
		 * the replayer's cost per op.  @now : about when the handler
		 * starts. */
		now = prev_end;
		if (timed && start > prev_end) {
			int64_t cpu = -1, off = 0;

			now = iot_now_ns();
			if (mark_cpu >= 0) {
				cpu = iot_thread_cpu_ns();
				if (cpu >= 0)
					off = rpl_sched_offcpu(mark_wall, mark_cpu, now, cpu);
			}
			if (rpl_spin_wanted(p, start - sl - now + off)) {
				int64_t t0 = now;

				/* computing: what other work kept it off the
				 * CPU since the call's end and in the spin is
				 * the workload's time, not a lag */
				ideal += off;
				start += off;
				t->offcpu_ns += off;
				t->spun_ns += start - sl - now;
				if (rpl_spin_cpu(p, start - sl - now, cpu))
					break;
				now = iot_now_ns();
				t->spin_wall_ns += now - t0;
				if (now + sl > start) {
					ideal += now + sl - start;
					start = now + sl;
				}
			}
			if (start > now) {
				if (rpl_wait_until(start))
					break;
				t->think_wait_ns += start - now;
				now = start;
			}
		}
		if (sl) {
			atomic_fetch_add(&p->gap_sleeps, 1);
			atomic_fetch_add(&p->gap_slept_ns, (uint64_t)sl);
		}
		/*
		 * Resource order after the think time, not before it: the
		 * program computed its gap, then made the call, which
		 * blocked (a read of a pipe) or found the other process's
		 * work done.  Waited for first, the think time was spent
		 * after the other thread's op, in series with it, where the
		 * program had computed meanwhile: each compiler of a make -j2
		 * that created its object after the other job's, as
		 * recorded, spent its computing only once the other job had
		 * created its file.  A wait clears the lag: the workload
		 * waited there too.  (Not so after a poll or select that
		 * returned for an event: above.)
		 */
		if (op->ndeps && wait_deps(p, op)) {
			int64_t w = iot_now_ns();

			if (stopping())
				break;
			sched.lag = 0;
			t->dep_waits++;
			t->dep_wait_ns += w - (now > w ? w : now);
			now = w;
			if (ideal < now)
				ideal = now;
		}
		/* woken by another thread: as long after its waker's call
		 * as planned (wakes.c keep_lag(), rpl_wake_lag_ns()) */
		if (timed && op->ndeps && (wl = rpl_wake_lag_of(p, op))) {
			const struct rpl_dep *by = &p->deps[op->dep_off + wl->dep];
			int64_t until = waker_end(p, by);

			if (until > 0 && (until += rpl_timed_ns(p->o, rpl_wake_lag_ns(p, op, wl))) > now &&
			    until > (now = iot_now_ns())) {
				int64_t w = wait_lag(p, by, until);

				if (stopping())
					break;
				sched.lag = 0;
				t->wake_lag_waits++;
				t->wake_lag_ns += w - now;
				now = w;
				if (ideal < now)
					ideal = now;
			}
		}
		if (i + 1 < t->n_ops) {
			/* The ops stream through memory once: fetch the next
			 * one (and its path) while this one runs. */
			const struct rpl_op *nx = &p->ops[t->ops[i + 1]];

			__builtin_prefetch(nx);
			__builtin_prefetch((const char *)nx + 64);
			if (nx->ev.path)
				__builtin_prefetch(nx->ev.path);
		}
		/* pages the program touched through a mapping before this
		 * munmap, msync or exit */
		if (op->n_mp && !mp_done)
			run_mpages(&c, op);
		if (op->n_aio)
			rpl_aio_await(&c, op);	/* completions seen at a close, exit */
		c.sys0 = 0;
		/* a mask another thread of its process set (umask.c) */
		rpl_umask_sync(&c);
		/* the table is filled: rpl_execute() asked for a handler */
		h = op->skip || op->ev.nr < 0 || op->ev.nr >= RPL_MAX_NR ? NULL : rpl_handlers[op->ev.nr];
		if (op->skip || !h)
			r = op->skip ? RPL_SKIPPED : rpl_skip(op, RPL_SKIP_UNSUPPORTED);
		else if (op->ev.ret == -ENAMETOOLONG && op->ev.path &&
			 strnlen(op->ev.path, PATH_MAX) >= PATH_MAX - 1)
			r = too_long(&c);
		else if (bad_fd(&c, op))
			r = RPL_CALL(&c, fcntl(-1, F_GETFD));
		else {
			rpl_fd_made_ns = op->ev.t_enter;
			r = h(&c, op);
		}
		/* a stat of a working directory since removed, or of its
		 * "..": through the directory kept (cwd.c) */
		if (r == -ENOENT && op->ev.ret == 0 && op->ev.path && is_stat(op->ev.nr))
			r = stat_cwd(&c, op);
		if (c.sys0) {
			/* the op's own calls (RPL_CALL) */
			r_enter = c.sys0;
			r_exit = c.sys1;
		} else {
			r_enter = now;
			r_exit = iot_now_ns();
		}
		if (r == RPL_SKIPPED) {
			/* A skipped clone still starts its child's ops. */
			if (rpl_op_child(op) >= 0 && !p->threads[op->link].started)
				rpl_thread_start(p, op->link);
			r = op->ev.ret;
			r_exit = r_enter;
			/* interrupted when recorded: as long as it waited for
			 * the signal (plan_threads.c interrupted()) */
			if (op->skip == RPL_SKIP_SIGNAL && timed &&
			    op->ev.t_exit > op->ev.t_enter &&
			    !(op->ev.flags & IOT_EV_NOEXIT_TS)) {
				if (rpl_wait_until(r_enter + rpl_timed_ns(p->o, op->ev.t_exit -
									    op->ev.t_enter)))
					break;
				r_exit = iot_now_ns();
			}
		} else if (r < 0 && r != op->ev.ret && rpl_fault_of(op, r) >= 0) {
			rpl_fault_seen(&c, op, r);
		}
		rpl_outcome_add(p, t, r_enter, r_exit, r);
		/* the CPU clock at the call's end, before the wake of the
		 * threads waiting for it (below), which may take the CPU */
		mark_cpu = -1;
		if (timed && i + 1 < t->n_ops &&
		    rpl_spin_wanted(p, think(p, &p->ops[t->ops[i + 1]]))) {
			mark_cpu = iot_thread_cpu_ns();
			mark_wall = r_exit;
		}
		if (timed) {
			rpl_sched_ran(&sched, ideal, r_enter);
			if (!op->skip && r_enter > ideal)
				rpl_late_add(p, t, r_enter - ideal);
		}
		for (d = 0; d < op->ndeps; d++)
			if (!dep_done(p, &p->deps[op->dep_off + d]))
				op->rflags |= RPL_OPF_VIOLATION;
		/* Only an op another thread waits for needs the full barrier
		 * (and its ~10 ns) between counting it and looking for a
		 * waiter (wait_flag() says why). */
		if (!op->needed) {
			atomic_store_explicit(&t->n_done, i + 1, memory_order_release);
		} else {
			/* its end for a woken op's lag (waker_end()), in a
			 * plan that has any: release stores, each ordered
			 * after the one before (plain stores on x86) */
			if (p->wake_lag) {
				atomic_store_explicit(&t->needed_end_pos, UINT32_MAX,
						      memory_order_release);
				atomic_store_explicit(&t->needed_end_ns, r_exit, memory_order_release);
				atomic_store_explicit(&t->needed_end_pos, i, memory_order_release);
			}
			atomic_store(&t->n_done, i + 1);
			if (atomic_load(&t->wait_pos) <= i) {
				atomic_store(&t->wait_pos, UINT32_MAX);
				wake_all(p);
			}
		}
		prev_end = r_exit;
		if (left_to_order(op))
			woken = 1;
	}
	if (i < t->n_ops)
		stop_thread(p, t, i);
	atomic_store(&t->n_done, t->n_ops);
	t->lag_ns = sched.lag;
	rpl_outcome_end(p, t);
	thread_done(&c);
	rpl_dcache_free(t->dcache);
	t->dcache = NULL;
	rpl_dirwalk_free(t);
	/* its buffer (up to 1 MiB touched) ends with it, not with the plan:
	 * a run of a thousand short threads would hold them all */
	free(t->scratch);
	t->scratch = NULL;
	atomic_fetch_sub(&p->active, 1);
	atomic_fetch_sub(&p->threads_alive, 1);
	wake_all(p);
	ended_push(p, t);
	/* The main thread waits on its own word: completions do not wake it. */
	atomic_fetch_add(&p->exit_gen, 1);
	futex(&p->exit_gen, FUTEX_WAKE, INT_MAX, NULL);
	return NULL;
}

/*
 * A thread that could not be started (no memory for its stack or its
 * buffers, a limit on threads) runs none of its ops: they are counted
 * done, so that no other thread waits for them, nor its parent's wait4
 * for its process's end; and so are the threads it would have started,
 * which it never will.  Waited for, each such wait ended only at the
 * deadlock break (RPL_DEADLOCK_NS), one for every short process of a
 * trace once thread starts failed.  Under spawn_lock.
 */
static void give_up(struct rpl_plan *p, uint32_t ti)
{
	struct rpl_thread *t = &p->threads[ti];
	struct rpl_proc *pr = &p->procs[t->proc];
	size_t j;

	t->start_failed = 1;
	atomic_store(&t->n_done, t->n_ops);
	if (atomic_load(&pr->live) == 0 && !atomic_load(&pr->finished)) {
		atomic_store(&pr->gone_ns, iot_now_ns());
		atomic_store(&pr->finished, 1);
		futex((_Atomic uint32_t *)&pr->finished, FUTEX_WAKE, INT_MAX, NULL);
	}
	for (j = 0; j < p->n_threads; j++) {
		const struct rpl_thread *u = &p->threads[j];

		if (!u->started && !u->start_failed && u->spawn_op >= 0 &&
		    p->ops[u->spawn_op].thread == ti)
			give_up(p, (uint32_t)j);
	}
	wake_all(p);
}

int rpl_thread_start(struct rpl_plan *p, uint32_t ti)
{
	struct rpl_thread *t = &p->threads[ti];
	struct rpl_proc *pr = &p->procs[t->proc];
	pthread_attr_t attr;
	int err = 0;

	pthread_mutex_lock(&p->spawn_lock);
	if (t->started)
		goto out;
	t->started = 1;
	t->plan = p;
	/* as a clone copies them, from the thread making the clone */
	rpl_creds_inherit(p, t, t->spawn_op >= 0 ? &p->threads[p->ops[t->spawn_op].thread] : NULL);
	/* and its process's mask, from its parent's at the clone */
	rpl_umask_inherit(p, pr);
	if (!pr->tab) {
		struct rpl_fdtab *ptab = pr->parent >= 0 ? p->procs[pr->parent].tab : NULL;

		if (p->own_files && !(ptab && pr->share_files)) {
			/* made by the thread itself: own_table() */
			t->fork_table = 1;
			t->fork_from = ptab;
		} else if (ptab && pr->share_files)
			pr->tab = rpl_fdtab_ref(ptab);
		else if (ptab) {
			struct rpl_fork_closes fc;

			rpl_fork_closes(p, t, &fc);
			pr->tab = rpl_fdtab_copy(ptab);
			if (pr->tab && t->spawn_op >= 0) {
				rpl_fdtab_drop_after(pr->tab, p->ops[t->spawn_op].ev.t_enter);
				rpl_fdtab_drop_closed(pr->tab, &fc);
			}
		} else {
			pr->tab = rpl_fdtab_new(1);
		}
		err = -ENOMEM;
		if (!pr->tab && !t->fork_table)
			goto out;
		if (pr->tab && !(ptab && pr->share_files))
			table_made(pr);
		if (pr->tab && ptab) {
			pthread_mutex_lock(&p->aio_lock);
			err = rpl_mpages_fork(p, pr, 1);
			pthread_mutex_unlock(&p->aio_lock);
			if (err)
				goto out;
		}
	}
	/* and its working directory (with a table of its own: made by
	 * the child, own_table(), lest the copy stay in the parent's) */
	if (pr->parent >= 0 && atomic_load(&pr->live) == 0 && !t->fork_table)
		rpl_cwd_inherit(pr, &p->procs[pr->parent]);
	t->scratch = aligned_alloc(4096, RPL_SCRATCH);
	err = -ENOMEM;
	if (!t->scratch)
		goto out;
	if (atomic_fetch_add(&pr->live, 1) == 0)
		atomic_store(&pr->finished, 0);	/* a thread of it ended first */
	atomic_fetch_add(&p->active, 1);
	atomic_fetch_add(&p->threads_alive, 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RPL_STACK);
	/* until it runs, spinning threads yield to it (spin.c) */
	atomic_fetch_add(&p->handovers, 1);
	err = -pthread_create(&t->th, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (err) {
		atomic_fetch_sub(&p->handovers, 1);
		atomic_fetch_sub(&pr->live, 1);
		atomic_fetch_sub(&p->active, 1);
		atomic_fetch_sub(&p->threads_alive, 1);
	}
out:
	if (err) {
		t->started = 0;
		t->fork_table = 0;
		give_up(p, ti);
	}
	pthread_mutex_unlock(&p->spawn_lock);
	/* As fork returns after the child's table is made: until then the
	 * parent must not close or open anything. */
	if (!err && t->fork_table && t->fork_from)
		while (!atomic_load(&t->forked))
			futex(&t->forked, FUTEX_WAIT, 0, NULL);
	return err;
}

/* How many ops ran. */
static uint64_t ops_done(struct rpl_plan *p)
{
	uint64_t done = 0;
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		done += atomic_load_explicit(&p->threads[i].n_done, memory_order_relaxed);
	return done;
}

static void progress(struct rpl_plan *p, int final)
{
	uint64_t done = ops_done(p);
	char e[32];

	iot_msg(IOT_MSG_STATUS, p->o->cmd, "%llu/%zu ops (%3.0f%%), %s   %s",
		(unsigned long long)done, p->n_ops,
		p->n_ops ? 100.0 * (double)done / (double)p->n_ops : 100.0,
		iot_fmt_ns(e, sizeof(e), (double)(iot_now_ns() - p->t0)), final ? "\n" : "");
}

/* Raise the descriptor limit: every replayed process keeps a copy of its
 * parent's table open, all in this one process.  The hard limit too, up
 * to the kernel's nr_open, where the replayer may (CAP_SYS_RESOURCE): a
 * program whose two processes each opened up to a limit of 20,000
 * (stress-ng's sockpair stressor) needs more in one (the reference
 * machine refuses it, EPERM, and that replay gets EMFILE 50 times). */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%lu", &nr) != 1)
			nr = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (nr > rl.rlim_max) {
		struct rlimit up = { nr, nr };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Can every replayed process have a kernel descriptor table of its own?
 * A process's first thread makes it from the thread that started it, so
 * that thread must be the parent's (a fork) and every other thread must
 * be started by one of its process's (a thread) or of the process it
 * shares its table with.  A trace that does not say who started whom
 * (threads present from the start of a recording attached late) keeps
 * one table for all, as IOTAPE_REPLAY_FILES=shared asks.
 */
static int can_own_files(const struct rpl_plan *p)
{
	const char *env = getenv("IOTAPE_REPLAY_FILES");
	uint8_t *seen;
	size_t i;
	int ok = 1;

	if (env && strcmp(env, "shared") == 0)
		return 0;
	seen = calloc(p->n_procs ? p->n_procs : 1, 1);
	if (!seen)
		return 0;
	for (i = 0; i < p->n_threads && ok; i++) {
		const struct rpl_thread *t = &p->threads[i];
		const struct rpl_proc *pr = &p->procs[t->proc];
		uint32_t from;

		if (t->spawn_op < 0) {
			ok = pr->parent < 0 && !seen[t->proc];
			seen[t->proc] = 1;
			continue;
		}
		from = p->threads[p->ops[t->spawn_op].thread].proc;
		ok = from == t->proc || (int64_t)from == (int64_t)pr->parent;
	}
	free(seen);
	return ok;
}

/* A thread still running 200 ms after a stop is blocked in a call (a
 * read of a pipe whose writer stopped first): a signal whose handler
 * does nothing ends the call with EINTR. */
static void poke_threads(struct rpl_plan *p)
{
	size_t i;

	/* under the lock that starts threads: started means th is valid */
	pthread_mutex_lock(&p->spawn_lock);
	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].started && !p->threads[i].joined &&
		    atomic_load(&p->threads[i].n_done) < p->threads[i].n_ops)
			pthread_kill(p->threads[i].th, RPL_POKE_SIG);
	pthread_mutex_unlock(&p->spawn_lock);
}

int rpl_execute(struct rpl_plan *p, struct rpl_result *res)
{
	const struct timespec tick = { 0, 200000000 };
	size_t i, unstarted = 0, failed = 0;
	int err = 0, e;
	int64_t watched;

	raise_nofile();
	pthread_mutex_init(&p->spawn_lock, NULL);
	pthread_mutex_init(&p->conn_lock, NULL);
	pthread_mutex_init(&p->aio_lock, NULL);
	pthread_mutex_init(&p->listed_lock, NULL);
	rpl_handler_for(0);
	if ((err = rpl_late_init(p)) < 0 || (err = rpl_outcome_open(p)) < 0)
		return err;
	p->own_files = can_own_files(p);
	/* a forked child's copy of its table looks at its parent's other
	 * threads (fork_fds.c); without the lists, it does not */
	(void)rpl_proc_threads(p);
	rpl_conn_courier(p);
	rpl_creds_init(p);
	rpl_umask_init(p);
	rpl_fault_watch_start(p);
	if (p->o->starts)
		rpl_starts_open(p);
	for (i = 0; i < p->n_threads; i++) {
		atomic_store(&p->threads[i].n_done, 0);
		atomic_store(&p->threads[i].wait_pos, UINT32_MAX);
		atomic_store(&p->threads[i].needed_end_pos, UINT32_MAX);
		p->threads[i].joined = 0;
		p->threads[i].start_failed = 0;
	}
	atomic_store(&p->ended, 0);
	p->t0 = watched = iot_now_ns();
	for (i = 0; i < p->n_threads; i++) {
		if (p->threads[i].spawn_op >= 0)
			continue;
		e = rpl_thread_start(p, (uint32_t)i);
		if (e && !err) {
			iot_err(p->o->cmd, "cannot start a replay thread: %s", iot_strerror(e));
			err = e;
		}
	}
	for (;;) {
		uint32_t g = atomic_load(&p->exit_gen);
		int64_t now;

		join_ended(p);
		if (atomic_load(&p->threads_alive) == 0)
			break;
		if (futex(&p->exit_gen, FUTEX_WAIT, g, &tick) < 0 && errno == ETIMEDOUT &&
		    stopping())
			poke_threads(p);
		/* every 200 ms, however often threads end and wake us */
		now = iot_now_ns();
		if (now - watched >= 200000000LL) {
			watched = now;
			if (!stopping())
				rpl_fault_watch(p, ops_done(p));
		}
		if (p->o->progress)
			progress(p, 0);
	}
	join_ended(p);
	for (i = 0; i < p->n_threads; i++) {
		if (p->threads[i].started) {
			if (!p->threads[i].joined)
				pthread_join(p->threads[i].th, NULL);
			continue;
		}
		/* Its spawner never ran (the trace lost it): not replayed. */
		for (uint32_t k = 0; k < p->threads[i].n_ops; k++) {
			struct rpl_op *op = &p->ops[p->threads[i].ops[k]];

			if (!op->skip)
				op->skip = stopping() ? RPL_SKIP_INTERRUPTED : RPL_SKIP_UNFINISHED;
		}
		if (p->threads[i].start_failed)
			failed++;
		else
			unstarted += !stopping();
	}
	res->elapsed_ns = iot_now_ns() - p->t0;
	if (p->o->progress)
		progress(p, 1);
	if (unstarted && !p->o->quiet)
		iot_warn(p->o->cmd, "%s: %zu recorded threads were never started (their parent's "
			 "clone is missing from the trace)", p->o->trace, unstarted);
	if (failed)
		iot_warn(p->o->cmd, "%s: %zu recorded threads could not be started here (no memory "
			 "or threads left), nor their calls replayed", p->o->trace, failed);
	res->deadlock_breaks = atomic_load(&p->breaks);
	rpl_conn_courier_close(p);
	rpl_starts_close(p);
	pthread_mutex_destroy(&p->spawn_lock);
	rpl_dirwalk_listed_free(p);
	pthread_mutex_destroy(&p->listed_lock);
	return err;
}
