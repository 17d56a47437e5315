/*
 * wakes.c - a thread that slept where the trace holds no call (a futex, a
 * condition variable) and was woken by another thread of its process, or
 * of a process it shares memory with: its next op follows the call of the
 * waker it was woken after.
 *
 * Threads that wait for each other through memory make no recorded call
 * to do so: the waiting thread's sleep is a gap before its next op.  The
 * CPU budget (budget.c) then sees a gap far longer than the thread could
 * have computed and cuts it, and the replayed thread runs on early.  fio
 * (psync, 2 job threads) starts its jobs, sleeps 100 ms in
 * clock_nanosleep, and only then posts each job's semaphore: the jobs'
 * first calls came 0.12 and 0.36 ms after that sleep's end, 104 ms after
 * their start; their budget cut that gap to 1 ms, and their replayed I/O
 * began 100 ms early, on every filesystem (native 102-109 ms from the
 * start of a job to its first call, replayed 0-10 ms).
 *
 * Such a gap is told by two things the trace has: the budget cut it to
 * less than half (the thread was asleep for most of it), and it ended
 * less than WAKE_LAG_MAX after a call of another thread of the same
 * process returned, with no call of that thread ended in between (the
 * waker: it woke the sleeper right after that call).  Its op then
 * depends on that call, as resource order's ops do (deps.c): it is
 * replayed after its think time and after the waker's call, whichever
 * comes later.  A dependency points back in time (the waker's call
 * ended before the op entered), so it makes no cycle.  Gaps shorter than
 * WAKE_GAP_MIN are left: a thread that computes between two calls of
 * another does not wait for them, and a short gap cut by the budget is
 * the tracer's, not a sleep.
 *
 * Threads of other processes are looked at only where the bpf backend
 * saw the wake-up itself (woke_ns, below), and only those of a process
 * that may share memory with the woken one: its parent, or a child it
 * forked, with no exec in either since the fork (fio without --thread
 * forks its jobs and lets them go through a semaphore in a shared
 * mapping; python's multiprocessing alike).  The trace does not say
 * which processes share memory, and without the wake-up the rule
 * matched gaps of rsync's processes, which share none (taken between a
 * process and its forked children: 12 in a ptrace recording, 68 in a
 * bpf one, of 1-39 ms, recorded at load 9: time off the CPU, the gap's
 * end only by chance after the other's call).  With the wake-up, on the
 * suite's twelve bpf recordings of 2026-12-03: none more in rsync's and
 * the ten others', 7 more in compileall's (340 -> 347, python's pool of
 * forked workers), and fio's job process (libaio, io_uring), whose
 * first call came 100 ms after its start as recorded and 3 ms after it
 * replayed (tests/integration/replay_wake_fork.sh).  The threads-only
 * rule matched none in the suite's rsync, fsync and postmark traces and
 * traces/ (build, tar, mozilla, mongo), fio's two job starts, and
 * 288-440 waits of python's process pool, which are condition
 * variables: its queue feeder thread's write to the workers' pipe
 * 0.01-0.8 ms after the manager thread's poll returned with a result,
 * the main thread's end of a 2.1 s wait for the results.
 *
 * From the op's entry, WAKE_LAG_MAX holds the woken thread's wait for a
 * CPU too, which a loaded machine makes longer: of fio's two job threads
 * posted together after the 100 ms sleep, one entered its first call
 * 1.3-5.4 ms after the last return of another thread in 3 of 40
 * recordings made at load 4-12 (ptrace and bpf alike) and in 3 of 12
 * made beside two busy loops, was taken for computing, and its job, or
 * both, the other's chained to it, began its I/O 40-90 ms early (of a
 * run of ~1.2 s alone).  The
 * bpf backend sees the wake-up itself (woke_ns: when the thread was last
 * woken from a voluntary sleep in the gap, record/bpf/iotape.bpf.c), and
 * where the op has it the lag is taken from the wake-up, not the entry:
 * the waker is the last call of another thread that ended before it,
 * within WAKE_LAG_MAX (the waker's futex call follows its recorded one
 * at once); an op of a trace that has such wake-ups, recorded by BPF,
 * without one had no voluntary sleep in its gap (it was preempted, or
 * computed) and is no wake.  Its think time keeps the lag from that
 * call to the op, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "rpl.h"
#include "wakes_int.h"

#define WAKE_GAP_MIN 1000000LL	/* ns: gaps shorter are computing */
#define WAKE_LAG_MAX 1000000LL	/* ns: from the waker's return to the op */

/* The position in thread @u of its last op that ended before @e (-1:
 * none); its ops are in entry order, and each enters after the one before
 * it ended, so their ends are in order too. */
int64_t rpl_wake_last_ended(const struct rpl_plan *p, const struct rpl_thread *u, int64_t e)
{
	uint32_t lo = 0, hi = u->n_ops;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rpl_op_end(&p->ops[u->ops[mid]]) < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

int rpl_dep_append(struct rpl_plan *p, struct rpl_op *op, uint32_t thread, uint32_t pos)
{
	size_t off = p->n_deps;
	uint32_t d;
	int err = 0;

	if (op->ndeps >= RPL_DEPS_MAX)
		goto out;
	for (d = 0; d < op->ndeps; d++)
		if (p->deps[op->dep_off + d].thread == thread && p->deps[op->dep_off + d].pos == pos)
			goto out;
	/* its deps were made side by side in one pass (deps.c): copied
	 * to the end, with this one after them */
	for (d = 0; d < op->ndeps; d++) {
		RPL_GROW(p->deps, p->n_deps, p->cap_deps);
		p->deps[p->n_deps++] = p->deps[op->dep_off + d];
	}
	RPL_GROW(p->deps, p->n_deps, p->cap_deps);
	p->deps[p->n_deps++] = (struct rpl_dep){ .thread = thread, .pos = pos };
	op->dep_off = (uint32_t)off;
	op->ndeps++;
	p->ops[p->threads[thread].ops[pos]].needed = 1;
	err = 1;
out:
	return err;
}

/*
 * A woken op follows its waker's call (the dependency above), and comes
 * no sooner after that call's end than it did when recorded: the waker
 * may have gone on computing in its own gap before the wake-up (a
 * futex wake or a post the trace does not hold), and the sleeper made
 * its call only after that.  Its think time counts from its own
 * thread's call before, long before where it slept: the dependency
 * alone let it go the moment the waker's call ended.  sib_sem's first
 * process writes, computes 2 ms, posts the second, which writes: the
 * second's writes replayed 37-81 us after the first's, recorded 2.05 ms
 * after; zstd -T2's output thread, woken by the main thread up to 0.8 s
 * into a gap of that thread's.  Kept per op (by seq): the recorded lag and which
 * of its deps is the waker's call; exec_wait.c waits for the lag, timed as
 * think times are, from that call's end, and no longer than until the
 * waker has run its next op (its gap is over here, and the wake-up in it
 * with it: a waker whose gap the budget cut, or that waited there for
 * another thread that went faster here, woke it sooner than recorded);
 * that op is marked needed, so that its end wakes the wait.
 */
static int keep_lag(struct rpl_plan *p, struct rpl_op *op, uint32_t by, uint32_t by_pos,
		    int64_t lag)
{
	uint32_t d;
	size_t i, n = 0;

	if (lag <= 0)
		return 0;
	for (d = 0; d < op->ndeps; d++)
		if (p->deps[op->dep_off + d].thread == by && p->deps[op->dep_off + d].pos == by_pos)
			break;
	if (d == op->ndeps)
		return 0;	/* RPL_DEPS_MAX of them already */
	if (!p->wake_lag) {
		for (i = 0; i < p->n_ops; i++)
			if (p->ops[i].seq >= n)
				n = (size_t)p->ops[i].seq + 1;
		p->wake_lag = calloc(n ? n : 1, sizeof(*p->wake_lag));
		if (!p->wake_lag)
			return -ENOMEM;
		p->n_wake_lag = n;
	}
	if (op->seq >= p->n_wake_lag)
		return 0;
	p->wake_lag[op->seq] = (struct rpl_wake_lag){
		lag >= UINT32_MAX ? UINT32_MAX : (uint32_t)lag, d };
	/* the waker's next op ends the wait (exec_wait.c rpl_wait_lag()) */
	if (by_pos + 1 < p->threads[by].n_ops)
		p->ops[p->threads[by].ops[by_pos + 1]].needed = 1;
	p->wake_lags++;
	return 0;
}

/*
 * How long after its waker's call woken op @op comes: the recorded lag,
 * scaled as the waker's gap is here, its think time against its recorded
 * length (the lag as recorded with IOTAPE_REPLAY_WAKE_LAG=1).  The
 * waker's progress into its gap is what the sleeper waited for; the
 * budget cut that gap to the CPU time the waker had (the recorder's own
 * cost out, and its sleeps: a waker that waited there itself, for
 * other threads, waits for them here by its own ops' dependencies).
 * The suite's five traces that have such wakes, replayed in turn with
 * none, as recorded and scaled, against 15 native runs each
 * (docs/VALIDATION.md, 2026-12-04, late night): as recorded, every replay
 * was 2-30 % slower than with none, repack's, compileall's and zstd's
 * as long as their recordings; scaled, zstd -T2's (its compressing
 * threads woken by the main one) went from -8..-11 % to +3..-8 %, the
 * others moved by -2.5 to +3 points.
 */
int64_t rpl_wake_lag_ns(const struct rpl_plan *p, const struct rpl_op *op,
			const struct rpl_wake_lag *wl)
{
	const struct rpl_dep *d = &p->deps[op->dep_off + wl->dep];
	const struct rpl_thread *u = &p->threads[d->thread];
	const struct rpl_op *a, *b;
	int64_t gap;

	if (p->wake_lag_mode != RPL_WAKE_LAG_SCALED || d->pos + 1 >= u->n_ops)
		return wl->lag_ns;
	a = &p->ops[u->ops[d->pos]];
	b = &p->ops[u->ops[d->pos + 1]];
	gap = iot_ns_sub(b->ev.t_enter, rpl_op_end(a));
	if (gap <= 0 || b->think_ns >= gap)
		return wl->lag_ns;
	return (int64_t)((double)wl->lag_ns * (double)b->think_ns / (double)gap);
}

/*
 * The CPU budget (budget.c) scaled every gap of a thread by one factor
 * (think_scale): a gap that was a wait for another thread took as large
 * a share of the thread's CPU time as a gap in which it computed, and
 * the thread's computing gaps lost it.  fio's job threads (bpf
 * recording: 11-12 ms of CPU time outside their calls, for a 100 ms wait
 * to start and 23 ms of gaps between their 6,200 calls) got 10 ms of
 * think time for the wait and 2.3 ms for the gaps between their calls,
 * where they computed for ~20 ms: their I/O replayed ~4 % fast.  A gap
 * found to be a wait (thread @t's op at @wk[i].k, woken @wk[i].lag after
 * its waker's return) keeps at most that lag, the time the thread could
 * have run in it, and what it held goes back to the thread's other gaps,
 * each up to its length before the budget.  Where the bpf backend timed
 * the gap's sleep (the last one in it), the part of the gap before that
 * sleep (@wk[i].before) is time it could have run too: a compressor's
 * worker that takes its input and hands back its output through memory
 * makes its exit its one call, and its whole computing is in that
 * gap, before its last sleep (zstd -T2: 0.39 s of a 0.75 s gap, its
 * replay's compress phase 35 % fast where the gap kept only the 45 us
 * from its wake-up to its exit).
 */
struct wake {
	uint32_t k;		/* the woken op's position in its thread */
	int64_t lag;		/* how long after its waker's return */
	int64_t before;		/* its gap before the recorded sleep (bpf), else 0 */
};

static void rebudget(struct rpl_plan *p, const struct rpl_thread *t, const struct wake *wk,
		     size_t nw)
{
	double s = t->think_scale, freed = 0, others = 0, r;
	int64_t delta = 0;
	uint32_t k;
	size_t i;

	if (!nw || s <= 0.0 || s >= 1.0)
		return;
	for (i = 0; i < nw; i++) {
		struct rpl_op *op = &p->ops[t->ops[wk[i].k]];
		int64_t keep = wk[i].lag + wk[i].before;

		if (op->think_ns > keep) {
			freed += (double)(op->think_ns - keep);
			delta -= op->think_ns - keep;
			op->think_ns = keep;
		}
	}
	for (k = 0, i = 0; k < t->n_ops; k++) {
		if (i < nw && wk[i].k == k) {
			i++;
			continue;
		}
		others += (double)p->ops[t->ops[k]].think_ns;
	}
	if (others <= 0.0)
		goto out;
	/* the others' factor: their share and what the waits held, no
	 * more than their length before the budget (1 / s) */
	r = (others + freed) / others;
	if (r > 1.0 / s)
		r = 1.0 / s;
	for (k = 0, i = 0; k < t->n_ops; k++) {
		struct rpl_op *op = &p->ops[t->ops[k]];
		int64_t v;

		if (i < nw && wk[i].k == k) {
			i++;
			continue;
		}
		v = (int64_t)((double)op->think_ns * r);
		delta += v - op->think_ns;
		op->think_ns = v;
	}
out:
	p->think_ns += delta;
	p->think_cut_ns -= delta;
}

/* The part of @op's gap (@gap long, ending at its entry @e) before the
 * sleep the bpf backend timed in it (waited_ns, ending at the wake-up
 * @w): 0 where the trace does not time it. */
static int64_t sleep_before(const struct rpl_plan *p, const struct rpl_op *op, int64_t gap,
			    int64_t e, int64_t w)
{
	int64_t waited, v;

	if (!p->waited_ns || !(op->ev.flags & IOT_EV_BPF) || w < 0 || w > e)
		return 0;
	waited = rpl_op_col(p->waited_ns, p->n_waited, op);
	if (waited <= 0)
		return 0;
	v = gap - waited - (e - w);
	return v > 0 ? v : 0;
}

/* Whether @op's gap, @gap long, was a wait: its thread slept voluntarily
 * for WAKE_GAP_MIN or more in it where the trace says (bpf: waited_ns),
 * else the CPU budget cut it to less than half. */
static int a_wait(const struct rpl_plan *p, const struct rpl_op *op, int64_t gap)
{
	if (gap < WAKE_GAP_MIN)
		return 0;
	if (p->woke_ns && (op->ev.flags & IOT_EV_BPF))
		return rpl_op_col(p->waited_ns, p->n_waited, op) >= WAKE_GAP_MIN;
	return op->think_ns < gap - gap / 2;
}

/* When the thread of @op, whose gap began at @s, was woken to make it:
 * the wake-up the bpf backend saw in the gap (woke_ns), else its entry
 * (ptrace, the fast path, a trace without wake-ups); -1: a bpf op of a
 * trace that has wake-ups, with none in its gap (no voluntary sleep). */
static int64_t woken_at(const struct rpl_plan *p, const struct rpl_op *op, int64_t s)
{
	int64_t e = op->ev.t_enter, w = rpl_op_col(p->woke_ns, p->n_woke, op);

	if (!p->woke_ns || !(op->ev.flags & IOT_EV_BPF))
		return e;
	if (!w || w > iot_ns_sub(e, s))
		return -1;
	return e - w;
}

/* When thread @t began: its clone's return, else its first call's entry
 * (INT64_MAX: no op). */
int64_t rpl_wake_thread_start(const struct rpl_plan *p, const struct rpl_thread *t)
{
	return t->spawn_op >= 0 ? rpl_op_end(&p->ops[t->spawn_op]) :
	       t->n_ops ? p->ops[t->ops[0]].ev.t_enter : INT64_MAX;
}

/*
 * What rpl_plan_wakes() looks up: each process's threads and forked
 * children (index lists), and when each process started and ran its
 * first and last successful exec (INT64_MAX, INT64_MIN: none).
 */
struct kin {
	/* process i's threads: thr[thr_off[i] .. thr_off[i + 1]] (the plan's) */
	const uint32_t *thr_off, *thr;
	uint32_t *kid_off, *kid;	/* its child processes, alike */
	int64_t *start, *exec_first, *exec_last;
};

int rpl_proc_threads(struct rpl_plan *p)
{
	size_t n = p->n_procs, i;
	uint32_t *off, *thr;

	if (p->proc_thr_off)
		return 0;
	off = calloc(n + 2, sizeof(*off));
	thr = malloc((p->n_threads + 1) * sizeof(*thr));
	if (!off || !thr) {
		free(off);
		free(thr);
		return -ENOMEM;
	}
	/* counts at [proc + 2], their sums at [proc + 1], then each
	 * thread placed at [proc + 1]++, which leaves [proc] its start */
	for (i = 0; i < p->n_threads; i++)
		off[p->threads[i].proc + 2]++;
	for (i = 2; i < n + 2; i++)
		off[i] += off[i - 1];
	for (i = 0; i < p->n_threads; i++)
		thr[off[p->threads[i].proc + 1]++] = (uint32_t)i;
	p->proc_thr_off = off;
	p->proc_thr = thr;
	p->proc_thr_made++;
	return 0;
}

void rpl_proc_threads_free(struct rpl_plan *p)
{
	free(p->proc_thr_off);
	free(p->proc_thr);
	p->proc_thr_off = NULL;
	p->proc_thr = NULL;
}

/* (its thread lists are the plan's) */
static void kin_free(struct kin *g)
{
	free(g->kid_off);
	free(g->kid);
	free(g->start);
	free(g->exec_first);
	free(g->exec_last);
}

static int kin_make(struct rpl_plan *p, struct kin *g)
{
	size_t n = p->n_procs, i;
	uint32_t *fill;

	memset(g, 0, sizeof(*g));
	if (rpl_proc_threads(p) < 0)
		return -ENOMEM;
	g->thr_off = p->proc_thr_off;
	g->thr = p->proc_thr;
	g->kid_off = calloc(n + 1, sizeof(*g->kid_off));
	g->kid = malloc((n + 1) * sizeof(*g->kid));
	g->start = malloc((n + 1) * sizeof(*g->start));
	g->exec_first = malloc((n + 1) * sizeof(*g->exec_first));
	g->exec_last = malloc((n + 1) * sizeof(*g->exec_last));
	fill = calloc(n + 1, sizeof(*fill));
	if (!g->kid_off || !g->kid || !g->start || !g->exec_first ||
	    !g->exec_last || !fill) {
		free(fill);
		kin_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		g->start[i] = INT64_MAX;
		g->exec_first[i] = INT64_MAX;
		g->exec_last[i] = INT64_MIN;
		if (p->procs[i].parent >= 0 && (size_t)p->procs[i].parent < n)
			g->kid_off[p->procs[i].parent + 1]++;
	}
	for (i = 0; i < p->n_threads; i++) {
		const struct rpl_thread *t = &p->threads[i];
		int64_t st = rpl_wake_thread_start(p, t);
		uint32_t k;

		if (st < g->start[t->proc])
			g->start[t->proc] = st;
		for (k = 0; k < t->n_ops; k++) {
			const struct rpl_op *op = &p->ops[t->ops[k]];

			if ((op->ev.nr != SYS_execve && op->ev.nr != SYS_execveat) || op->ev.ret != 0)
				continue;
			if (op->ev.t_enter < g->exec_first[t->proc])
				g->exec_first[t->proc] = op->ev.t_enter;
			if (op->ev.t_enter > g->exec_last[t->proc])
				g->exec_last[t->proc] = op->ev.t_enter;
		}
	}
	for (i = 0; i < n; i++)
		g->kid_off[i + 1] += g->kid_off[i];
	for (i = 0; i < n; i++) {
		int32_t pa = p->procs[i].parent;

		if (pa >= 0 && (size_t)pa < n)
			g->kid[g->kid_off[pa] + fill[pa]++] = (uint32_t)i;
	}
	free(fill);
	return 0;
}

/* Whether child process @c and its parent @pa shared the memory the child
 * had from its fork until @w: neither ran an exec in between (a vfork's
 * child shares until its exec too).  The execs known are each process's
 * first and last: a parent's exec somewhere between them and after the
 * fork is taken as one in between. */
static int shared_mem(const struct kin *g, uint32_t c, uint32_t pa, int64_t w)
{
	if (g->exec_first[c] <= w)
		return 0;
	return g->exec_last[pa] < g->start[c] || g->exec_first[pa] > w;
}

/* The waker of an op of thread @ti woken at @w, whose gap began at @s:
 * the thread of @threads (@n of them, not @ti) whose last call that ended
 * before @w ended last, after @s; *@best its end (kept if later). */
static void waker_in(const struct rpl_plan *p, const uint32_t *threads, uint32_t n, size_t ti,
		     int64_t w, int64_t s, int64_t *best, uint32_t *by, uint32_t *by_pos)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct rpl_thread *u = &p->threads[threads[i]];
		int64_t j, end;

		if (threads[i] == ti || (j = rpl_wake_last_ended(p, u, w)) < 0)
			continue;
		end = rpl_op_end(&p->ops[u->ops[j]]);
		if (end > s && end > *best) {
			*best = end;
			*by = threads[i];
			*by_pos = (uint32_t)j;
		}
	}
}

/*
 * The waker of an op of thread @ti woken at @w (its entry @e, its gap
 * begun at @s) as the times tell: the thread of its process, or where
 * the wake-up itself was seen (bpf) and @kin, of its parent or a child
 * that shares its memory, whose last call before @w ended last, within
 * WAKE_LAG_MAX of @w (*@by, *@by_pos; that call's end returned), else -1.
 */
static int64_t waker_guess(const struct rpl_plan *p, const struct kin *g, size_t ti, int kin,
			   int64_t w, int64_t e, int64_t s, uint32_t *by, uint32_t *by_pos)
{
	uint32_t pr = p->threads[ti].proc, c;
	int32_t pa = p->procs[pr].parent;
	int64_t best = -1;

	waker_in(p, g->thr + g->thr_off[pr], g->thr_off[pr + 1] - g->thr_off[pr], ti, w, s,
		 &best, by, by_pos);
	/* another process's thread only where the wake-up itself was seen
	 * (bpf): a gap's end after another process's call is often time
	 * off the CPU */
	if (kin && w != e) {
		if (pa >= 0 && shared_mem(g, pr, (uint32_t)pa, w))
			waker_in(p, g->thr + g->thr_off[pa], g->thr_off[pa + 1] - g->thr_off[pa],
				 ti, w, s, &best, by, by_pos);
		for (c = g->kid_off[pr]; c < g->kid_off[pr + 1]; c++)
			if (shared_mem(g, g->kid[c], pr, w))
				waker_in(p, g->thr + g->thr_off[g->kid[c]],
					 g->thr_off[g->kid[c] + 1] - g->thr_off[g->kid[c]], ti, w, s,
					 &best, by, by_pos);
	}
	return best < 0 || iot_ns_sub(w, best) > WAKE_LAG_MAX ? -1 : best;
}

int rpl_plan_wakes(struct rpl_plan *p)
{
	size_t ti;
	const char *env = getenv("IOTAPE_REPLAY_WAKES");
	struct wake *wk = NULL;
	struct idle_gap *ig = NULL;
	struct tid_at *ta = NULL;
	struct idle *idle = NULL;
	size_t nw, cap = 0, ni, icap = 0, n_idle = 0;
	struct kin g;
	uint32_t k;
	int err = 0, added;

	/* IOTAPE_REPLAY_WAKES=0: none (to measure what they do) */
	if (env && strcmp(env, "0") == 0)
		return 0;
	/* IOTAPE_REPLAY_WAKE_LAG=0: ordered after their waker's call, with
	 * no lag from it; 1: the lag as recorded, not scaled (keep_lag();
	 * to measure what they do) */
	env = getenv("IOTAPE_REPLAY_WAKE_LAG");
	p->wake_lag_mode = !env ? RPL_WAKE_LAG_SCALED : strcmp(env, "0") == 0 ? RPL_WAKE_LAG_NONE :
			   strcmp(env, "1") == 0 ? RPL_WAKE_LAG_RECORDED : RPL_WAKE_LAG_SCALED;
	if (kin_make(p, &g) < 0)
		return -ENOMEM;
	if ((p->waker || p->gap_waker) && !(ta = rpl_wake_tid_table(p))) {
		kin_free(&g);
		return -ENOMEM;
	}
	if (p->gap_waker && (err = rpl_wake_idle_table(p, ta, &idle, &n_idle)) < 0)
		goto out;
	for (ti = 0; ti < p->n_threads; ti++) {
		const struct rpl_thread *t = &p->threads[ti];
		uint32_t pr = t->proc;
		int32_t pa = p->procs[pr].parent;
		/* memory shared with another process: its parent's or a
		 * child's, forked without an exec since; looked at only
		 * where the trace has the wake-ups themselves (bpf) */
		int kin = p->woke_ns && (g.kid_off[pr + 1] > g.kid_off[pr] || pa >= 0);

		/* no other thread of its process, nor a process it may share
		 * memory with, to be woken by (a shell loop's thousands of
		 * processes: each wait of each looked through every thread
		 * for one) */
		if (p->procs[pr].n_threads < 2 && !kin && !p->gap_waker)
			continue;
		nw = ni = 0;
		for (k = 0; k < t->n_ops; k++) {
			struct rpl_op *op = &p->ops[t->ops[k]];
			const struct rpl_op *prev = k ? &p->ops[t->ops[k - 1]] :
				t->spawn_op >= 0 ? &p->ops[t->spawn_op] : NULL;
			int64_t s, gap, e = op->ev.t_enter, best = -1, w;
			uint32_t by = 0, by_pos = 0;
			int named;

			if (!prev)
				continue;
			/* (a trace's times may be any int64: saturated, not
			 * overflowed) */
			s = rpl_op_end(prev);
			gap = iot_ns_sub(e, s);
			/* when it was woken (bpf), else its entry */
			w = woken_at(p, op, s);
			/* by a thread the trace names: that one, whatever the
			 * wait's length; else as the times tell */
			named = p->gap_waker && w >= 0 && w != e &&
				rpl_op_col(p->gap_waker, p->n_gap_waker, op);
			if (named)
				best = rpl_wake_gap_waker(p, ta, ti, op, w, &by, &by_pos);
			else if (w >= 0 && a_wait(p, op, gap))
				best = waker_guess(p, &g, ti, kin, w, e, s, &by, &by_pos);
			if (best < 0 && named) {
				int64_t keep = rpl_wake_idle_keep(p, idle, n_idle, op);

				if (keep > 0) {
					RPL_GROW(ig, ni, icap);
					ig[ni++] = (struct idle_gap){ k, keep, gap };
				}
			}
			if (best < 0)
				continue;
			added = rpl_dep_append(p, op, by, by_pos);
			if ((err = added) < 0 ||
			    (p->wake_lag_mode != RPL_WAKE_LAG_NONE &&
			     (err = keep_lag(p, op, by, by_pos, iot_ns_sub(e, best))) < 0))
				goto out;
			if (named) {
				p->gap_wakes++;
				p->gap_wakes_new += (uint64_t)added;
			} else {
				p->wakes += (uint64_t)added;
			}
			RPL_GROW(wk, nw, cap);
			wk[nw++] = (struct wake){ k, iot_ns_sub(e, best), sleep_before(p, op, gap, e, w) };
		}
		rebudget(p, t, wk, nw);
		rpl_wake_idle_give(p, t, ig, ni);
	}
	err = rpl_wake_calls(p, ta);
out:
	free(wk);
	free(ig);
	free(idle);
	free(ta);
	kin_free(&g);
	return err;
}
