/*
 * test_replay_late.c - how late the replayed calls started (replay/late.c):
 * the histogram's p50 and p99 against those of the values sorted (within
 * the histogram's 0.4 %), the max exact, calls on time counted without
 * being added.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpl.h"
#include "replay.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* within 1/256 of @want (and exact below 128 ns) */
static void near(int64_t got, int64_t want)
{
	int64_t d = got > want ? got - want : want - got;

	if (want < 128)
		assert_int_equal(got, want);
	else
		assert_true(d * 256 <= want);
}

/* @n calls, @on_time of them on time, the others late by values spread
 * over 1 ns to about 60 s: the result as the sorted values give it */
static void check(size_t n, size_t on_time, uint64_t seed)
{
	struct rpl_plan p;
	struct rpl_thread th[3];
	struct rpl_result res;
	int64_t *v = calloc(n, sizeof(*v));
	size_t i;

	assert_non_null(v);
	memset(&p, 0, sizeof(p));
	memset(th, 0, sizeof(th));
	memset(&res, 0, sizeof(res));
	p.threads = th;
	p.n_threads = 3;
	assert_int_equal(rpl_late_init(&p), 0);
	for (i = on_time; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* a value of 1 to 36 bits: every scale of lateness */
		v[i] = (int64_t)((seed >> 28) >> (seed % 36)) + 1;
		rpl_late_add(&p, &th[i % 3], v[i]);
	}
	rpl_late_result(&p, n, &res);
	qsort(v, n, sizeof(*v), cmp_i64);
	near(res.late_p50_ns, v[n / 2]);
	near(res.late_p99_ns, v[(n * 99) / 100]);
	assert_int_equal(res.late_max_ns, v[n - 1]);
	free(p.late);
	free(v);
}

static void test_spread(void **state)
{
	(void)state;
	check(100000, 0, 1);
	check(100000, 30000, 2);
	check(1001, 500, 3);
	check(7, 1, 4);
}

/* every call on time (--timing afap): nothing added, all 0 */
static void test_on_time(void **state)
{
	struct rpl_plan p;
	struct rpl_thread th;
	struct rpl_result res;

	(void)state;
	memset(&p, 0, sizeof(p));
	memset(&th, 0, sizeof(th));
	memset(&res, 0, sizeof(res));
	p.threads = &th;
	p.n_threads = 1;
	assert_int_equal(rpl_late_init(&p), 0);
	rpl_late_add(&p, &th, 0);
	rpl_late_add(&p, &th, -5);
	rpl_late_result(&p, 1000, &res);
	assert_int_equal(res.late_p50_ns, 0);
	assert_int_equal(res.late_p99_ns, 0);
	assert_int_equal(res.late_max_ns, 0);
	/* one late call in a thousand: above p99's place */
	rpl_late_add(&p, &th, 5000000);
	rpl_late_result(&p, 1000, &res);
	assert_int_equal(res.late_p99_ns, 0);
	assert_int_equal(res.late_max_ns, 5000000);
	free(p.late);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_on_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
