/*
 * test_think.c - think times (replay/think.c, replay/budget.c) on plans built here in
 * memory: what a gap loses to tracing depends on whether the calls on
 * each side of it were stopped by the tracer or logged in-process
 * (IOT_EV_FASTPATH); traces without fast-path events keep the old rule
 * (the whole per-call cost off every gap).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rpl.h"

#define COST 10000LL	/* stop_cost_ns of the plans here */
#define FP IOT_EV_FASTPATH

/* A plan of one process, one thread started with the workload, whose
 * ops have the raw gaps @gap[] and the flags @flags[] (NULL: all 0). */
struct tplan {
	struct rpl_plan p;
	struct rpl_opts o;
	struct rpl_thread t;
	struct rpl_proc pr;
	struct iot_process exit_rec;
};

static void tplan_init(struct tplan *tp, size_t n, const int64_t *gap, const uint32_t *flags)
{
	size_t i;

	memset(tp, 0, sizeof(*tp));
	tp->o.timing = RPL_TIMING_ORIGINAL;
	tp->p.o = &tp->o;
	tp->p.stop_cost_ns = COST;
	tp->p.ops = calloc(n, sizeof(*tp->p.ops));
	tp->t.ops = calloc(n, sizeof(*tp->t.ops));
	assert_non_null(tp->p.ops);
	assert_non_null(tp->t.ops);
	tp->p.n_ops = n;
	tp->t.n_ops = (uint32_t)n;
	tp->t.spawn_op = -1;
	tp->t.pid = tp->t.tid = 100;
	tp->pr.pid = 100;
	tp->pr.parent = -1;
	tp->p.threads = &tp->t;
	tp->p.n_threads = 1;
	tp->p.procs = &tp->pr;
	tp->p.n_procs = 1;
	for (i = 0; i < n; i++) {
		tp->p.ops[i].think_ns = gap[i];
		tp->p.ops[i].ev.flags = flags ? flags[i] : 0;
		tp->p.ops[i].ev.tid = 100;
		tp->p.ops[i].seq = (uint32_t)i;
		tp->t.ops[i] = (uint32_t)i;
	}
}

/* Give op @i the fast path's work @ns before its call (iot_event.pre_ns:
 * a column of the plan). */
static void tplan_pre(struct tplan *tp, size_t i, uint32_t ns)
{
	if (!tp->p.pre_ns) {
		tp->p.pre_ns = calloc(tp->p.n_ops, sizeof(*tp->p.pre_ns));
		assert_non_null(tp->p.pre_ns);
		tp->p.n_pre = tp->p.n_ops;
	}
	tp->p.pre_ns[i] = ns;
}

/* Give the process an EXIT record with user time @utime_ns. */
static void tplan_utime(struct tplan *tp, int64_t utime_ns)
{
	tp->exit_rec.kind = IOT_PROC_EXIT;
	tp->exit_rec.pid = tp->exit_rec.tid = 100;
	tp->exit_rec.utime_ns = utime_ns;
	tp->p.precs = &tp->exit_rec;
	tp->p.n_precs = 1;
}

/* Plan @tp's think times with an EXIT record of @utime_ns and @stime_ns
 * and header @h (NULL: none): @return : their sum. */
static int64_t tplan_think_sum(struct tplan *tp, int64_t utime_ns, int64_t stime_ns,
			       const struct iot_header *h)
{
	int64_t sum = 0;
	size_t i;

	tplan_utime(tp, utime_ns);
	tp->exit_rec.stime_ns = stime_ns;
	tp->p.hdr = h;
	assert_int_equal(rpl_plan_think(&tp->p), 0);
	for (i = 0; i < tp->p.n_ops; i++)
		sum += tp->p.ops[i].think_ns;
	return sum;
}

static void tplan_free(struct tplan *tp)
{
	free(tp->p.pre_ns);
	free(tp->p.ops);
	free(tp->t.ops);
}

/* Every gap of a trace without fast-path events loses the whole cost;
 * the first op of the workload keeps its gap. */
static void test_all_stopped(void **state)
{
	static const int64_t gap[] = { 5000, 50000, 12000, 8000, 30000 };
	struct tplan tp;

	tplan_init(&tp, 5, gap, NULL);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.gap_cost_ns, COST);
	assert_int_equal(tp.p.ops[0].think_ns, 5000);
	assert_int_equal(tp.p.ops[1].think_ns, 40000);
	assert_int_equal(tp.p.ops[2].think_ns, 2000);
	assert_int_equal(tp.p.ops[3].think_ns, 0);	/* floor 0 */
	assert_int_equal(tp.p.ops[4].think_ns, 20000);
	tplan_free(&tp);
}

/* Between two fast-path events nothing is subtracted; next to one
 * stopped call, half the cost. */
static void test_fastpath_gaps(void **state)
{
	static const int64_t gap[] = { 0, 30000, 30000, 30000, 30000, 30000 };
	static const uint32_t fl[] = { 0, FP, FP, 0, FP, 0 };
	struct tplan tp;

	tplan_init(&tp, 6, gap, fl);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.ops[1].think_ns, 30000 - COST / 2);	/* stopped -> fast */
	assert_int_equal(tp.p.ops[2].think_ns, 30000);			/* fast -> fast */
	assert_int_equal(tp.p.ops[3].think_ns, 30000 - COST / 2);	/* fast -> stopped */
	assert_int_equal(tp.p.ops[4].think_ns, 30000 - COST / 2);	/* stopped -> fast */
	assert_int_equal(tp.p.ops[5].think_ns, 30000 - COST / 2);	/* fast -> stopped */
	tplan_free(&tp);
}

/* The 5th percentile that can raise the per-call cost comes from
 * stopped-stopped gaps only: with 400 fast-path gaps of 1 us and 199
 * stopped-stopped gaps of 25..124 us the floor is 29 us; over all gaps it
 * would be 1 us, and the stop cost would stay. */
static void test_floor_stopped_only(void **state)
{
	enum { N = 601 };
	int64_t *gap = calloc(N, sizeof(*gap));
	uint32_t *fl = calloc(N, sizeof(*fl));
	struct tplan tp;
	size_t i, k = 0;

	assert_non_null(gap);
	assert_non_null(fl);
	/* op 0, 400 fast-path ops 1 us apart, then 200 stopped ones */
	for (i = 1; i <= 400; i++) {
		fl[i] = FP;
		gap[i] = 1000;
	}
	fl[401] = 0;
	gap[401] = 1000;	/* fast -> stopped */
	for (i = 402; i < N; i++, k++)
		gap[i] = 25000 + (int64_t)(k % 100) * 1000;	/* stopped -> stopped */
	tplan_init(&tp, N, gap, fl);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	/* 199 stopped-stopped gaps: sorted, index 199/20 = 9 -> 29 us */
	assert_int_equal(tp.p.gap_floor_ns, 29000);
	assert_int_equal(tp.p.gap_cost_ns, 29000);
	/* fast -> fast: the library's cost, the p5 of those gaps, goes */
	assert_int_equal(tp.p.fast_floor_ns, 1000);
	assert_int_equal(tp.p.ops[10].think_ns, 0);
	assert_int_equal(tp.p.ops[402].think_ns, 0);		/* 25 us - 29 us */
	assert_int_equal(tp.p.ops[410].think_ns, 33000 - 29000);
	tplan_free(&tp);
	free(gap);
	free(fl);
}

/* Fast-path gaps lose their own syscall's floor when it has 50 samples or
 * more (path calls cost the library an lstat more than a read does), the
 * pooled one otherwise. */
static void test_fast_floor_per_syscall(void **state)
{
	enum { N = 221 };
	int64_t gap[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;

	for (i = 0; i < N; i++) {
		fl[i] = FP;
		gap[i] = i < 101 ? 2000 + (int64_t)i * 10 :		/* read */
			 i < 201 ? 5000 + (int64_t)(i - 101) * 10 :	/* openat */
			 9000;						/* 20 lseeks */
	}
	tplan_init(&tp, N, gap, fl);
	for (i = 0; i < N; i++)
		tp.p.ops[i].ev.nr = i < 101 ? SYS_read : i < 201 ? SYS_openat : SYS_lseek;
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	/* reads 1..100: 2010..3000, p5 = index 5 -> 2060 */
	assert_int_equal(tp.p.ops[50].think_ns, 2500 - 2060);
	/* openats: 5000..5990, p5 = index 5 -> 5050 */
	assert_int_equal(tp.p.ops[150].think_ns, 5490 - 5050);
	/* lseeks: too few, the pooled p5 of all 220 gaps: index 11 -> 2120 */
	assert_int_equal(tp.p.fast_floor_ns, 2120);
	assert_int_equal(tp.p.ops[210].think_ns, 9000 - 2120);
	tplan_free(&tp);
}

/* Without fast-path events the floor is the p5 of all gaps, as it was. */
static void test_floor_unchanged(void **state)
{
	enum { N = 201 };
	int64_t gap[N];
	struct tplan tp;
	size_t i;

	for (i = 0; i < N; i++)
		gap[i] = 20000 + (int64_t)i * 100;
	tplan_init(&tp, N, gap, NULL);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	/* gaps of ops 1..200: 20.1 us .. 40 us; index 200/20 = 10 -> op 11 */
	assert_int_equal(tp.p.gap_floor_ns, 21100);
	assert_int_equal(tp.p.gap_cost_ns, 21100);
	assert_int_equal(tp.p.ops[100].think_ns, 30000 - 21100);
	tplan_free(&tp);
}

/* A measured stop cost larger than the 5th percentile of the gaps between
 * stopped calls (the recorder measured it at a busy moment) is not
 * subtracted: those gaps could not have held it; the 5th percentile is. */
static void test_floor_below_cost(void **state)
{
	enum { N = 201 };
	int64_t gap[N];
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++)
		gap[i] = 5000 + (int64_t)i * 100;
	tplan_init(&tp, N, gap, NULL);
	tp.p.stop_cost_ns = 39000;
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	/* gaps 5.1 .. 25 us; index 10 -> op 11: 6.1 us */
	assert_int_equal(tp.p.gap_floor_ns, 6100);
	assert_int_equal(tp.p.gap_cost_ns, 6100);
	assert_int_equal(tp.p.ops[100].think_ns, 15000 - 6100);
	tplan_free(&tp);
}

/* The CPU budget charges the tracer's excess user time per stopped call
 * only: with utime 2 ms and 100 calls, the budget is 2 ms - 100 x 500 ns
 * + 5 ms when all are stopped, 2 ms + 5 ms when all are fast-path. */
static void test_budget_counts_stopped(void **state)
{
	enum { N = 100 };
	int64_t gap[N];
	uint32_t fl[N];
	struct tplan tp;
	int64_t sum;
	size_t i;

	for (i = 0; i < N; i++) {
		gap[i] = 1000000 + COST;	/* 1 ms each after the cost */
		fl[i] = 0;
	}
	tplan_init(&tp, N, gap, fl);
	tplan_utime(&tp, 2000000);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	for (sum = 0, i = 0; i < N; i++)
		sum += tp.p.ops[i].think_ns;
	/* budget 6.95 ms spread over 100.01 ms of think time */
	assert_true(sum > 6940000 && sum < 6960000);
	tplan_free(&tp);

	/* every tenth gap 1 us: the fast-path floor, 1 us, is small */
	for (i = 0; i < N; i++) {
		gap[i] = i % 10 ? 1000000 : 1000;
		fl[i] = FP;
	}
	tplan_init(&tp, N, gap, fl);
	tplan_utime(&tp, 2000000);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	for (sum = 0, i = 0; i < N; i++)
		sum += tp.p.ops[i].think_ns;
	assert_true(sum > 6990000 && sum <= 7000000);
	tplan_free(&tp);
}

/* A trace with exact CPU times (record.stop_cpu_ns in its header): the
 * budget is user and system time, less the kernel's work for each stop
 * and the library's own time before each in-process call, with no clock
 * tick's slack: utime 1 ms + stime 1 ms, 100 stopped calls at 2 us:
 * 1.8 ms; in-process calls with pre_ns 1 us each: 1.9 ms. */
static void test_budget_exact(void **state)
{
	enum { N = 100 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "2000" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	int64_t gap[N], sum, want;
	uint32_t fl[N];
	struct tplan tp;
	size_t i;
	int fast;

	for (fast = 0; fast < 2; fast++) {
		for (i = 0; i < N; i++) {
			gap[i] = fast ? 1000000 : 1000000 + COST;
			fl[i] = fast ? FP : 0;
		}
		tplan_init(&tp, N, gap, fl);
		for (i = 0; fast && i < N; i++)
			tplan_pre(&tp, i, 1000);
		sum = tplan_think_sum(&tp, 1000000, 1000000, &h);
		want = fast ? 1900000 : 1800000;
		assert_true(sum > want - 10000 && sum <= want);
		tplan_free(&tp);
	}
}

/* A program started under the tracer used more CPU time than its stops
 * account for: record.proc_cpu_ns (0.3 ms here) comes off the budget for
 * each successful exec.  As in test_budget_exact, 1.8 ms without it;
 * 1.5 ms with it, once the process's first call is a successful execve;
 * a failed execve started nothing, 1.8 ms. */
static void test_budget_proc_start(void **state)
{
	enum { N = 100 };
	static const struct iot_kv kv[2] = { { "record.stop_cpu_ns", "2000" },
					     { "record.proc_cpu_ns", "300000" } };
	static const struct { size_t n_extra; int64_t ret, want; } c[] = {
		{ 1, 0, 1800000 }, { 2, 0, 1500000 }, { 2, -ENOENT, 1800000 },
	};
	struct iot_header h = { .extra = kv };
	int64_t gap[N], sum;
	struct tplan tp;
	size_t i, k;

	(void)state;
	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		for (i = 0; i < N; i++)
			gap[i] = 1000000 + COST;
		tplan_init(&tp, N, gap, NULL);
		tp.p.ops[0].ev.nr = SYS_execve;
		tp.p.ops[0].ev.ret = c[k].ret;
		h.n_extra = c[k].n_extra;
		sum = tplan_think_sum(&tp, 1000000, 1000000, &h);
		assert_true(sum > c[k].want - 10000 && sum <= c[k].want);
		tplan_free(&tp);
	}
}

/* Plan @tp, whose op i is a call of syscall @nr[i] (NULL: all read)
 * lasting @dur[i], with an EXIT record of 1 ms of user time and
 * @stime_ns of system time, in a trace with exact CPU times (stop_cpu_ns
 * 2000), and check that its think times sum to @want, less at most
 * 10 us. */
static void check_budget(struct tplan *tp, const int16_t *nr, const int64_t *dur,
			 int64_t stime_ns, int64_t want)
{
	static const struct iot_kv kv = { "record.stop_cpu_ns", "2000" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	int64_t sum;
	size_t i;

	for (i = 0; i < tp->p.n_ops; i++) {
		tp->p.ops[i].ev.nr = nr ? nr[i] : SYS_read;
		tp->p.ops[i].ev.t_enter = (int64_t)i * 30000000;
		tp->p.ops[i].ev.t_exit = tp->p.ops[i].ev.t_enter + dur[i];
		tp->p.ops[i].seq = (uint32_t)i;
	}
	sum = tplan_think_sum(tp, 1000000, stime_ns, &h);
	assert_true(sum > want - 10000 && sum <= want);
}

/* The recorded calls' own system time is not think time: the replay's
 * calls spend it again.  System time goes to the calls first, up to
 * their recorded durations less the stops (COST): utime 1 ms, stime
 * 5 ms, 100 stopped calls at 2 us each for the stops and lasting 40 us
 * besides: 5 - 0.2 - 4 ms of system time was spent between calls, the
 * budget is 1.8 ms (5.8 ms when the calls' system time counted as think
 * time); calls lasting 100 us leave none, the budget is the user time,
 * 1 ms. */
static void test_budget_calls_own_time(void **state)
{
	enum { N = 100 };
	static const int64_t each[2] = { 40000 + COST, 100000 }, want[2] = { 1800000, 1000000 };
	int64_t gap[N], dur[N];
	struct tplan tp;
	size_t i;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < N; i++) {
			gap[i] = 1000000 + COST;
			dur[i] = each[k];
		}
		tplan_init(&tp, N, gap, NULL);
		check_budget(&tp, NULL, dur, 5000000, want[k]);
		tplan_free(&tp);
	}
}

/* A short program's CPU time is often all user time: no clock tick fell
 * in the kernel, so the split gives it no system time.  Its calls' CPU
 * time comes out of the user time then: utime 10 ms, stime 0, 100
 * stopped calls of 2 us of stops and 40 us besides: 10 - 0.2 - 4 =
 * 5.8 ms (9.8 ms when the calls were taken from the system time only). */
static void test_budget_no_system_tick(void **state)
{
	enum { N = 100 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "2000" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	int64_t gap[N], sum;
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++)
		gap[i] = 1000000 + COST;
	tplan_init(&tp, N, gap, NULL);
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = SYS_read;
		tp.p.ops[i].ev.t_enter = (int64_t)i * 30000000;
		tp.p.ops[i].ev.t_exit = tp.p.ops[i].ev.t_enter + 40000 + COST;
	}
	sum = tplan_think_sum(&tp, 10000000, 0, &h);
	assert_true(sum > 5800000 - 10000 && sum <= 5800000);
	tplan_free(&tp);
}

/* A call that blocked is not CPU time: utime 1 ms, stime 3 ms, 100
 * calls logged in-process, 99 reads of 10 us and one slow call of 20 ms:
 * a read that blocked, or a wait4.  The blocked read counts as 16
 * medians of the reads, 160 us, the wait4 as 0: the calls used 1.15 ms
 * or 0.99 ms, the budget is 1 + 3 - 1.15 = 2.85 ms (3.01).  With
 * durations as CPU time, the 20 ms call took all the system time, and
 * the budget was the user time, 1 ms; as it still is where the slow
 * call is the only one of its kind (an fadvise): too few to tell
 * blocking from work, it counts whole.  Stopped (0.2 ms of stops, the
 * reads 10 us besides them), the blocked read counts no more than the
 * reads the tracer answered at once, 10 us: 1 + 3 - 0.2 - 1.0 = 2.8 ms;
 * the wait4 2.81 ms, the fadvise 1 ms. */
static void test_budget_blocked_call(void **state)
{
	enum { N = 100 };
	static const int16_t slow[3] = { SYS_read, SYS_wait4, SYS_fadvise64 };
	static const int64_t want[2][3] = { { 2800000, 2810000, 1000000 },
					    { 2850000, 3010000, 1000000 } };
	int64_t gap[N], dur[N];
	uint32_t fl[N];
	int16_t nr[N];
	struct tplan tp;
	size_t i;
	int k, fast;

	(void)state;
	for (fast = 0; fast < 2; fast++)
		for (k = 0; k < 3; k++) {
			for (i = 0; i < N; i++) {
				gap[i] = 1000000 + (fast ? 1 : COST);
				fl[i] = fast ? FP : 0;
				nr[i] = i == N / 2 ? slow[k] : SYS_read;
				dur[i] = (fast ? 0 : COST) + (i == N / 2 ? 20000000 : 10000);
			}
			tplan_init(&tp, N, gap, fl);
			/* the library's time before each call (1 ns), not
			 * the floor of the gaps, comes off them */
			for (i = 0; fast && i < N; i++)
				tplan_pre(&tp, i, 1);
			check_budget(&tp, nr, dur, 3000000, want[fast][k]);
			tplan_free(&tp);
		}
}

/* Where most calls of a kind block, their median is a blocked one's
 * and bounds nothing: utime 1 ms, stime 3 ms, 100 reads logged
 * in-process, 80 of 1 ms (from a cold disk) and 20 of 10 us.  Counted up
 * to 16 medians, the reads used 80.2 ms of CPU time, more than the
 * thread used in all (4 ms), and the budget was the user time, 1 ms.
 * Each counts at most the 5th percentile of the reads then, 10 us: the
 * calls used 1 ms, the budget is 1 + 3 - 1 = 3 ms.  Where the estimate
 * fits the thread's CPU time (20 reads of 1 ms, 80 of 10 us: the slow
 * ones count 16 medians, 160 us, 4 ms in all, against 10 ms of stime),
 * it holds: 1 + 10 - 4 = 7 ms. */
static void test_budget_blocked_kind(void **state)
{
	enum { N = 100 };
	static const int nslow[2] = { 80, 20 };
	static const int64_t stime[2] = { 3000000, 10000000 }, want[2] = { 3000000, 7000000 };
	int64_t gap[N], dur[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < N; i++) {
			gap[i] = 1000000 + 1;
			fl[i] = FP;
			dur[i] = (int)i < nslow[k] ? 1000000 : 10000;
		}
		tplan_init(&tp, N, gap, fl);
		for (i = 0; i < N; i++)
			tplan_pre(&tp, i, 1);
		check_budget(&tp, NULL, dur, stime[k], want[k]);
		tplan_free(&tp);
	}
}

/* A stopped call's duration holds the tracer's answer to its two stops,
 * not CPU time: utime 1 ms, stime 3 ms, 100 stopped ioctls (0.2 ms of
 * stops), 10 of them answered at once (5 us besides the stops), 90 held
 * 500 us.  They count at most what the unheld ones took, the 5th
 * percentile of their kind, 5 us each: the calls used 0.5 ms, the budget
 * is 1 + 3 - 0.2 - 0.5 = 3.3 ms.  As durations (all within 16 medians),
 * they took 45 ms, all the system time, and the budget was the user
 * time, 1 ms.  Logged in-process they are not held, and would keep
 * their durations, 45 ms, more than the thread's 4 ms of CPU time: so
 * they blocked, and each counts at most the 5th percentile of its kind
 * (test_budget_blocked_kind), 5 us: the budget is 1 + 3 - 0.5 = 3.5 ms
 * (1 ms before that bound). */
static void test_budget_stopped_held(void **state)
{
	enum { N = 100 };
	static const int64_t want[2] = { 3300000, 3500000 };
	int64_t gap[N], dur[N];
	uint32_t fl[N];
	int16_t nr[N];
	struct tplan tp;
	size_t i;
	int fast;

	(void)state;
	for (fast = 0; fast < 2; fast++) {
		for (i = 0; i < N; i++) {
			/* fast-path gaps vary, so that their floor is small */
			gap[i] = fast ? 1000000 + (int64_t)(i % 10) * 100000 : 1000000 + COST;
			fl[i] = fast ? FP : 0;
			nr[i] = SYS_ioctl;
			dur[i] = (fast ? 0 : COST) + (i % 10 ? 500000 : 5000);
		}
		tplan_init(&tp, N, gap, fl);
		check_budget(&tp, nr, dur, 3000000, want[fast]);
		tplan_free(&tp);
	}
}

/* A kind's median of 4.3 s or more (2^32 ns) still bounds its calls at
 * 16 medians: 100 reads logged in-process, 39 of 10 us, 60 of 5 s, one
 * of 75 s; utime 1 ms, stime 500 s.  The median is 5 s: the 75 s read
 * counts whole (under 80 s), the calls used 375.00039 s, and the budget
 * is 0.001 + 500 - 375.00039 s, less the library's 100 ns (with the
 * median cut at 2^32 - 1 ns, the 75 s read counted 68.7 s and the budget
 * was 6.3 s more).  The gaps, 2 s each, are scaled down to it. */
static void test_budget_long_median(void **state)
{
	enum { N = 100 };
	int64_t gap[N], dur[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		gap[i] = 2000000000LL + 1;
		fl[i] = FP;
		dur[i] = i < 39 ? 10000 : i < 99 ? 5000000000LL : 75000000000LL;
	}
	tplan_init(&tp, N, gap, fl);
	for (i = 0; i < N; i++)
		tplan_pre(&tp, i, 1);
	check_budget(&tp, NULL, dur, 500000000000LL, 125000609900LL);
	tplan_free(&tp);
}

/* The stops hold no more of a stopped call than the calls of the kind
 * that lasted least took: 100 stopped calls, gaps of 1 ms (fewer than
 * 100 between two stopped calls: the stops cost COST, 10 us, a gap),
 * utime 1 ms, stime 1 ms.  50 io_getevents lasting 8 us, stops and all,
 * so the stops held at most 8 us of each call, not COST; 50 io_submit
 * lasting 13 us, 5 us of it the call's own: the calls used 0.25 ms
 * (io_getevents 0 each, its CPU not told apart from the stops), the stops
 * 0.2 ms, and the budget is 1 + 1 - 0.2 - 0.25 = 1.55 ms.  Less COST,
 * io_submit counted 3 us and the budget was 1.65 ms. */
static void test_budget_held_by_calls(void **state)
{
	enum { N = 100 };
	int64_t gap[N], dur[N];
	int16_t nr[N];
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		gap[i] = 1000000;
		nr[i] = i % 2 ? SYS_io_submit : SYS_io_getevents;
		dur[i] = i % 2 ? 13000 : 8000;
	}
	tplan_init(&tp, N, gap, NULL);
	check_budget(&tp, nr, dur, 1000000, 1550000);
	tplan_free(&tp);
}

/* What the stops cost a stopped call is what the trace measured of its
 * kind that costs least (run_ns: the thread's CPU time from the exit
 * stop of the call before it to its own), at the median, not the
 * calibration's 2 us: as test_budget_held_by_calls, with stime 3 ms, 50
 * io_getevents (run_ns 10 us, a tenth of them 4 us) and 50 io_submit
 * (20 us).  The stops 100 x 10 us, the calls 0.25 ms: the budget is 1 +
 * 3 - 1 - 0.25 = 2.75 ms; with the calibration 3.55 ms, with the 5th
 * percentile (4 us) 3.35 ms.  Without run_ns, as before. */
static void test_budget_run_cost(void **state)
{
	enum { N = 100 };
	static const int64_t want[2] = { 3550000, 2750000 };
	int64_t gap[N], dur[N];
	int16_t nr[N];
	struct tplan tp;
	size_t i;
	int run;

	(void)state;
	for (run = 0; run < 2; run++) {
		for (i = 0; i < N; i++) {
			gap[i] = 1000000;
			nr[i] = i % 2 ? SYS_io_submit : SYS_io_getevents;
			dur[i] = i % 2 ? 13000 : 8000;
		}
		tplan_init(&tp, N, gap, NULL);
		if (run) {
			tp.p.run_ns = calloc(N, sizeof(*tp.p.run_ns));
			assert_non_null(tp.p.run_ns);
			tp.p.n_run = N;
			/* the thread's first call: none measured */
			for (i = 1; i < N; i++)
				tp.p.run_ns[i] = i % 2 ? 20000 : i % 20 ? 10000 : 4000;
		}
		check_budget(&tp, nr, dur, 3000000, want[run]);
		free(tp.p.run_ns);
		tplan_free(&tp);
	}
}

#define BPF_N 100

/* The plan of test_budget_recorded_cpu in @tp, its durations in @dur and
 * cpu_ns in @cpu (not given to the plan) */
static void tplan_bpf(struct tplan *tp, uint32_t *cpu, int64_t *dur)
{
	int64_t gap[BPF_N];
	uint32_t fl[BPF_N];
	size_t i;

	for (i = 0; i < BPF_N; i++) {
		gap[i] = i < BPF_N / 10 ? 0 : 1000000;
		fl[i] = IOT_EV_BPF;
		cpu[i] = 5000;
		dur[i] = 20000000;
	}
	tplan_init(tp, BPF_N, gap, fl);
}

/* A call's recorded time on a CPU (cpu_ns, the bpf backend's) is its
 * share, whatever its duration: 100 calls of 20 ms each on a CPU for
 * 5 us, no stops: utime 1 ms, stime 3 ms, the budget 1 + 3 - 0.5 =
 * 3.5 ms.  Without cpu_ns every call is a slow one of its kind: their
 * median is 20 ms, and the budget the user time.  (A tenth of
 * the gaps are 0, so that the floor of the gaps between unstopped calls
 * is 0.) */
static void test_budget_recorded_cpu(void **state)
{
	enum { N = BPF_N };
	static const int64_t want[2] = { 1000000, 3500000 };
	uint32_t cpu[N];
	int64_t dur[N];
	struct tplan tp;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		tplan_bpf(&tp, cpu, dur);
		if (k) {
			tp.p.cpu_ns = cpu;
			tp.p.n_cpu = N;
		}
		check_budget(&tp, NULL, dur, 3000000, want[k]);
		tplan_free(&tp);
	}
}

/* Each thread's think times fit its own CPU time when the trace has its
 * EXIT record: one process, thread 100 waits (ten 10 ms gaps, 10 ms of
 * CPU), thread 101 computes (ten 1 ms gaps, 10 ms of CPU).  The waiting
 * thread's gaps are cut to 10 ms, the computing thread's kept (with one
 * budget for the process, 20 ms over 110 ms, they were cut to 1.8 ms).
 * Without its own record, thread 101 falls back to its process's. */
static void test_budget_per_thread(void **state)
{
	enum { N = 10 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "0" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	struct rpl_op ops[2 * N];
	uint32_t idx[2][N];
	struct rpl_thread th[2];
	struct iot_process ex[2];
	struct rpl_proc pr;
	struct rpl_plan p;
	struct rpl_opts o;
	int64_t sum[2];
	int own, k;
	size_t i;

	(void)state;
	for (own = 1; own >= 0; own--) {
		memset(&p, 0, sizeof(p));
		memset(&o, 0, sizeof(o));
		memset(ops, 0, sizeof(ops));
		memset(th, 0, sizeof(th));
		memset(ex, 0, sizeof(ex));
		memset(&pr, 0, sizeof(pr));
		o.timing = RPL_TIMING_ORIGINAL;
		p.o = &o;
		p.hdr = &h;
		p.stop_cost_ns = COST;
		pr.pid = 100;
		pr.parent = -1;
		for (k = 0; k < 2; k++) {
			th[k].pid = 100;
			th[k].tid = 100 + k;
			th[k].spawn_op = -1;
			th[k].ops = idx[k];
			th[k].n_ops = N;
			ex[k].kind = IOT_PROC_EXIT;
			ex[k].pid = 100;
			ex[k].tid = 100 + k;
			ex[k].utime_ns = 10000000;
			for (i = 0; i < N; i++) {
				struct rpl_op *op = &ops[k * N + i];

				op->thread = (uint32_t)k;
				op->think_ns = k ? 1000000 : 10000000;
				op->ev.flags = FP;
				op->ev.tid = 100 + k;
				idx[k][i] = (uint32_t)(k * N + i);
			}
		}
		p.ops = ops;
		p.n_ops = 2 * N;
		p.threads = th;
		p.n_threads = 2;
		p.procs = &pr;
		p.n_procs = 1;
		p.precs = ex;
		p.n_precs = own ? 2 : 1;
		assert_int_equal(rpl_plan_think(&p), 0);
		for (k = 0; k < 2; k++)
			for (sum[k] = 0, i = 0; i < N; i++)
				sum[k] += ops[k * N + i].think_ns;
		if (own) {
			assert_true(sum[0] > 9990000 && sum[0] <= 10000000);
			assert_int_equal(sum[1], 10000000);
		} else {
			/* thread 101 by its process's: 10 ms over 110 ms */
			assert_true(sum[1] > 900000 && sum[1] < 920000);
		}
	}
}

/* In-process events that carry the library's own time before the call
 * lose exactly that (and no floor); with --timing raw they keep it. */
static void test_pre_ns(void **state)
{
	static const int64_t gap[] = { 0, 5000, 5000, 5000, 5000 };
	static const uint32_t fl[] = { FP, FP, FP, FP, 0 };
	static const uint32_t pre[] = { 0, 3000, 4000, 6000, 0 };
	struct tplan tp;
	size_t i;

	(void)state;
	tplan_init(&tp, 5, gap, fl);
	for (i = 0; i < 5; i++)
		tplan_pre(&tp, i, pre[i]);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.ops[1].think_ns, 2000);
	assert_int_equal(tp.p.ops[2].think_ns, 1000);
	assert_int_equal(tp.p.ops[3].think_ns, 0);
	/* a stopped call after an in-process one: half the stop cost */
	assert_int_equal(tp.p.ops[4].think_ns, 5000 - (COST - COST / 2));
	tplan_free(&tp);

	tplan_init(&tp, 5, gap, fl);
	tp.o.timing = RPL_TIMING_RAW;
	for (i = 0; i < 5; i++)
		tplan_pre(&tp, i, pre[i]);
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.ops[1].think_ns, 5000);
	tplan_free(&tp);
}

/* A bpf call held by the guard's stop loses its hold (pre_ns) and the
 * 5th percentile of the held gaps less their holds, per syscall: what
 * the stop and the BPF programs cost besides the hold.  Op 0 starts the
 * workload; ops 1..100 are reads, not held, gaps 2000..2990 ns; ops
 * 101..200 unlinks, each held 50 us, gaps 54000..54990 ns.  The reads'
 * floor is the p5 of their own gaps, 2050 (not of the held ones too:
 * 2100); the unlinks' held floor is 4050: unlink 150 thinks
 * 54490 - 50000 - 4050 ns. */
static void test_bpf_held_floor(void **state)
{
	enum { N = 201 };
	int64_t gap[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		fl[i] = IOT_EV_BPF;
		gap[i] = i == 0 ? 0 : i <= 100 ? 2000 + (int64_t)(i - 1) * 10 :
			 54000 + (int64_t)(i - 101) * 10;
	}
	tplan_init(&tp, N, gap, fl);
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = i <= 100 ? SYS_read : SYS_unlink;
		if (i > 100)
			tplan_pre(&tp, i, 50000);
	}
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.fast_floor_ns, 2050);
	assert_int_equal(tp.p.ops[50].think_ns, 2490 - 2050);
	assert_int_equal(tp.p.ops[150].think_ns, 54490 - 50000 - 4050);
	tplan_free(&tp);

	/* under --timing raw, neither: the gap less the stop cost only */
	tplan_init(&tp, N, gap, fl);
	tp.o.timing = RPL_TIMING_RAW;
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = i <= 100 ? SYS_read : SYS_unlink;
		if (i > 100)
			tplan_pre(&tp, i, 50000);
	}
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.ops[150].think_ns, 54490);
	tplan_free(&tp);
}

/* A bpf gap loses at most the least syscall's floor: what the BPF
 * programs cost a gap does not depend on the call after it, and a kind
 * whose every gap holds the program's code has that code in its 5th
 * percentile too.  Op 0 starts the workload; ops 1..100 are closes, gaps
 * 500..1490 ns (floor 550); ops 101..200 io_submits, gaps 1500..2490 ns
 * (their own floor 1550, the program's ~1 us of code with the
 * programs' cost): io_submit 150 thinks 1990 - 550 ns, not 440.  With
 * a budget (@budget, exact CPU times: the calls' 1 us each on a CPU, and
 * 250 us of CPU time outside them), what the floors took is the
 * programs' CPU time and comes off it: 200 x 550 ns at most, the budget
 * 140 us (40 us where io_submit's gaps lost 1550 ns each).  Fast-path gaps keep
 * their own syscall's floor (test_fast_floor_per_syscall). */
static int64_t bpf_least_sum(struct tplan *tp, int budget)
{
	enum { N = 201 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "0" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	static uint32_t cpu[N];
	int64_t gap[N], sum = 0;
	uint32_t fl[N];
	size_t i;

	for (i = 0; i < N; i++) {
		fl[i] = IOT_EV_BPF;
		gap[i] = i == 0 ? 0 : i <= 100 ? 500 + (int64_t)(i - 1) * 10 :
			 1500 + (int64_t)(i - 101) * 10;
		cpu[i] = 1000;
	}
	tplan_init(tp, N, gap, fl);
	tp->p.cpu_ns = cpu;
	tp->p.n_cpu = N;
	for (i = 0; i < N; i++) {
		tp->p.ops[i].ev.nr = i <= 100 ? SYS_close : SYS_io_submit;
		tp->p.ops[i].ev.t_enter = (int64_t)i * 10000;
		tp->p.ops[i].ev.t_exit = tp->p.ops[i].ev.t_enter + 1000;
	}
	if (budget)
		return tplan_think_sum(tp, 0, N * 1000 + 250000, &h);
	assert_int_equal(rpl_plan_think(&tp->p), 0);
	for (i = 0; i < N; i++)
		sum += tp->p.ops[i].think_ns;
	return sum;
}

static void test_bpf_least_floor(void **state)
{
	struct tplan tp;
	int64_t sum;

	(void)state;
	bpf_least_sum(&tp, 0);
	assert_int_equal(tp.p.bpf_floor_ns, 550);
	assert_int_equal(tp.p.ops[50].think_ns, 990 - 550);
	assert_int_equal(tp.p.ops[150].think_ns, 1990 - 550);
	tplan_free(&tp);

	/* 250 us less 195 x 550 and 5 x 500..540 ns: 140.15 us */
	sum = bpf_least_sum(&tp, 1);
	assert_true(sum > 140150 - 1000 && sum <= 140150);
	tplan_free(&tp);
}

/* Where the recorder measured its programs' cost (record.bpf_gap_ns,
 * 500 ns), a bpf gap loses that, not the trace's least floor: a loop of
 * one kind of call, 1 us of computing in every gap (gaps 1500..2490 ns,
 * their own 5th percentile 1550, the least floor), keeps its computing.
 * Ops 1..100 lseeks, op 0 starts the workload; op 100's gap is 300 ns,
 * shorter than the measure, and loses only itself. */
static void test_bpf_measured_gap(void **state)
{
	enum { N = 101 };
	static const struct iot_kv kv = { "record.bpf_gap_ns", "500" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	int64_t gap[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		fl[i] = IOT_EV_BPF;
		gap[i] = i == 0 ? 0 : i == 100 ? 300 : 1500 + (int64_t)(i - 1) * 10;
	}
	tplan_init(&tp, N, gap, fl);
	tp.p.hdr = &h;
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = SYS_lseek;
		tp.p.ops[i].ev.t_enter = (int64_t)i * 10000;
		tp.p.ops[i].ev.t_exit = tp.p.ops[i].ev.t_enter + 1000;
	}
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.bpf_floor_ns, 500);
	assert_int_equal(tp.p.ops[1].think_ns, 1500 - 500);
	assert_int_equal(tp.p.ops[50].think_ns, 1990 - 500);
	assert_int_equal(tp.p.ops[100].think_ns, 0);
	tplan_free(&tp);
}

/* The recorder's measure (record.bpf_gap_ns, @measure ns) against the
 * trace's least floor where its calls are of two kinds: ops 1..100
 * closes, gaps 500..1490 ns (floor 550), ops 101..200 io_submits, gaps
 * 1500..2490 ns.  A measure of 300 is below the least floor: a gap loses
 * 550; one of 700 is above it: a gap loses 700. */
static void bpf_measure_least(int64_t measure, int64_t want)
{
	enum { N = 201 };
	char v[24];
	struct iot_kv kv = { "record.bpf_gap_ns", v };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	int64_t gap[N];
	uint32_t fl[N];
	struct tplan tp;
	size_t i;

	snprintf(v, sizeof(v), "%lld", (long long)measure);
	for (i = 0; i < N; i++) {
		fl[i] = IOT_EV_BPF;
		gap[i] = i == 0 ? 0 : i <= 100 ? 500 + (int64_t)(i - 1) * 10 :
			 1500 + (int64_t)(i - 101) * 10;
	}
	tplan_init(&tp, N, gap, fl);
	tp.p.hdr = &h;
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = i <= 100 ? SYS_close : SYS_io_submit;
		tp.p.ops[i].ev.t_enter = (int64_t)i * 10000;
		tp.p.ops[i].ev.t_exit = tp.p.ops[i].ev.t_enter + 1000;
	}
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.bpf_floor_ns, want);
	assert_int_equal(tp.p.ops[50].think_ns, 990 - want);
	assert_int_equal(tp.p.ops[150].think_ns, 1990 - want);
	tplan_free(&tp);
}

static void test_bpf_measure_least(void **state)
{
	(void)state;
	bpf_measure_least(300, 550);
	bpf_measure_least(700, 700);
}

/* 101 bpf reads, 1 us on a CPU each; 10 of the 100 gaps after the first
 * 5 us (the floor), 90 of 100 us (the thread preempted in them), each
 * call held @held_ns by the guard's stop before it (pre_ns, its gap that
 * much longer); utime 1 ms, stime 2.101 ms, the EXIT record's rec_ns
 * @rec_ns: @return : the planned think times' sum. */
static int64_t bpf_floor_sum(uint32_t held_ns, int64_t rec_ns)
{
	enum { N = 101 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "0" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	uint32_t cpu[N], pre[N], fl[N];
	int64_t gap[N], sum;
	struct tplan tp;
	size_t i;

	for (i = 0; i < N; i++) {
		gap[i] = i == 0 ? 0 : i <= 10 ? 5000 : 100000;
		pre[i] = held_ns;
		gap[i] += pre[i];
		fl[i] = IOT_EV_BPF;
		cpu[i] = 1000;
	}
	tplan_init(&tp, N, gap, fl);
	tp.p.cpu_ns = cpu;
	tp.p.n_cpu = N;
	if (held_ns) {
		tp.p.pre_ns = pre;
		tp.p.n_pre = N;
	}
	for (i = 0; i < N; i++) {
		tp.p.ops[i].ev.nr = SYS_read;
		tp.p.ops[i].ev.t_enter = (int64_t)i * 200000;
		tp.p.ops[i].ev.t_exit = tp.p.ops[i].ev.t_enter + 1000;
	}
	tp.exit_rec.rec_ns = rec_ns;
	sum = tplan_think_sum(&tp, 1000000, 2101000, &h);
	assert_int_equal(held_ns ? tp.p.held_floor_ns : tp.p.fast_floor_ns, 5000);
	tp.p.pre_ns = NULL;
	tplan_free(&tp);
	return sum;
}

/* What think.c takes off a bpf recording's gaps as the BPF programs'
 * cost (the floor of the unheld gaps, the held floor besides a hold) is
 * CPU time of the thread's, in its recorded CPU time: the budget loses
 * it too.  bpf_floor_sum(): 3 ms outside the calls, 0.5 ms of it the
 * programs' (100 floors): the gaps are cut to 2.5 ms, not 3 ms.  The
 * same where each call was held 50 us by the guard's stop. */
static void test_bpf_floor_budget(void **state)
{
	int held;

	(void)state;
	for (held = 0; held < 2; held++) {
		int64_t sum = bpf_floor_sum(held ? 50000 : 0, 0);

		assert_true(sum > 2500000 - 1000 && sum <= 2500000);
	}
}

/* The BPF programs' time at the thread's page faults outside its calls
 * (the EXIT record's rec_ns) is in its recorded CPU time and is no
 * program's: the budget loses it as it loses think.c's floors.  With
 * 0.4 ms of rec_ns besides, bpf_floor_sum()'s gaps are cut to 2.1 ms,
 * not 2.5 ms. */
static void test_bpf_fault_budget(void **state)
{
	int64_t sum = bpf_floor_sum(0, 400000);

	(void)state;
	assert_true(sum > 2100000 - 1000 && sum <= 2100000);
}

/* ... and that time was spent in the thread's gaps, not only counted in
 * its CPU time: the gaps lose it where the budget leaves them whole.
 * 101 bpf reads, 1 us on a CPU each, 10 of the 100 gaps after the first
 * 5 us (the floor) and 90 of 20 us, none preempted; 10 ms of user time,
 * far above them: the floors leave 90 x 15 us = 1.35 ms, and with 0.3 ms
 * of rec_ns, 1.05 ms (the budget alone left 1.35). */
static void test_bpf_fault_gaps(void **state)
{
	enum { N = 101 };
	static const struct iot_kv kv = { "record.stop_cpu_ns", "0" };
	struct iot_header h = { .extra = &kv, .n_extra = 1 };
	uint32_t cpu[N], fl[N];
	int64_t gap[N], sum, rec;
	struct tplan tp;
	size_t i;

	(void)state;
	for (rec = 0; rec <= 300000; rec += 300000) {
		for (i = 0; i < N; i++) {
			gap[i] = i == 0 ? 0 : i <= 10 ? 5000 : 20000;
			fl[i] = IOT_EV_BPF;
			cpu[i] = 1000;
		}
		tplan_init(&tp, N, gap, fl);
		tp.p.cpu_ns = cpu;
		tp.p.n_cpu = N;
		for (i = 0; i < N; i++) {
			tp.p.ops[i].ev.nr = SYS_read;
			tp.p.ops[i].ev.t_enter = (int64_t)i * 30000;
			tp.p.ops[i].ev.t_exit = tp.p.ops[i].ev.t_enter + 1000;
		}
		tp.exit_rec.rec_ns = rec;
		sum = tplan_think_sum(&tp, 10000000, 1000000, &h);
		assert_int_equal(tp.p.fast_floor_ns, 5000);
		assert_true(sum > 1350000 - rec - 1000 && sum <= 1350000 - rec);
		tplan_free(&tp);
	}
}

/* A gap's sleep on a disk (slept_ns, the bpf backend's) comes out of
 * its think time and is not cut by the budget, which bounds computing:
 * the calls of test_budget_recorded_cpu (budget 3.5 ms), 90 of 1 ms
 * gaps holding 0.6 ms of sleep each, but the one at N / 2 a sleep of
 * 2 ms, more than its gap: it sleeps the 1 ms gap.  The think times
 * (89 x 0.4 ms) are cut to the budget, the sleeps kept whole:
 * 89 x 0.6 + 1 ms.  Under --timing raw the gaps stay whole, no sleep
 * apart. */
static void test_gap_sleep(void **state)
{
	enum { N = BPF_N };
	uint32_t cpu[N], slept[N];
	int64_t dur[N], sum = 0;
	struct tplan tp;
	size_t i;
	int raw;

	(void)state;
	for (raw = 0; raw < 2; raw++) {
		for (i = 0; i < N; i++)
			slept[i] = i < N / 10 ? 0 : i == N / 2 ? 2000000 : 600000;
		tplan_bpf(&tp, cpu, dur);
		tp.p.cpu_ns = cpu;
		tp.p.n_cpu = N;
		tp.p.slept_ns = slept;
		tp.p.n_slept = N;
		if (raw) {
			tp.o.timing = RPL_TIMING_RAW;
			for (i = 0; i < N; i++)
				tp.p.ops[i].seq = (uint32_t)i;
			assert_int_equal(rpl_plan_think(&tp.p), 0);
			assert_int_equal(tp.p.ops[20].think_ns, 1000000);
			for (i = 0; i < N; i++)
				assert_int_equal(slept[i], 0);
		} else {
			check_budget(&tp, NULL, dur, 3000000, 3500000);
			assert_int_equal(tp.p.ops[N / 2].think_ns, 0);
			assert_int_equal(slept[N / 2], 1000000);
			assert_int_equal(slept[20], 600000);
			for (i = 0, sum = 0; i < N; i++)
				sum += slept[i];
			assert_int_equal(sum, 89 * 600000 + 1000000);
		}
		tplan_free(&tp);
	}
}

/* --timing raw subtracts stop_cost_ns, split the same way, and no budget. */
static void test_raw(void **state)
{
	static const int64_t gap[] = { 0, 30000, 30000, 30000 };
	static const uint32_t fl[] = { 0, 0, FP, FP };
	struct tplan tp;

	tplan_init(&tp, 4, gap, fl);
	tp.o.timing = RPL_TIMING_RAW;
	assert_int_equal(rpl_plan_think(&tp.p), 0);
	assert_int_equal(tp.p.ops[1].think_ns, 30000 - COST);
	assert_int_equal(tp.p.ops[2].think_ns, 30000 - COST / 2);
	assert_int_equal(tp.p.ops[3].think_ns, 30000);
	tplan_free(&tp);
}

/*
 * The closed-loop schedule (rpl_sched_*), on a simulated clock: a
 * replayer that spends @pre before each op's call (finding the op, its
 * descriptor, its parent) and @post after it.  The workload's time is
 * the think times plus the calls; the replayer's own time should hide in
 * the think time wherever there is enough of it.
 */
struct sim {
	struct rpl_sched s;
	int64_t t;		/* the replayer's clock */
	int64_t prev_end;	/* end of the previous call */
};

/* One op: @return : when its call started. */
static int64_t sim_op(struct sim *m, int64_t think, int64_t pre, int64_t dur, int64_t post)
{
	int64_t ideal = m->prev_end + think;
	int64_t start = rpl_sched_start(&m->s, ideal);
	int64_t call;

	if (start > m->t)
		m->t = start;		/* sleeps until then */
	call = m->t + pre;
	rpl_sched_ran(&m->s, ideal, call);
	m->prev_end = call + dur;
	m->t = m->prev_end + post;
	return call;
}

static void test_sched_hides_overhead(void **state)
{
	struct sim m = { { 0 }, 0, 0 };
	int64_t call;
	int i;

	(void)state;
	/* think 1000 >= pre 200 + post 100: only the first op's pre shows */
	for (i = 0; i < 100; i++) {
		int64_t ideal = m.prev_end + 1000;

		call = sim_op(&m, 1000, 200, 500, 100);
		assert_int_equal(call, ideal + (i == 0 ? 200 : 0));
	}
	assert_int_equal(m.prev_end, 100 * (1000 + 500) + 200);
}

static void test_sched_repays_burst(void **state)
{
	struct sim m = { { 0 }, 0, 0 };
	int i;

	(void)state;
	/* 10 calls with no think time: each costs the replayer 300 more */
	for (i = 0; i < 10; i++)
		sim_op(&m, 0, 200, 500, 100);
	assert_int_equal(m.prev_end, 10 * 500 + 10 * 200 + 9 * 100);
	assert_int_equal(m.s.lag, 10 * 200 + 9 * 100);
	/* a long think makes it all up, and the next calls are on time */
	sim_op(&m, 100000, 200, 500, 100);
	assert_int_equal(m.prev_end, 11 * 500 + 100000 + 200);
	sim_op(&m, 1000, 200, 500, 100);
	assert_int_equal(m.prev_end, 12 * 500 + 101000 + 200);
}

static void test_sched_slow_calls_count(void **state)
{
	struct sim m = { { 0 }, 0, 0 };
	int i;

	(void)state;
	/* Slower calls (a slower filesystem) are never made up for:
	 * everything after them moves. */
	for (i = 0; i < 10; i++)
		sim_op(&m, 1000, 0, i == 5 ? 50000 : 500, 0);
	assert_int_equal(m.prev_end, 10 * 1000 + 9 * 500 + 50000);
	assert_int_equal(m.s.lag, 0);
}

/*
 * Think time spun as CPU (exec_thread.c, spin.c), on a simulated wall clock @t
 * and thread CPU clock @c: after each call the thread is kept off the CPU
 * for @off (another thread its call woke took the CPU), then does @work
 * of its own before the spin.  The program computed its think time on
 * the CPU, preempted or not: the spin is given back the time off the CPU
 * and runs think - work, the replayer's own work hidden in the think time
 * as before.  @return : the CPU time spun.
 */
struct simc {
	struct rpl_sched s;
	int64_t t, c, prev_end, mark_t, mark_c;
};

static int64_t simc_op(struct simc *m, int64_t think, int64_t off, int64_t work, int64_t dur)
{
	int64_t ideal = m->prev_end + think, start = rpl_sched_start(&m->s, ideal);
	int64_t give = 0, spun = 0;

	m->t += off;
	m->t += work;
	m->c += work;
	if (start > m->prev_end) {
		give = rpl_sched_offcpu(m->mark_t, m->mark_c, m->t, m->c);
		ideal += give;
		start += give;
		if (start > m->t) {
			spun = start - m->t;
			m->t += spun;
			m->c += spun;
		}
	}
	rpl_sched_ran(&m->s, ideal, m->t);
	m->t += dur;
	m->c += dur;
	m->prev_end = m->mark_t = m->t;
	m->mark_c = m->c;
	return spun;
}

static void test_sched_offcpu_given_back(void **state)
{
	struct simc m = { { 0 }, 0, 0, 0, 0, 0 };
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		int64_t ideal = m.prev_end + 100000 + (i % 2 ? 30000 : 0);

		/* every other call is followed by 30000 off the CPU */
		assert_int_equal(simc_op(&m, 100000, i % 2 ? 30000 : 0, 2000, 500), 100000 - 2000);
		assert_int_equal(m.prev_end, ideal + 500);
		assert_int_equal(m.s.lag, 0);
	}
	/* no think time left to spin after the work: nothing given back
	 * beyond the time off the CPU, and the work is a lag as before */
	simc_op(&m, 1000, 0, 3000, 500);
	assert_int_equal(m.s.lag, 2000);
}

static void test_sched_offcpu_clock(void **state)
{
	(void)state;
	assert_int_equal(rpl_sched_offcpu(1000, 50, 5000, 1050), 3000);
	assert_int_equal(rpl_sched_offcpu(1000, 50, 5000, 4050), 0);
	/* the CPU clock ahead of the wall clock (their granularities) */
	assert_int_equal(rpl_sched_offcpu(1000, 50, 5000, 4100), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_stopped),
		cmocka_unit_test(test_fastpath_gaps),
		cmocka_unit_test(test_floor_stopped_only),
		cmocka_unit_test(test_floor_unchanged),
		cmocka_unit_test(test_floor_below_cost),
		cmocka_unit_test(test_fast_floor_per_syscall),
		cmocka_unit_test(test_budget_counts_stopped),
		cmocka_unit_test(test_budget_exact),
		cmocka_unit_test(test_budget_proc_start),
		cmocka_unit_test(test_budget_calls_own_time),
		cmocka_unit_test(test_budget_no_system_tick),
		cmocka_unit_test(test_budget_blocked_call),
		cmocka_unit_test(test_budget_blocked_kind),
		cmocka_unit_test(test_budget_stopped_held),
		cmocka_unit_test(test_budget_held_by_calls),
		cmocka_unit_test(test_budget_long_median),
		cmocka_unit_test(test_budget_run_cost),
		cmocka_unit_test(test_budget_recorded_cpu),
		cmocka_unit_test(test_budget_per_thread),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_gap_sleep),
		cmocka_unit_test(test_pre_ns),
		cmocka_unit_test(test_bpf_held_floor),
		cmocka_unit_test(test_bpf_least_floor),
		cmocka_unit_test(test_bpf_measured_gap),
		cmocka_unit_test(test_bpf_measure_least),
		cmocka_unit_test(test_bpf_floor_budget),
		cmocka_unit_test(test_bpf_fault_budget),
		cmocka_unit_test(test_bpf_fault_gaps),
		cmocka_unit_test(test_sched_hides_overhead),
		cmocka_unit_test(test_sched_repays_burst),
		cmocka_unit_test(test_sched_slow_calls_count),
		cmocka_unit_test(test_sched_offcpu_given_back),
		cmocka_unit_test(test_sched_offcpu_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
