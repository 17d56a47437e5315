/*
 * plan.c - from a trace to what the executor runs: ops sorted by entry
 * time, one op list per recorded thread, the processes, and the
 * cross-thread dependencies that keep resource order (ROOT, SOSP'13).
 *
 * Resource order: ops on the same path, the same directory's names (ops
 * that create or remove names in it, against a listing or a removal of
 * it), or the same open file (recorded process + fd + open generation,
 * tracked through dup and fork) keep the order they *completed* in when
 * recorded.  Each op depends on the previous op that changed each of its
 * resources; an op that changes a path or a directory's names also on
 * the ops that only looked at it since (deps.c says why); names made or
 * removed in one directory need no order among themselves.  Ordering by
 * completion, not
 * entry, matters: a blocking read that entered before the write that
 * fed it must still come after it, and since every dependency and every
 * earlier op of the same thread completed earlier in the recording, a
 * consistent trace cannot produce a cycle (hostile ones are handled by
 * the executor's deadlock breaker).
 *
 * The steps, each in its file: read and sort (plan_read.c), threads and
 * processes (plan_threads.c), each op's resources (plan_fds.c), resource
 * order (deps.c), think times (think.c), a woken thread's op after the
 * call of the thread that woke it (wakes.c).  Here: the steps in turn, and
 * the check that the plan fits in memory before it is made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>

#include "engine.h"
#include "plan.h"


/* Memory the plan may take: available memory and free swap, in bytes,
 * or 0 if unknown. */
uint64_t rpl_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kb, sum = 0;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 ||
		    sscanf(line, "SwapFree: %llu kB", &kb) == 1)
			sum += kb;
	fclose(f);
	return (uint64_t)sum * 1024;
}

void rpl_mem_huge(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~(huge - 1);

	if (n < 2 * huge || b <= a)
		return;
	/* advice only: EINVAL where THP is not built, and the plan the same */
	(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

void rpl_mem_note(const char *what)
{
	static int on = -1;
	unsigned long long anon = 0, rss = 0, hwm = 0, kb;
	char line[128];
	FILE *f;

	if (on < 0)
		on = getenv("IOTAPE_REPLAY_MEM") != NULL;
	if (!on || !(f = fopen("/proc/self/status", "re")))
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			anon = kb;
		else if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			rss = kb;
		else if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
			hwm = kb;
	fclose(f);
	iot_msg(IOT_MSG_INFO, "replay", "memory: %s: anon %llu KiB, resident %llu KiB, peak %llu KiB",
		what, anon, rss, hwm);
}

/* IOTAPE_REPLAY_BUDGET: the plan's think times, their sum and a hash of
 * them op by op, and of the ops' dependencies, to compare two builds'
 * plans of a trace. */
static void plan_think_sum(const struct rpl_plan *p)
{
	uint64_t h = 1469598103934665603ULL, v;
	double sum = 0;
	size_t i;

	for (i = 0; i < p->n_ops; i++) {
		v = (uint64_t)p->ops[i].think_ns ^ (uint64_t)p->ops[i].ndeps << 48;
		sum += (double)p->ops[i].think_ns;
		h = (h ^ v) * 1099511628211ULL;
	}
	iot_msg(IOT_MSG_INFO, "replay", "budget: plan of %zu ops: think %.3f ms, hash %016llx",
		p->n_ops, sum / 1e6, (unsigned long long)h);
	if (p->order_pulled)
		iot_msg(IOT_MSG_INFO, "replay", "budget: %llu ops ordered before a call on their "
			"path that ended first, whose result showed they came first (deps_seen.c)",
			(unsigned long long)p->order_pulled);
	if (p->wake_lags) {
		uint64_t over = 0;

		for (sum = 0, i = 0; i < p->n_wake_lag; i++) {
			sum += (double)p->wake_lag[i].lag_ns;
			over += p->wake_lag[i].lag_ns > 1000000;
		}
		iot_msg(IOT_MSG_INFO, "replay", "budget: %llu wake lags, %.3f ms in all, %llu of "
			"them over 1 ms", (unsigned long long)p->wake_lags, sum / 1e6,
			(unsigned long long)over);
	}
}

/*
 * IOTAPE_REPLAY_PLAN set: the CPU time of each planning step, said at
 * the plan's end, and the events planned per CPU second (with "only",
 * the replay stops there: replay.c).  The process's CPU time, read
 * between the steps.
 */
enum { LAP_READ, LAP_SORT, LAP_CLEAN, LAP_THREADS, LAP_THINK, LAP_WAKES, LAP_POLLS,
       LAP_MOVES, LAP_N };

struct laps {
	int on;
	double last, s[LAP_N];
};

static double cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Step @k ends: the CPU time since the last lap is its. */
static void lap(struct laps *l, int k)
{
	double now;

	if (!l->on)
		return;
	now = cpu_now();
	l->s[k] += now - l->last;
	l->last = now;
}

static void laps_say(const struct rpl_plan *p, const struct laps *l)
{
	double all = 0;
	int k;

	for (k = 0; k < LAP_N; k++)
		all += l->s[k];
	iot_msg(IOT_MSG_INFO, "replay", "plan: %zu events in %.3f s of CPU time (%.2f M events "
		"per CPU second): read %.3f s, sort %.3f, clean %.3f, threads %.3f, think %.3f, "
		"wakes %.3f, polls %.3f, moves %.3f", p->n_ops, all,
		all > 0 ? (double)p->n_ops / all / 1e6 : 0.0, l->s[LAP_READ], l->s[LAP_SORT],
		l->s[LAP_CLEAN], l->s[LAP_THREADS], l->s[LAP_THINK], l->s[LAP_WAKES],
		l->s[LAP_POLLS], l->s[LAP_MOVES]);
}

/* A trace too long to plan here stops the replay before it fills memory
 * (and the kernel kills it, or something else, with no word why). */
static int check_fits(const struct rpl_plan *p, const struct rpl_opts *o)
{
	uint64_t events = iot_reader_summary(p->rd)->events, avail = rpl_mem_available();
	double need;

	if (o->max_events && o->max_events < events)
		events = o->max_events;
	need = (double)events * (double)RPL_PLAN_BYTES_PER_EVENT;
	if (!avail || need <= (double)avail)
		return 0;
	/* what would fit, with a tenth of the memory left for the rest */
	iot_err(o->cmd, "%s: %llu events need about %.1f GiB to plan (%zu bytes each), more "
		"than the %.1f GiB of memory and swap available here (the plan holds every "
		"event); replay it on a machine with more memory, or its first part here "
		"(--events %llu)", o->trace, (unsigned long long)events, need / (1 << 30),
		(size_t)RPL_PLAN_BYTES_PER_EVENT, (double)avail / (1 << 30),
		(unsigned long long)((double)avail * 0.9 / (double)RPL_PLAN_BYTES_PER_EVENT));
	return -ENOMEM;
}

int rpl_plan_build(struct rpl_plan *p, const struct rpl_opts *o)
{
	struct laps laps = { .on = getenv("IOTAPE_REPLAY_PLAN") != NULL };
	struct rpl_deps *deps = NULL;
	size_t i;
	int err;

	if (laps.on)
		laps.last = cpu_now();
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->root_fd = -1;
	p->out_fd = -1;
	p->start_fd = -EBADF;
	p->arena = iot_arena_new(1 << 20);
	if (!p->arena)
		return -ENOMEM;
	err = iot_reader_open(&p->rd, o->trace);
	if (err < 0) {
		p->open_err = err;
		return err;
	}
	p->hdr = iot_reader_header(p->rd);
	p->stop_cost_ns = p->hdr->stop_cost_ns > 0 ? p->hdr->stop_cost_ns : 0;
	if ((err = check_fits(p, o)) < 0)
		goto out;
	err = rpl_plan_read(p);
	if (err < 0) {
		iot_err(o->cmd, "%s: %s", o->trace, iot_strerror(err));
		goto out;
	}
	rpl_mem_note("read");
	lap(&laps, LAP_READ);
	if ((err = rpl_plan_sort_ops(p)) < 0)
		goto out;
	lap(&laps, LAP_SORT);
	err = rpl_plan_clean_paths(p);
	if (err < 0) {
		iot_err(o->cmd, "%s: planning failed: %s", o->trace, iot_strerror(err));
		goto out;
	}
	/* once, their paths cleaned (sorted before too, they were sorted
	 * twice whenever cleaning changed one) */
	rpl_plan_sort_ps(p);
	deps = rpl_deps_new();
	p->ps_made_t = rpl_prep_made_t(p);	/* what the workload made itself */
	err = -ENOMEM;
	if (!deps || !p->ps_made_t)
		goto out;
	lap(&laps, LAP_CLEAN);
	err = rpl_plan_threads(p, deps);
	rpl_mem_note("threads");
	/* what deps.c kept per resource goes before the next steps take
	 * theirs (3 bytes an event at 10 M events) */
	rpl_deps_free(deps);
	deps = NULL;
	lap(&laps, LAP_THREADS);
	if (err == 0)
		err = rpl_plan_think(p);
	rpl_mem_note("think");
	lap(&laps, LAP_THINK);
	if (err == 0)
		err = rpl_plan_wakes(p);
	lap(&laps, LAP_WAKES);
	if (err == 0)
		err = rpl_plan_polls(p);
	if (err == 0)
		rpl_mpages_plan(p);
	rpl_proc_threads_free(p);	/* the two steps' lists */
	lap(&laps, LAP_POLLS);
	if (err == 0)
		err = rpl_plan_moves(p);
	if (err == 0)
		err = rpl_aio_plan_buf(p);
	lap(&laps, LAP_MOVES);
	if (err == 0 && laps.on)
		laps_say(p, &laps);
	if (err == 0 && getenv("IOTAPE_REPLAY_BUDGET"))
		plan_think_sum(p);
	if (err < 0)
		iot_err(o->cmd, "%s: planning failed: %s", o->trace, iot_strerror(err));
	/* The plan's descriptor tables were for resource ids only. */
	for (i = 0; i < p->n_procs; i++) {
		rpl_fdtab_unref(p->procs[i].tab);
		p->procs[i].tab = NULL;
	}
	rpl_mem_note("plan");
out:
	rpl_deps_free(deps);
	return err;
}

void rpl_plan_free(struct rpl_plan *p)
{
	size_t i;

	rpl_outcome_free(p);
	for (i = 0; i < p->n_threads; i++) {
		free(p->threads[i].ops);
		free(p->threads[i].scratch);
	}
	rpl_aio_free(p);
	rpl_mpages_free(p);
	free(p->connq);
	while (p->n_conn_pool)
		close(p->conn_pool[--p->n_conn_pool].fd);
	free(p->conn_pool);
	rpl_proc_threads_free(p);
	for (i = 0; i < p->n_procs; i++) {
		rpl_plock_drop(&p->procs[i]);
		rpl_fdtab_unref(p->procs[i].tab);
	}
	free(p->threads);
	free(p->procs);
	free(p->ops);
	free(p->deps);
	free(p->ps);
	free(p->ps_ix);
	free(p->ps_made_t);
	free(p->precs);
	free(p->cpu_ns);
	free(p->slept_ns);
	free(p->run_ns);
	free(p->woke_ns);
	free(p->waited_ns);
	free(p->ready_ns);
	free(p->waker);
	free(p->gap_waker);
	free(p->wake_lag);
	free(p->pre_ns);
	free(p->data);
	free(p->late);
	rpl_creds_free(p);
	if (p->rd)
		iot_reader_close(p->rd);
	if (p->arena)
		iot_arena_free(p->arena);
	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	p->out_fd = -1;
	p->start_fd = -EBADF;
}
