/*
 * test_replay_sort.c - the plan's ops in entry order, file order among
 * equal entry times (plan_read.c), from files in three orders: nearly in
 * entry order, as a recorder writes calls when they return (a few calls
 * that blocked long come far after the ones that entered after them:
 * sort_late() takes those out and merges them back); far from it (the
 * file written backwards: more than one op in 16 late, sorted through
 * the side array of times); and in order already.
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
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

#define T0 1000000000LL
#define N 3000

static char tmp[256], trace[300];

enum { NEAR, FAR, SORTED };

/* Entry time (in us after T0) of the @i-th event the file holds, of @n,
 * in order @how.  NEAR: every 250th event entered 1,000 events before
 * the one ahead of it (a wait4 written at its return), and every 7th
 * entered with the one ahead of it (equal times keep file order). */
static int64_t t_of(int how, size_t i, size_t n)
{
	if (how == FAR)
		return (int64_t)(n - i) * 10 / 3;	/* backwards, three at a time */
	if (how == NEAR && i % 250 == 249)
		return (int64_t)(i > 1000 ? i - 1000 : 0) * 10 + 3;
	if (how != SORTED && i % 7 == 6)
		return (int64_t)(i - 1) * 10;
	return (int64_t)i * 10;
}

static void write_trace(int how, size_t n)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0 };
	struct iot_writer *w;
	size_t i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	for (i = 0; i < n; i++) {
		int64_t t = T0 + t_of(how, i, n) * US;
		/* four threads of one process; a1 says where in the file */
		struct iot_event e = { .pid = 100, .tid = 100 + (int)(i % 4), .nr = SYS_getpid,
				       .ret = 100, .nargs = 1, .args = { (int64_t)i },
				       .t_enter = t, .t_exit = t + 1 };

		assert_int_equal(iot_writer_event(w, &e), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
}

/* The plan of a trace written in order @how: every event once, in entry
 * order, and in file order among equal times. */
static void check_order(int how)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	char *seen = calloc(N, 1);
	size_t i;

	assert_non_null(seen);
	write_trace(how, N);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_ops, N);
	for (i = 0; i < N; i++) {
		const struct rpl_op *op = &p.ops[i];

		assert_true(op->seq < N);
		assert_int_equal(seen[op->seq], 0);
		seen[op->seq] = 1;
		/* the op is the event the file has at its seq */
		assert_int_equal(op->ev.args[0], (int64_t)op->seq);
		assert_int_equal(op->ev.t_enter, T0 + t_of(how, op->seq, N) * US);
		if (i == 0)
			continue;
		assert_true(p.ops[i - 1].ev.t_enter <= op->ev.t_enter);
		if (p.ops[i - 1].ev.t_enter == op->ev.t_enter)
			assert_true(p.ops[i - 1].seq < op->seq);
	}
	/* what the rest of the plan takes from the order: each thread's ops
	 * in entry order */
	for (i = 0; i < p.n_threads; i++)
		for (uint32_t k = 1; k < p.threads[i].n_ops; k++)
			assert_true(p.threads[i].ops[k - 1] < p.threads[i].ops[k]);
	rpl_plan_free(&p);
	free(seen);
}

static void near_order(void **state)
{
	(void)state;
	check_order(NEAR);
}

static void far_order(void **state)
{
	(void)state;
	check_order(FAR);
}

static void in_order(void **state)
{
	(void)state;
	check_order(SORTED);
}

static int setup(void **state)
{
	return tb_mkdtemp(tmp, sizeof(tmp), trace, sizeof(trace), "iotape-rpls");
}

static int teardown(void **state)
{
	return tb_rmtree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(near_order),
		cmocka_unit_test(far_order),
		cmocka_unit_test(in_order),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
