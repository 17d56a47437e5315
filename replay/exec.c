/*
 * exec.c - the executor, rpl_execute(): one pthread per recorded thread,
 * each running its op list in order (exec_thread.c); an op first waits
 * for its scheduled start (think time), then for its dependencies
 * (resource order, exec_wait.c), then runs its handler (ops_table.c).
 * replay.c around it makes the whole replay.
 *
 * Here the threads are started (rpl_thread_start(): a process's
 * descriptor table, its working directory and its mask from its
 * parent's; a thread that cannot start given up with the threads it
 * would have started), watched while they run (the progress line, a
 * stop, the filesystem's faults) and joined as they end.  What runs in
 * each thread, from its first op to its end, is exec_thread.c's; its
 * waits for the other threads are exec_wait.c's.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"
#include "exec_int.h"

#define RPL_STACK (256 << 10)

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
	/* no table comes: what waits for it goes on (fork_fds.c) */
	rpl_set_flag(&pr->copied);
	if (atomic_load(&pr->live) == 0 && !atomic_load(&pr->finished)) {
		atomic_store(&pr->gone_ns, iot_now_ns());
		rpl_set_flag(&pr->finished);
	}
	for (j = 0; j < p->n_threads; j++) {
		const struct rpl_thread *u = &p->threads[j];

		if (!u->started && !u->start_failed && u->spawn_op >= 0 &&
		    p->ops[u->spawn_op].thread == ti)
			give_up(p, (uint32_t)j);
	}
	rpl_wake_thread(p, t);
}

int rpl_thread_start(struct rpl_plan *p, uint32_t ti)
{
	struct rpl_thread *t = &p->threads[ti];
	struct rpl_proc *pr = &p->procs[t->proc];
	pthread_attr_t attr;
	int err = 0;

	/* a process's copy of its parent's table: after what the parent's
	 * other threads made before the recorded clone (fork_fds.c); not
	 * under spawn_lock, which those threads' own clones take */
	if (!t->started && !pr->tab && !pr->share_files && !p->own_files)
		rpl_fork_wait_makers(p, t);
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
			rpl_table_made(pr);
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
	err = -pthread_create(&t->th, &attr, rpl_thread_main, t);
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
			rpl_futex(&t->forked, FUTEX_WAIT, 0, NULL);
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
 * A thread's exit that comes after its process's exit_group in the plan
 * (fdfind's walker thread, recorded by ptrace entering exit 0.24 ms
 * before the main thread's exit_group, taken after it) starts a thread
 * of its own, as an op of a process that ended does, with no clone that
 * started it: its only op is that exit, and it has no table to keep.
 * Counted as a process of its own, it kept every process from having a
 * table of its own: 7,628 vfork and exec children shared one, and a
 * replay of that ptrace trace had 227,642 mismatches in 111 s (7,379 in
 * 3.5 s without it, the rest another fault).  No test makes that order
 * on demand.
 */
static int stray_exit(const struct rpl_plan *p, const struct rpl_thread *t)
{
	int nr;

	if (t->n_ops != 1)
		return 0;
	nr = p->ops[t->ops[0]].ev.nr;
	return nr == SYS_exit || nr == SYS_exit_group;
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

		if (t->spawn_op < 0 && stray_exit(p, t))
			continue;
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
	for (i = 0; i < p->n_procs; i++)
		atomic_store(&p->procs[i].copied, 0);
	for (i = 0; i < p->n_threads; i++) {
		atomic_store(&p->threads[i].n_done, 0);
		atomic_store(&p->threads[i].wait_pos, UINT32_MAX);
		pthread_mutex_init(&p->threads[i].wl_lock, NULL);
		p->threads[i].waiters = NULL;
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
		if (rpl_futex(&p->exit_gen, FUTEX_WAIT, g, &tick) < 0 && errno == ETIMEDOUT &&
		    rpl_stopping())
			poke_threads(p);
		/* every 200 ms, however often threads end and wake us */
		now = iot_now_ns();
		if (now - watched >= 200000000LL) {
			watched = now;
			if (!rpl_stopping())
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
				op->skip = rpl_stopping() ? RPL_SKIP_INTERRUPTED : RPL_SKIP_UNFINISHED;
		}
		if (p->threads[i].start_failed)
			failed++;
		else
			unstarted += !rpl_stopping();
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
