/*
 * test_replay_exits.c - a process's end in a replay (plan_threads.c,
 * reap_times(); ops_proc.c): where the parent was waiting in the wait4
 * that reaped the child before the child's exit_group, and neither call
 * was stopped by a tracer, the wait4 returns no earlier than the recorded
 * time from the child's exit_group to the reap after the child's end in
 * the replay; --timing afap keeps the replay's own end.  A recording
 * whose calls were stopped (ptrace) keeps it too, unless its child's exit
 * record is timed at the exit event (header record.exit_at = event):
 * then the reap waits from there to the wait4's recorded return, less a
 * call's two stops (the header's stop cost).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

#define MS 1000000LL
#define T0 1000000000LL
/* the child's end, exit_group to the parent's wait4 return */
#define EXIT_NS (300 * MS)
/* a ptrace recording's: the child's exit record 10 us after its
 * exit_group, the stops of a call 7 us */
#define EVENT_US 10
#define STOP_NS (7 * US)

static char tmp[256], trace[300], root[300];

/* Process 100 forks 101 and waits for it; 101 ends soon, and its
 * parent's wait4 returns EXIT_NS after 101's exit_group.  @flags on every
 * call: IOT_EV_BPF (no stops) or 0 (ptrace stops); @at_event: the header
 * says the exit record is timed at the exit event, EVENT_US after the
 * exit_group. */
static void write_trace(uint32_t flags, int at_event)
{
	static const struct iot_kv kv[] = { { "record.exit_at", "event" } };
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0,
				.stop_cost_ns = STOP_NS, .n_extra = at_event ? 1 : 0,
				.extra = kv };
	struct iot_process pr = { .kind = IOT_PROC_FORK, .t_ns = T0 + 1005 * US, .pid = 101,
				  .tid = 101, .ppid = 100, .ptid = 100, .clone_flags = 17 };
	struct iot_process ex = { .kind = IOT_PROC_EXIT, .t_ns = T0 + (1030 + EVENT_US) * US,
				  .pid = 101, .tid = 101 };
	const struct { int64_t t0, t1; int tid, nr; int64_t ret, a0; } e[] = {
		{ 1000, 1010, 100, SYS_clone, 101, 17 },
		{ 1012, 1014, 101, SYS_close, -EBADF, 99 },
		{ 1030, 1030, 101, SYS_exit_group, 0, 0 },
		{ 1020, 1030 + EXIT_NS / US, 100, SYS_wait4, 101, 101 },
		{ 1100 + EXIT_NS / US, 1100 + EXIT_NS / US, 100, SYS_exit_group, 0, 0 },
	};
	struct iot_writer *w;
	size_t i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(iot_writer_process(w, &pr), 0);
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		struct iot_event ev = {
			.t_enter = T0 + e[i].t0 * US, .t_exit = T0 + e[i].t1 * US,
			.pid = e[i].tid, .tid = e[i].tid, .nr = e[i].nr, .ret = e[i].ret,
			.nargs = 4, .flags = flags,
		};

		ev.args[0] = e[i].a0;
		assert_int_equal(iot_writer_event(w, &ev), 0);
		if (e[i].tid == 101 && e[i].nr == SYS_exit_group)
			assert_int_equal(iot_writer_process(w, &ex), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
}

static int setup(void **state)
{
	if (tb_mkdtemp(tmp, sizeof(tmp), trace, sizeof(trace), "iotape-rplx") < 0)
		return -1;
	snprintf(root, sizeof(root), "%s/root", tmp);
	return mkdir(root, 0755);
}

static int teardown(void **state)
{
	return tb_rmtree(tmp);
}

/* The exit time of the child's process in the plan of the trace. */
static int64_t planned_exit(void)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	static struct rpl_plan p;
	int64_t ns = -1;
	size_t i;

	memset(&p, 0, sizeof(p));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (i = 0; i < p.n_procs; i++)
		if (p.procs[i].pid == 101)
			ns = p.procs[i].exit_ns;
	rpl_plan_free(&p);
	return ns;
}

static void exit_kept(void **state)
{
	struct rpl_opts o = { .trace = trace, .root = root, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_ORIGINAL, .force = 1, .starts = 1 };
	static struct rpl_result res;

	write_trace(IOT_EV_BPF, 0);
	assert_int_equal(planned_exit(), EXIT_NS);
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.exits, 1);
	/* the reap returned no earlier than the child's end here plus the
	 * recorded exit; the wait4 began before that end or about then (10
	 * us of think time before it: half of it leaves room for a slow
	 * start of the child's thread, under valgrind) */
	assert_true(res.sc[SYS_wait4].time_ns >= EXIT_NS / 2);
	assert_true(res.exits_ns > 0 && res.exits_ns <= EXIT_NS);

	o.timing = RPL_TIMING_AFAP;
	memset(&res, 0, sizeof(res));
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.exits, 0);
}

/* A ptrace recording's exit and reap are held at the tracer's stops: the
 * replay's own end is kept. */
static void stopped_not_kept(void **state)
{
	struct rpl_opts o = { .trace = trace, .root = root, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_ORIGINAL, .force = 1, .starts = 1 };
	static struct rpl_result res;

	write_trace(0, 0);
	assert_int_equal(planned_exit(), 0);
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.exits, 0);
}

/* ... unless its exit record is timed at the exit event: the reap waits
 * from there to the recorded return, less the stops. */
static void stopped_from_event(void **state)
{
	struct rpl_opts o = { .trace = trace, .root = root, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_ORIGINAL, .force = 1, .starts = 1 };
	static struct rpl_result res;

	write_trace(0, 1);
	assert_int_equal(planned_exit(), EXIT_NS - EVENT_US * US - STOP_NS);
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.exits, 1);
	assert_true(res.exits_ns > 0 && res.exits_ns <= EXIT_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(exit_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(stopped_not_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(stopped_from_event, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
