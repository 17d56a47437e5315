/*
 * test_replay_polls.c - a thread that sleeps in a loop until another
 * thread of its process has ended (replay/polls.c): thread 100 starts
 * thread 102 and sleeps 10 ms at a time, 10 rounds, until 102 ends
 * (within the 10th round); 102 made two calls and used 1 ms of CPU time,
 * so that the CPU budget cuts its gaps and its replay ends early.  The
 * plan marks the 10 rounds with 102 and has 100's call after the loop
 * follow 102's end; the replay does not sleep the rounds it reaches once
 * 102 has ended (the recorder's timeline: 10 rounds slept in all).  Not
 * where the loop went round long after 102's end, for a single sleep,
 * nor between processes (a forked child: wait4 tells those).
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

enum { THREAD, FORK, PAUSE };	/* PAUSE: a thread, and 100's first sleep no round */

/* The trace: thread 100 starts 102 (@how: a thread or a process forked)
 * at 1 ms, then sleeps @rounds rounds of 10 ms from 2 ms on (PAUSE: the
 * first by another call, nanosleep), then stats a file and ends; 102
 * opens and closes a file and ends at @end_ms. */
static void write_trace(int how, int rounds, int64_t end_ms)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0 };
	struct iot_path_state ps = { .path = "/w", .path_len = 2, .type = S_IFDIR,
				     .mode = 0755, .nlink = 2 };
	int64_t flags = how != FORK ? 0x3d0f00 : 17, after = 2 * MS + rounds * 10 * MS;
	int cpid = how != FORK ? 100 : 102;
	struct iot_process pr = { .kind = how != FORK ? IOT_PROC_THREAD : IOT_PROC_FORK,
				  .t_ns = T0 + 1 * MS, .pid = cpid, .tid = 102, .ppid = 100,
				  .ptid = 100, .clone_flags = (uint64_t)flags };
	struct iot_writer *w;
	int i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(iot_writer_path_state(w, &ps), 0);
	assert_int_equal(iot_writer_process(w, &pr), 0);
	for (i = -1; i <= rounds + 5; i++) {
		struct iot_event ev = { .pid = 100, .tid = 100, .nargs = 4 };

		if (i == -1) {		/* the clone */
			ev.t_enter = T0 + 1 * MS - 10 * US;
			ev.t_exit = T0 + 1 * MS;
			ev.nr = SYS_clone;
			ev.ret = 102;
			ev.args[0] = flags;
		} else if (i < rounds) {	/* a round */
			ev.t_enter = T0 + 2 * MS + i * 10 * MS;
			ev.t_exit = ev.t_enter + 10 * MS - 5 * US;
			ev.nr = SYS_clock_nanosleep;
			ev.args[0] = CLOCK_REALTIME;
			ev.args[2] = 10 * MS;
			if (how == PAUSE && i == 0) {
				ev.nr = SYS_nanosleep;
				ev.args[0] = 10 * MS;
				ev.args[2] = 0;
			}
		} else if (i == rounds) {	/* 102's calls and end */
			ev.pid = cpid;
			ev.tid = 102;
			ev.t_enter = T0 + 2 * MS;
			ev.t_exit = ev.t_enter + 10 * US;
			ev.nr = SYS_openat;
			ev.ret = 3;
			ev.args[0] = AT_FDCWD;
			ev.args[2] = O_WRONLY | O_CREAT;
			ev.args[3] = 0644;
			ev.path = "/w/f";
		} else if (i == rounds + 1) {
			ev.pid = cpid;
			ev.tid = 102;
			ev.t_enter = T0 + 3 * MS;
			ev.t_exit = ev.t_enter + 10 * US;
			ev.nr = SYS_close;
			ev.args[0] = 3;
			ev.path = "/w/f";
		} else if (i == rounds + 2) {
			ev.pid = cpid;
			ev.tid = 102;
			ev.t_enter = ev.t_exit = T0 + end_ms * MS;
			ev.nr = SYS_exit;
		} else if (i == rounds + 3) {	/* 100 after the loop */
			ev.t_enter = T0 + after + 100 * US;
			ev.t_exit = ev.t_enter + 10 * US;
			ev.nr = SYS_newfstatat;
			ev.args[0] = AT_FDCWD;
			ev.path = "/w/f";
		} else if (i == rounds + 4) {
			ev.t_enter = ev.t_exit = T0 + after + 200 * US;
			ev.nr = SYS_exit_group;
		} else {
			continue;
		}
		ev.path_len = ev.path ? (uint32_t)strlen(ev.path) : 0;
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	pr.kind = IOT_PROC_EXIT;
	pr.t_ns = T0 + end_ms * MS;
	pr.utime_ns = 1 * MS;
	assert_int_equal(iot_writer_process(w, &pr), 0);
	pr.pid = pr.tid = 100;
	pr.t_ns = T0 + after + 200 * US;
	assert_int_equal(iot_writer_process(w, &pr), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
}

static int setup(void **state)
{
	return tb_mkdtemp(tmp, sizeof(tmp), trace, sizeof(trace), "iotape-polls");
}

static int teardown(void **state)
{
	return tb_rmtree(tmp);
}

/* The plan of write_trace(@how, @rounds, @end_ms): how many of 100's
 * rounds poll for 102, and whether 100's stat follows 102's end. */
static int polled(int how, int rounds, int64_t end_ms, int *follows)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	int32_t child = -1;
	int marked = 0;
	size_t i, d;

	write_trace(how, rounds, end_ms);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (i = 0; i < p.n_threads; i++)
		if (p.threads[i].tid == 102)
			child = (int32_t)i;
	assert_true(child >= 0);
	*follows = 0;
	for (i = 0; i < p.n_ops; i++) {
		const struct rpl_op *op = &p.ops[i];

		if (rpl_op_wait_thread(op) == child)
			marked++;
		if (op->ev.nr != SYS_newfstatat)
			continue;
		for (d = 0; d < op->ndeps; d++) {
			const struct rpl_dep *dp = &p.deps[op->dep_off + d];

			*follows |= (int32_t)dp->thread == child &&
				    dp->pos == p.threads[child].n_ops - 1;
		}
	}
	assert_int_equal(p.poll_rounds, (uint64_t)marked);
	assert_int_equal(p.poll_loops, marked > 0);
	rpl_plan_free(&p);
	return marked;
}

static void plan(void **state)
{
	int follows;

	assert_int_equal(polled(THREAD, 10, 95, &follows), 10);
	assert_true(follows);
	/* 102 ended in the round before the last: the loop checks after
	 * its sleep */
	assert_int_equal(polled(THREAD, 10, 87, &follows), 10);
	assert_true(follows);
	/* the loop went round long after 102's end: it was not waiting
	 * for it */
	assert_int_equal(polled(THREAD, 10, 45, &follows), 0);
	assert_false(follows);
	/* one sleep is no loop */
	assert_int_equal(polled(THREAD, 1, 5, &follows), 0);
	/* a sleep of another call before the loop is none of its rounds */
	assert_int_equal(polled(PAUSE, 10, 95, &follows), 9);
	assert_true(follows);
	/* another process: wait4 tells its end (plan_threads.c) */
	assert_int_equal(polled(FORK, 10, 95, &follows), 0);
	assert_false(follows);
}

/* IOTAPE_REPLAY_POLLS=0 plans none (to measure what they do). */
static void switched_off(void **state)
{
	int follows;

	setenv("IOTAPE_REPLAY_POLLS", "0", 1);
	assert_int_equal(polled(THREAD, 10, 95, &follows), 0);
	unsetenv("IOTAPE_REPLAY_POLLS");
	assert_int_equal(polled(THREAD, 10, 95, &follows), 10);
}

/* Replayed, 102 ends within a few ms (its gaps cut to its 1 ms of CPU
 * time): the rounds 100 reaches after that are not slept, and its stat
 * comes after 102's end. */
static void replay(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	static struct rpl_result res;
	int64_t ended = -1, statted = -1;
	struct iot_reader *rd;
	struct iot_item it;
	char root[400], out[400];
	int r;

	write_trace(THREAD, 10, 95);
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(out, sizeof(out), "%s/p.iotape", tmp);
	mkdir(root, 0755);
	o.root = root;
	o.out = out;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.poll_loops, 1);
	assert_int_equal(res.poll_rounds, 10);
	/* the rounds slept and those cut make the 10; the recorded ones
	 * would all be slept (the timeline of the recording) */
	assert_int_equal(res.waits_slept + res.poll_cut, 10);
	assert_true(res.waits_slept <= 5);
	assert_int_equal(iot_reader_open(&rd, out), 0);
	while ((r = iot_reader_next(rd, &it)) > 0) {
		if (it.kind != IOT_ITEM_EVENT)
			continue;
		if (it.u.ev.nr == SYS_exit)
			ended = it.u.ev.t_enter;
		else if (it.u.ev.nr == SYS_newfstatat)
			statted = it.u.ev.t_enter;
	}
	assert_int_equal(r, 0);
	iot_reader_close(rd);
	assert_true(ended > 0 && statted >= ended);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan),
		cmocka_unit_test(switched_off),
		cmocka_unit_test(replay),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
