/*
 * test_replay_wakes.c - a thread woken through memory (replay/wakes.c):
 * a process starts a thread, sleeps 100 ms, and only then lets it run (a
 * futex, not recorded); the thread's first call came 0.12 ms after the
 * sleep's end, 100 ms after its start, with 1 ms of CPU time in all.  The
 * CPU budget cuts that gap to a few ms; the plan has the thread's first
 * call follow the sleep, and the replay runs it after the sleep's end.
 * The wait's gap gives the CPU budget it took back to the thread's other
 * gaps.  Not where the thread computed through its gap (its CPU time holds it),
 * where its call came long after any return of another thread, or
 * between processes (a forked child's gap and its parent's sleep), nor
 * from a hostile trace's times past int64's half.  Recorded by BPF, the
 * thread's wake-up and its voluntary sleep in the gap (woke_ns,
 * waited_ns) decide instead: woken just after the sleep's end, it
 * follows it however late it got a CPU and whatever the budget says;
 * without a wake-up, or woken long after any return, it does not.  And
 * it comes no sooner after the sleep's end than recorded (its wake lag).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

#define MS 1000000LL
#define T0 1000000000LL

static char tmp[256], trace[300];

/* A bpf recording (>= 0): thread 102's open was woken from a voluntary
 * sleep bpf_woke_us before its entry (0: none in its gap), after
 * sleeping so bpf_waited_us; the parent's stat after the sleep was
 * woken 5 us before it (the trace has wake-ups). */
static int64_t bpf_woke_us = -1, bpf_waited_us;

enum { THREAD, FORK };

/* The trace: thread 100 starts 102 (@how: a thread or a process forked)
 * and sleeps 100 ms; 102's first call after a getpid enters @lag_us after
 * the sleep's end; 102 used @cpu_ms of user time. */
static void write_trace(int how, int64_t lag_us, int64_t cpu_ms)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0 };
	struct iot_path_state ps = { .path = "/w", .path_len = 2, .type = S_IFDIR,
				     .mode = 0755, .nlink = 2 };
	int64_t flags = how == THREAD ? 0x3d0f00 : 17, go = 101020 + lag_us;
	int cpid = how == THREAD ? 100 : 102;
	struct iot_process pr = { .kind = how == THREAD ? IOT_PROC_THREAD : IOT_PROC_FORK,
				  .t_ns = T0 + 1010 * US, .pid = cpid, .tid = 102, .ppid = 100,
				  .ptid = 100, .clone_flags = (uint64_t)flags };
	struct {
		int64_t t0, t1;
		int tid, nr;
		int64_t ret;
		int64_t a[4];
		const char *path;
	} evs[] = {
		{ 1000, 1010, 100, SYS_clone, 102, { flags }, NULL },
		{ 1020, 101020, 100, SYS_clock_nanosleep, 0, { CLOCK_REALTIME, 0, 100 * MS }, NULL },
		{ 1030, 1040, 102, SYS_getpid, 102, { 0 }, NULL },
		{ go, go + 10, 102, SYS_openat, 3, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/f" },
		{ go + 20, go + 30, 102, SYS_close, 0, { 3 }, "/w/f" },
		{ go + 40, go + 40, 102, SYS_exit, 0, { 0 }, NULL },
		{ go + 100, go + 110, 100, SYS_newfstatat, 0, { AT_FDCWD, 0, 0, 0 }, "/w/f" },
		{ go + 120, go + 120, 100, SYS_exit_group, 0, { 0 }, NULL },
	};
	struct iot_writer *w;
	size_t i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(iot_writer_path_state(w, &ps), 0);
	assert_int_equal(iot_writer_process(w, &pr), 0);
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct iot_event ev = {
			.t_enter = T0 + evs[i].t0 * US, .t_exit = T0 + evs[i].t1 * US,
			.pid = evs[i].tid == 102 ? cpid : 100, .tid = evs[i].tid, .nr = evs[i].nr,
			.ret = evs[i].ret,
			.nargs = 4, .path = evs[i].path,
			.path_len = evs[i].path ? (uint32_t)strlen(evs[i].path) : 0,
		};

		memcpy(ev.args, evs[i].a, sizeof(evs[i].a));
		if (bpf_woke_us >= 0) {
			ev.flags |= IOT_EV_BPF;
			if (evs[i].tid == 102 && evs[i].nr == SYS_openat) {
				ev.woke_ns = (uint32_t)(bpf_woke_us * US);
				ev.waited_ns = (uint32_t)(bpf_waited_us * US);
			} else if (evs[i].nr == SYS_newfstatat) {
				ev.woke_ns = 5 * US;
				ev.waited_ns = 8 * US;
			}
		}
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	pr.kind = IOT_PROC_EXIT;
	pr.t_ns = T0 + (go + 40) * US;
	pr.utime_ns = cpu_ms * MS;
	assert_int_equal(iot_writer_process(w, &pr), 0);
	pr.pid = pr.tid = 100;
	pr.t_ns = T0 + (go + 120) * US;
	pr.utime_ns = 1 * MS;
	assert_int_equal(iot_writer_process(w, &pr), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
}

static int setup(void **state)
{
	return tb_mkdtemp(tmp, sizeof(tmp), trace, sizeof(trace), "iotape-wakes");
}

static int teardown(void **state)
{
	return tb_rmtree(tmp);
}

/* Whether thread 102's first op after its gap follows thread 100's
 * sleep in the plan of the trace of write_trace(@how, @lag_us, @cpu_ms). */
static int follows_sleep(int how, int64_t lag_us, int64_t cpu_ms)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	uint32_t first = UINT32_MAX, sleep = UINT32_MAX;
	const char *lags_off = getenv("IOTAPE_REPLAY_WAKE_LAG");
	const struct rpl_wake_lag *wl;
	int found = 0;
	size_t i;

	write_trace(how, lag_us, cpu_ms);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (i = 0; i < p.n_ops; i++) {
		if (p.ops[i].ev.nr == SYS_clock_nanosleep)
			sleep = (uint32_t)i;
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_openat)
			first = (uint32_t)i;
	}
	assert_int_not_equal(first, UINT32_MAX);
	assert_int_not_equal(sleep, UINT32_MAX);
	for (i = 0; i < p.ops[first].ndeps; i++)
		found |= rpl_dep_op(&p, &p.deps[p.ops[first].dep_off + i]) == sleep;
	assert_int_equal(p.wakes, (uint64_t)found);
	/* and comes no sooner after the sleep's end than recorded, unless
	 * told not to (IOTAPE_REPLAY_WAKE_LAG=0) */
	wl = rpl_wake_lag_of(&p, &p.ops[first]);
	if (found && !(lags_off && strcmp(lags_off, "0") == 0)) {
		assert_non_null(wl);
		assert_int_equal(wl->lag_ns, (uint32_t)(lag_us * US));
		assert_int_equal(rpl_dep_op(&p, &p.deps[p.ops[first].dep_off + wl->dep]), sleep);
		assert_int_equal(p.wake_lags, 1);
	} else {
		assert_null(wl);
		assert_int_equal(p.wake_lags, 0);
	}
	rpl_plan_free(&p);
	return found;
}

static void plan(void **state)
{
	assert_true(follows_sleep(THREAD, 120, 1));
	/* it computed through its gap: its own timing holds */
	assert_false(follows_sleep(THREAD, 120, 200));
	/* its call came 5 ms after the last return of another thread */
	assert_false(follows_sleep(THREAD, 5000, 1));
	/* another process: wakes.c says why not */
	assert_false(follows_sleep(FORK, 120, 1));
}

/* Whether 102's open follows the sleep in a bpf recording where it was
 * woken @woke_us before its entry, @lag_us after the sleep's end, having
 * slept voluntarily @waited_us, with @cpu_ms of CPU time. */
static int bpf_follows(int64_t lag_us, int64_t cpu_ms, int64_t woke_us, int64_t waited_us)
{
	int r;

	bpf_woke_us = woke_us;
	bpf_waited_us = waited_us;
	r = follows_sleep(THREAD, lag_us, cpu_ms);
	bpf_woke_us = -1;
	return r;
}

static void bpf_woken(void **state)
{
	/* woken 120 us after the sleep's end, on a CPU 4.88 ms later */
	assert_true(bpf_follows(5000, 1, 4880, 99000));
	/* the budget took its gap for computing; it slept 99 ms of it */
	assert_true(bpf_follows(120, 200, 100, 99000));
	/* no voluntary sleep in its gap: preempted, not waiting */
	assert_false(bpf_follows(120, 1, 0, 0));
	/* woken 4.99 ms after the sleep's end: not by the parent */
	assert_false(bpf_follows(5000, 1, 10, 99000));
	/* a sleep of 0.5 ms in a gap of 100: not a wait for the parent */
	assert_false(bpf_follows(120, 1, 100, 500));
}

/* The CPU budget scaled all of 102's gaps alike, and its 100 ms wait
 * took nearly all of its CPU time: its gaps between its calls (10 us
 * each, computing) were left a few percent of theirs.  Found to be a
 * wait, the gap keeps at most the 120 us from the sleep's end to the
 * call, and the rest goes back to the other gaps, up to their length. */
static void budget_back(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	const struct rpl_op *open_op = NULL, *close_op = NULL;
	size_t i;

	write_trace(THREAD, 120, 1);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.wakes, 1);
	/* the wakes' and the polls' steps listed each process's threads
	 * once between them, and dropped the lists after */
	assert_int_equal(p.proc_thr_made, 1);
	assert_null(p.proc_thr_off);
	for (i = 0; i < p.n_ops; i++) {
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_openat)
			open_op = &p.ops[i];
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_close)
			close_op = &p.ops[i];
	}
	assert_non_null(open_op);
	assert_non_null(close_op);
	assert_true(open_op->think_ns <= 120 * US);
	assert_true(close_op->think_ns >= 9 * US && close_op->think_ns <= 10 * US);
	rpl_plan_free(&p);
}

/* A hostile trace's times (any int64): a think time over 2^62 ns, more
 * than half its gap, is one the thread computed through (think_ns * 2
 * wrapped below the gap, and a wake was made); a gap from near INT64_MIN
 * to its op saturates, not overflows. */
static void huge_times(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	struct rpl_op *first = NULL, *prev = NULL;
	size_t i;

	write_trace(THREAD, 120, 200);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.wakes, 0);
	for (i = 0; i < p.n_ops; i++) {
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_getpid)
			prev = &p.ops[i];
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_openat)
			first = &p.ops[i];
	}
	assert_non_null(prev);
	assert_non_null(first);
	prev->ev.t_enter = prev->ev.t_exit = first->ev.t_enter - (INT64_MAX / 2 + 100);
	first->think_ns = INT64_MAX / 2 + 50;
	assert_int_equal(rpl_plan_wakes(&p), 0);
	assert_int_equal(p.wakes, 0);
	prev->ev.t_enter = prev->ev.t_exit = INT64_MIN + 10;
	first->think_ns = INT64_MAX;
	assert_int_equal(rpl_plan_wakes(&p), 0);
	assert_int_equal(p.wakes, 0);
	rpl_plan_free(&p);
}

/* IOTAPE_REPLAY_WAKES=0 plans none (to measure what they do): the gap
 * of plan() that follows the sleep keeps its own timing. */
static void switched_off(void **state)
{
	setenv("IOTAPE_REPLAY_WAKES", "0", 1);
	assert_false(follows_sleep(THREAD, 120, 1));
	setenv("IOTAPE_REPLAY_WAKES", "1", 1);
	assert_true(follows_sleep(THREAD, 120, 1));
	unsetenv("IOTAPE_REPLAY_WAKES");
	/* ordered, with no lag kept (follows_sleep() checks it) */
	setenv("IOTAPE_REPLAY_WAKE_LAG", "0", 1);
	assert_true(follows_sleep(THREAD, 120, 1));
	unsetenv("IOTAPE_REPLAY_WAKE_LAG");
}

/* How long after the sleep's end the plan has 102's open come (its
 * wake lag, scaled as thread 100's gap after it is by the budget). */
static int64_t planned_lag(void)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	const struct rpl_wake_lag *wl = NULL;
	struct rpl_plan p;
	int64_t v = -1;
	size_t i;

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (i = 0; i < p.n_ops; i++)
		if (p.ops[i].ev.tid == 102 && p.ops[i].ev.nr == SYS_openat &&
		    (wl = rpl_wake_lag_of(&p, &p.ops[i])))
			v = rpl_wake_lag_ns(&p, &p.ops[i], wl);
	rpl_plan_free(&p);
	return v;
}

/* Replayed, the thread's open starts after the sleep has ended, not a
 * budget's few ms after the thread's start (and so where the bpf
 * backend saw it woken at once, on a CPU only 5 ms later). */
static void replay_one(void)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	static struct rpl_result res;
	static int runs;
	int64_t slept = -1, opened = -1, lag = bpf_woke_us >= 0 ? 5000 : 120, want;
	struct iot_reader *rd;
	struct iot_item it;
	char root[400], out[400];
	int r;

	write_trace(THREAD, lag, 1);
	want = planned_lag();
	assert_true(want > 0 && want <= lag * US);
	if (getenv("IOTAPE_REPLAY_WAKE_LAG"))
		assert_int_equal(want, lag * US);	/* as recorded */
	runs++;
	snprintf(root, sizeof(root), "%s/root%d", tmp, runs);
	snprintf(out, sizeof(out), "%s/p%d.iotape", tmp, runs);
	mkdir(root, 0755);
	o.root = root;
	o.out = out;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.wakes, 1);
	assert_int_equal(iot_reader_open(&rd, out), 0);
	while ((r = iot_reader_next(rd, &it)) > 0) {
		if (it.kind != IOT_ITEM_EVENT)
			continue;
		if (it.u.ev.nr == SYS_clock_nanosleep)
			slept = it.u.ev.t_exit;
		else if (it.u.ev.nr == SYS_openat)
			opened = it.u.ev.t_enter;
	}
	assert_int_equal(r, 0);
	iot_reader_close(rd);
	/* after the sleep's end, and as long after it as planned: the
	 * thread's think time counts from its call before, 100 ms before */
	assert_true(slept > 0 && opened >= slept + want);
	assert_int_equal(res.wake_lags, 1);
}

static void replay(void **state)
{
	int lags;

	/* the lag scaled (the default), then as recorded */
	for (lags = 0; lags < 2; lags++) {
		if (lags)
			setenv("IOTAPE_REPLAY_WAKE_LAG", "1", 1);
		replay_one();
		bpf_woke_us = 4880;
		bpf_waited_us = 99000;
		replay_one();
		bpf_woke_us = -1;
	}
	unsetenv("IOTAPE_REPLAY_WAKE_LAG");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan),
		cmocka_unit_test(bpf_woken),
		cmocka_unit_test(huge_times),
		cmocka_unit_test(budget_back),
		cmocka_unit_test(switched_off),
		cmocka_unit_test(replay),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
