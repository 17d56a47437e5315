/*
 * test_replay_listings.c - a directory listing's getdents calls judged as
 * one listing by the tally (listings.c), on ops made by hand: the same
 * bytes in all in another order are no mismatch, other bytes in all are,
 * and a listing the trace does not end is judged call by call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rpl.h"

#define MAXOPS 32

struct case_ {
	struct rpl_plan p;
	struct rpl_thread t[3];
	struct rpl_op ops[MAXOPS];
	int64_t rets[MAXOPS];		/* what each returned "here" */
	size_t n;
	int judged[MAXOPS];		/* how often the judge saw each */
	struct rpl_result res;
};

static void judge(void *arg, struct rpl_op *op, int64_t ret)
{
	struct case_ *c = arg;

	c->judged[op - c->ops]++;
	assert_int_equal(ret, c->rets[op - c->ops]);
}

static void setup_case(struct case_ *c)
{
	memset(c, 0, sizeof(*c));
	c->p.threads = c->t;
	c->p.n_threads = 3;
	c->t[0].pid = 100;
	c->t[1].pid = 200;
	c->t[2].pid = 100;		/* another thread of process 100 */
}

/* op of thread @th: syscall @nr on descriptor @fd of directory @path,
 * returned @rec when recorded and @here in the replay */
static void add(struct case_ *c, uint32_t th, int nr, int64_t fd, const char *path,
		int64_t rec, int64_t here)
{
	struct rpl_op *op = &c->ops[c->n];

	assert_true(c->n < MAXOPS);
	op->ev.nr = (int16_t)nr;
	op->ev.args[0] = fd;
	op->ev.path = path;
	op->ev.ret = rec;
	op->thread = th;
	c->rets[c->n++] = here;
}

/* Every op through the listings as the tally takes them: @held[i] set
 * where op i is left to its listing; then the end. */
static void run(struct case_ *c, int *held)
{
	struct rpl_listings *l = rpl_listings_new(judge, c);
	size_t i;

	assert_non_null(l);
	for (i = 0; i < c->n; i++)
		held[i] = rpl_listings_op(l, &c->p, &c->ops[i], c->rets[i]);
	rpl_listings_end(l, &c->res);
}

/* The same entries listed in another order: the calls' counts differ,
 * their total does not; nothing is judged. */
static void test_other_order(void **state)
{
	struct case_ c;
	int held[MAXOPS], i;

	setup_case(&c);
	add(&c, 0, SYS_openat, -100, "/d", 3, 3);
	add(&c, 0, SYS_getdents64, 3, "/d", 32760, 32744);
	add(&c, 0, SYS_getdents64, 3, "/d", 9000, 9016);
	add(&c, 0, SYS_getdents64, 3, "/d", 0, 0);
	add(&c, 0, SYS_close, 3, "/d", 0, 0);
	run(&c, held);
	assert_int_equal(held[0], 0);
	assert_int_equal(held[1], 1);
	assert_int_equal(held[2], 1);
	assert_int_equal(held[3], 0);	/* the same count: the tally's, as ever */
	for (i = 0; i < (int)c.n; i++)
		assert_int_equal(c.judged[i], 0);
	assert_int_equal(c.res.listings_reordered, 1);
	assert_int_equal(c.res.listing_calls, 2);
	assert_int_equal(c.res.listings_differ, 0);
}

/* An entry more here: the last call returns it, the total differs, every
 * call whose count differs is judged (a mismatch). */
static void test_entry_added(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 3, "/d", 32760, 32744);
	add(&c, 0, SYS_getdents64, 3, "/d", 9000, 9016);
	add(&c, 0, SYS_getdents64, 3, "/d", 0, 24);
	run(&c, held);
	assert_int_equal(held[0] + held[1] + held[2], 3);
	assert_int_equal(c.judged[0], 1);
	assert_int_equal(c.judged[1], 1);
	assert_int_equal(c.judged[2], 1);
	assert_int_equal(c.res.listings_reordered, 0);
	assert_int_equal(c.res.listings_differ, 1);
}

/* An entry missing here, in a listing of one call: judged. */
static void test_entry_missing(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 3, "/d", 9000, 8976);
	add(&c, 0, SYS_getdents64, 3, "/d", 0, 0);
	run(&c, held);
	assert_int_equal(held[0], 1);
	assert_int_equal(c.judged[0], 1);
	assert_int_equal(c.res.listings_differ, 1);
}

/* Closed before its end: no listing to judge as one, each call by
 * itself; the same descriptor number listed again after is a new one. */
static void test_unfinished(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 3, "/d", 32760, 32744);
	add(&c, 0, SYS_close, 3, "/d", 0, 0);
	add(&c, 0, SYS_getdents64, 3, "/e", 32760, 32744);
	add(&c, 0, SYS_getdents64, 3, "/e", 500, 516);
	add(&c, 0, SYS_getdents64, 3, "/e", 0, 0);
	add(&c, 0, SYS_getdents64, 4, "/f", 32760, 32744);
	run(&c, held);
	assert_int_equal(c.judged[0], 1);	/* at the close */
	assert_int_equal(c.judged[2], 0);	/* /e: the same total */
	assert_int_equal(c.judged[3], 0);
	assert_int_equal(c.judged[5], 1);	/* the trace's end */
	assert_int_equal(c.res.listings_reordered, 1);
	assert_int_equal(c.res.listings_differ, 0);
}

/* Closed after one call (rm -rf's look for an entry): a call that filled
 * its 32 KiB buffer both times, with other names first, says the same,
 * and is a listing in another order; one that filled it once is judged. */
static void test_full_buffers(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 3, "/d", 32752, 32768);
	c.ops[0].ev.args[2] = 32768;
	add(&c, 0, SYS_close, 3, "/d", 0, 0);
	add(&c, 0, SYS_getdents64, 3, "/e", 32752, 20000);
	c.ops[2].ev.args[2] = 32768;
	add(&c, 0, SYS_close, 3, "/e", 0, 0);
	run(&c, held);
	assert_int_equal(c.judged[0], 0);
	assert_int_equal(c.judged[2], 1);
	assert_int_equal(c.res.listings_reordered, 1);
	assert_int_equal(c.res.listing_calls, 1);
}

/* Two processes with listings on the same descriptor number at once,
 * and a call that failed here: each its own; the failed one by itself. */
static void test_two_processes(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 3, "/d", 32760, 32744);
	add(&c, 1, SYS_getdents64, 3, "/d", 32760, 32752);
	add(&c, 0, SYS_getdents64, 3, "/d", 1000, 1016);
	add(&c, 1, SYS_getdents64, 3, "/d", 1000, -9);
	add(&c, 0, SYS_getdents64, 3, "/d", 0, 0);
	add(&c, 1, SYS_getdents64, 3, "/d", 0, 0);
	run(&c, held);
	assert_int_equal(c.judged[0], 0);
	assert_int_equal(c.judged[2], 0);
	assert_int_equal(held[3], 0);		/* failed: the tally judges it */
	assert_int_equal(c.judged[1], 1);	/* its listing ended by the failure */
	assert_int_equal(c.res.listings_reordered, 1);
}

/* Another thread of the process opens a directory whose descriptor gets
 * the listing's number, entered before the listing's last call and its
 * close (Go's build, ptrace: the open returned after the close): the
 * listing goes on to its end and is judged as one; a dup2 onto its
 * number from another thread closes it, and ends it. */
static void test_other_thread_reuse(void **state)
{
	struct case_ c;
	int held[MAXOPS];

	setup_case(&c);
	add(&c, 0, SYS_getdents64, 37, "/s", 8192, 8168);
	add(&c, 2, SYS_openat, -100, "/g", 37, 37);
	add(&c, 0, SYS_getdents64, 37, "/s", 5832, 5856);
	add(&c, 0, SYS_getdents64, 37, "/s", 0, 0);
	add(&c, 0, SYS_close, 37, "/s", 0, 0);
	add(&c, 2, SYS_getdents64, 37, "/g", 1600, 1600);
	add(&c, 2, SYS_getdents64, 37, "/g", 0, 0);
	add(&c, 0, SYS_getdents64, 5, "/h", 700, 724);
	add(&c, 2, SYS_dup2, 6, "/h", 5, 5);
	c.ops[8].ev.args[1] = 5;
	add(&c, 0, SYS_getdents64, 5, "/h", 0, 0);
	run(&c, held);
	assert_int_equal(c.judged[0], 0);
	assert_int_equal(c.judged[2], 0);
	assert_int_equal(c.judged[7], 1);	/* its listing ended by the dup2 */
	assert_int_equal(c.res.listings_reordered, 1);
	assert_int_equal(c.res.listings_differ, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_order),
		cmocka_unit_test(test_entry_added),
		cmocka_unit_test(test_entry_missing),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_full_buffers),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_other_thread_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
