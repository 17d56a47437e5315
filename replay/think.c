/*
 * think.c - the think time before each op: the recorded gap since the
 * thread's previous op, less what tracing added to it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rpl.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Think time = recorded gap minus what tracing added to it.  The recorder
 * measures its cost per call (header stop_cost_ns: the entry and exit
 * stops together), but on a loaded machine the real cost of a gap varies
 * with scheduling; the trace itself shows it: in the programs iotape
 * records, a good share of syscalls follow each other with next to no
 * user code between them, so the 5th percentile of the gaps between two
 * stopped calls is what such a gap costs under the tracer.  The per-call
 * cost is the larger of the two (floor 0, cut to RPL_THINK_MAX); the
 * profile header says which was used.
 *
 * A gap holds the tracer's cost only where it touches a stopped call:
 * the exit stop of the call before it, the entry stop of the call after
 * it.  Events logged inside the traced process (IOT_EV_FASTPATH) stop
 * nothing, so a gap loses half the per-call cost for each neighbour that
 * was stopped: all of it between two stopped calls (every gap of a trace
 * without fast-path events), none between two fast-path ones.  The 5th
 * percentile is taken over stopped-stopped gaps only: a fast-path gap of
 * next to nothing would otherwise pass for the cost of a stop.
 *
 * Traces recorded since the fast path timestamps its own start carry,
 * per in-process event, the time the library spent before the call
 * (pre_ns: copying arguments, the lstat of each path): that, not a
 * floor, is what such a gap loses.  The floor left ~0.3 us of the lstat
 * in every gap before a path call (cp -a: think time 0.11 s where cp
 * itself spent 0.04 s).
 *
 * What remains can still hold the tracer's stalls (a chunk flush, a
 * descheduled tracer), which no constant removes.  A process cannot have
 * thought longer than the user CPU time it used, unless it slept in a
 * call iotape does not record (nanosleep, poll): its think times are
 * scaled down to fit its user CPU time.  With --timing raw, only
 * stop_cost_ns is subtracted.
 *
 * The user CPU time of a traced process is itself inflated: after each
 * stop its code resumes with caches and TLB the tracer has used, so a
 * program that makes a call every microsecond or two uses several times
 * the user time it uses untraced (cp -a of a 2,174-entry tree: 40-60 ms
 * traced, 10-20 ms untraced; tar c: 20 ms against 3 ms).  Measured, the
 * excess is about one twentieth of the stop cost per stopped call (a
 * fast-path call does not leave the process), so the budget is the EXIT
 * records' utime less that per stopped call (never below a quarter of
 * the utime), plus half a clock tick: utime is sampled per tick, and a
 * process seen for no tick still ran for up to one.
 */
#define RPL_TICK_NS 10000000.0	/* utime is counted in 1/100 s */

/* The tracer stopped the process around this call. */
static int stopped(const struct rpl_op *op)
{
	return !(op->ev.flags & IOT_EV_FASTPATH);
}

/* Scale each process's think times to fit its user CPU time. */
static int cpu_budget(struct rpl_plan *p)
{
	double *sum = calloc(p->n_procs + 1, sizeof(*sum));
	uint32_t *calls = calloc(p->n_procs + 1, sizeof(*calls));
	double per_call = (double)p->stop_cost_ns / 20.0;
	struct rpl_map utime = { 0 };
	size_t i;
	int err = 0;

	if (!sum || !calls) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->n_precs; i++) {
		const struct iot_process *pr = &p->precs[i];
		uint32_t v = 0;

		if (pr->kind != IOT_PROC_EXIT || pr->utime_ns < 0)
			continue;
		rpl_map_get(&utime, RPL_IK(pr->pid), &v);
		/* in microseconds: 71 minutes of CPU fit */
		v += (uint32_t)(pr->utime_ns / 1000 > UINT32_MAX - v ? UINT32_MAX - v :
				pr->utime_ns / 1000);
		if (rpl_map_put(&utime, RPL_IK(pr->pid), v) < 0) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < p->n_ops; i++) {
		sum[p->threads[p->ops[i].thread].proc] += (double)p->ops[i].think_ns;
		if (stopped(&p->ops[i]))
			calls[p->threads[p->ops[i].thread].proc]++;
	}
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_op *op = &p->ops[i];
		uint32_t pi = p->threads[op->thread].proc, us;
		double budget;

		if (!rpl_map_get(&utime, RPL_IK(p->procs[pi].pid), &us))
			continue;	/* no EXIT record: nothing to go by */
		budget = (double)us * 1000.0 - per_call * calls[pi];
		if (budget < (double)us * 250.0)
			budget = (double)us * 250.0;
		budget += RPL_TICK_NS / 2;
		if (sum[pi] > budget)
			op->think_ns = (int64_t)((double)op->think_ns * budget / sum[pi]);
	}
out:
	rpl_map_free(&utime);
	free(calls);
	free(sum);
	return err;
}

/*
 * Between two fast-path calls there is no stop, but the recorder's library
 * did its own work in the gap: it took an lstat of each path argument,
 * two clock reads and a ring record before the call (0.3-1 us a call,
 * more for path calls).  As with stops, the trace shows what that costs:
 * the 5th percentile of the fast-to-fast gaps before each syscall (pooled
 * over all syscalls when one has too few), removed from each such gap.
 */
struct nr_gap {
	int32_t nr;
	int64_t gap;
};

static int cmp_nr_gap(const void *a, const void *b)
{
	const struct nr_gap *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return x->gap < y->gap ? -1 : x->gap > y->gap;
}

#define FAST_MIN_SAMPLES 50
#define FAST_NR_MAX 512

static int fast_floors(struct rpl_plan *p, const struct rpl_op **prev, int64_t *floor_nr)
{
	struct nr_gap *v = malloc((p->n_ops + 1) * sizeof(*v));
	int64_t *all = malloc((p->n_ops + 1) * sizeof(*all)), pooled = 0;
	size_t i, n = 0, j;

	if (!v || !all) {
		free(v);
		free(all);
		return -ENOMEM;
	}
	for (i = 0; i < FAST_NR_MAX; i++)
		floor_nr[i] = -1;
	for (i = 0; i < p->n_ops; i++) {
		const struct rpl_op *op = &p->ops[i];

		if (p->threads[op->thread].ops[0] == i || !prev[i] || stopped(prev[i]) ||
		    stopped(op))
			continue;
		v[n].nr = op->ev.nr;
		v[n].gap = op->think_ns;
		all[n] = op->think_ns;
		n++;
	}
	if (n >= FAST_MIN_SAMPLES) {
		qsort(all, n, sizeof(*all), cmp_i64);
		pooled = all[n / 20];
	}
	qsort(v, n, sizeof(*v), cmp_nr_gap);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j].nr == v[i].nr; j++)
			;
		if (v[i].nr < 0 || v[i].nr >= FAST_NR_MAX)
			continue;
		floor_nr[v[i].nr] = j - i >= FAST_MIN_SAMPLES ? v[i + (j - i) / 20].gap : pooled;
	}
	p->fast_floor_ns = pooled;
	free(v);
	free(all);
	return 0;
}

int rpl_plan_think(struct rpl_plan *p)
{
	int64_t *g = malloc((p->n_ops + 1) * sizeof(*g)), cost;
	int64_t floor_nr[FAST_NR_MAX];
	const struct rpl_op **prev = calloc(p->n_ops + 1, sizeof(*prev));
	size_t i, n = 0;
	uint32_t k;

	if (!g || !prev) {
		free(g);
		free(prev);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_threads; i++) {
		const struct rpl_thread *t = &p->threads[i];

		if (t->n_ops && t->spawn_op >= 0)
			prev[t->ops[0]] = &p->ops[t->spawn_op];
		for (k = 1; k < t->n_ops; k++)
			prev[t->ops[k]] = &p->ops[t->ops[k - 1]];
	}
	for (i = 0; i < p->n_ops; i++)
		if (p->threads[p->ops[i].thread].ops[0] != i &&
		    stopped(prev[i]) && stopped(&p->ops[i]))
			g[n++] = p->ops[i].think_ns;
	cost = p->stop_cost_ns;
	if (n >= 100) {
		qsort(g, n, sizeof(*g), cmp_i64);
		p->gap_floor_ns = g[n / 20];
		if (p->gap_floor_ns > cost)
			cost = p->gap_floor_ns;
	}
	free(g);
	if (p->o->timing == RPL_TIMING_RAW)
		cost = p->stop_cost_ns;
	p->gap_cost_ns = cost;
	if (p->o->timing != RPL_TIMING_RAW && fast_floors(p, prev, floor_nr) < 0) {
		free(prev);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_op *op = &p->ops[i];
		int64_t t = op->think_ns;

		/* Logged in-process: the library's own work before the call,
		 * measured (pre_ns, traces from this version on); else, fast
		 * path on both sides, its floor. */
		if (p->o->timing != RPL_TIMING_RAW && !stopped(op) && op->ev.pre_ns)
			t -= op->ev.pre_ns;
		else if (p->o->timing != RPL_TIMING_RAW && prev[i] && !stopped(prev[i]) &&
			 !stopped(op) && op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX &&
			 floor_nr[op->ev.nr] > 0)
			t -= floor_nr[op->ev.nr];

		/* half before the gap (the exit stop), half after (the entry
		 * stop): the whole cost between two stopped calls */
		if (!prev[i] || stopped(prev[i]))
			t -= cost / 2;
		if (stopped(op))
			t -= cost - cost / 2;
		if (p->threads[op->thread].ops[0] == i && p->threads[op->thread].spawn_op < 0)
			t = op->think_ns;	/* from the start of the workload */
		if (t > RPL_THINK_MAX) {
			t = RPL_THINK_MAX;
			p->capped++;
		}
		op->think_ns = t > 0 ? t : 0;
	}
	free(prev);
	return p->o->timing == RPL_TIMING_RAW ? 0 : cpu_budget(p);
}
