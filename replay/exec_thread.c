/*
 * exec_thread.c - one replay thread, from its start to its end
 * (rpl_thread_main(), which exec.c starts): the first thread of a
 * process with a kernel descriptor table of its own makes that table
 * (own_table()); then each op in turn waits for its scheduled start (the
 * schedule, below), for the ops of other threads it follows
 * (exec_wait.c), runs its handler and is counted done; at its end the
 * thread waits for the ops its process's descriptors stay open for, ends
 * its process if it was the last (its descriptors closed, its parent's
 * wait4 let return), and is left for the main thread to join.  Apart
 * from exec.c, which starts, watches and joins the threads, as the code
 * that runs in each of them, op by op.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"
#include "exec_int.h"

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
 * open for are done (plan_pipes.c rpl_plan_socks_end()): each of its
 * threads waits for them at its end, before the last one closes them. */
static void linger(struct rpl_plan *p, const struct rpl_proc *pr)
{
	int i;

	for (i = 0; i < RPL_LINGER && pr->linger[i]; i++) {
		uint32_t oi = pr->linger[i] - 1;
		struct rpl_thread *u = &p->threads[p->ops[oi].thread];
		size_t a = rpl_position_of(u, oi, 0);

		if (a < u->n_ops && u->ops[a] == oi)
			rpl_wait_flag(p, u, (uint32_t)a, NULL);
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
		if (rpl_set_flag(&c->pr->finished) > 0)
			rpl_woke(c->p);
	}
	pthread_mutex_unlock(&c->p->spawn_lock);
}

/* @pr got a table made for it, not shared with its parent's: used by one
 * thread only, its lookups take no lock (fdtab.c, tab_lock()), unless
 * another process reads it too (/proc/PID/fd/N, ops_file.c). */
void rpl_table_made(struct rpl_proc *pr)
{
	if (pr->n_threads == 1 && !pr->fds_named)
		rpl_fdtab_single(pr->tab);
	/* a close of its parent's other threads waits for it (fork_fds.c) */
	rpl_set_flag(&pr->copied);
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

	rpl_fork_wait_makers(c->p, t);
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
	rpl_table_made(c->pr);
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
	rpl_futex(&t->forked, FUTEX_WAKE, INT_MAX, NULL);
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
	rpl_wake_thread(p, t);
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

void *rpl_thread_main(void *arg)
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
		if (rpl_stopping())
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
			if (rpl_wait_deps(p, op)) {
				int64_t w = iot_now_ns();

				if (rpl_stopping())
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
		if (op->n_mp && rpl_deps_met(p, op)) {
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
		/* a close after another thread's recorded fork: after the
		 * child's copy of the table (fork_fds.c) */
		rpl_fork_wait_copies(p, t, op);
		if (op->ndeps && rpl_wait_deps(p, op)) {
			int64_t w = iot_now_ns();

			if (rpl_stopping())
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
			int64_t until = rpl_waker_end(p, by);

			if (until > 0 && (until += rpl_timed_ns(p->o, rpl_wake_lag_ns(p, op, wl))) > now &&
			    until > (now = iot_now_ns())) {
				int64_t w = rpl_wait_lag(p, by, until);

				if (rpl_stopping())
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
			if (!rpl_dep_done(p, &p->deps[op->dep_off + d]))
				op->rflags |= RPL_OPF_VIOLATION;
		/* Only an op another thread waits for needs the full barrier
		 * (and its ~10 ns) between counting it and looking for a
		 * waiter (rpl_wait_flag() says why). */
		if (!op->needed) {
			atomic_store_explicit(&t->n_done, i + 1, memory_order_release);
		} else {
			/* its end for a woken op's lag (rpl_waker_end()), in a
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
				rpl_wake_thread(p, t);
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
	rpl_wake_thread(p, t);
	ended_push(p, t);
	/* The main thread waits on its own word: completions do not wake it. */
	atomic_fetch_add(&p->exit_gen, 1);
	rpl_futex(&p->exit_gen, FUTEX_WAKE, INT_MAX, NULL);
	return NULL;
}
