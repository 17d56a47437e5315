/*
 * test_replay_order.c - which orders between processes the plan keeps
 * (replay/plan.c plan_deps()): an op that changes a path or a directory's
 * names follows every op on it before; ops that only look (a stat, a
 * failed mkdir of a directory that is there) follow the last change, not
 * each other; a pipe's reads follow the writes that fed them, and its
 * writes no read.
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

static char tmp[256], trace[300];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/iotape-rplo-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(trace, sizeof(trace), "%s/t.iotape", tmp);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static struct w open_trace(void)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = 1000000000LL };
	struct w w = { .t = 1000000000LL + 1000 * US };

	assert_int_equal(iot_writer_open(&w.w, trace, &h, NULL), 0);
	return w;
}

static void close_trace(struct w *w)
{
	assert_int_equal(w->err, 0);
	assert_int_equal(iot_writer_close(w->w, 0), 0);
}

static int depends(const struct rpl_plan *p, uint32_t op, uint32_t on)
{
	uint16_t i;

	for (i = 0; i < p->ops[op].ndeps; i++)
		if (p->deps[p->ops[op].dep_off + i] == on)
			return 1;
	return 0;
}

/* The @k-th op (from 0) of thread @tid with syscall @nr. */
static uint32_t nth(const struct rpl_plan *p, int tid, int nr, int k)
{
	size_t i;

	for (i = 0; i < p->n_ops; i++)
		if (p->ops[i].ev.tid == tid && p->ops[i].ev.nr == nr && k-- == 0)
			return (uint32_t)i;
	fail_msg("no op %d of %d with syscall %d", k, tid, nr);
	return 0;
}

#define ROUNDS 4
#define MODE_NEW (O_RDWR | O_CREAT | O_TRUNC)

/*
 * Two processes, each making sure its own directory is there before
 * every file it creates and fsyncs in it (fs_mark does): their failed
 * mkdirs name the same parent, and were ordered by it, so that the two
 * took turns file by file as the recording filesystem's journal had
 * them.  Failed, they changed nothing: no order between the processes.
 */
static void failed_mkdirs(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;
	char f[64];
	int r;

	st(&w, "/w", S_IFDIR, 0, NULL, 1, 4);
	st(&w, "/w/a", S_IFDIR, 0, NULL, 2, 2);
	st(&w, "/w/b", S_IFDIR, 0, NULL, 3, 2);
	for (r = 0; r < ROUNDS; r++) {
		ev(&w, 10, SYS_mkdir, -EEXIST, "/w/a", NULL, 2, A(0), A(0777));
		ev(&w, 20, SYS_mkdir, -EEXIST, "/w/b", NULL, 2, A(0), A(0777));
		snprintf(f, sizeof(f), "/w/a/f%d", r);
		ev(&w, 10, SYS_openat, 3, f, NULL, 4, A(AT_FDCWD), A(0), A(MODE_NEW), A(0644));
		snprintf(f, sizeof(f), "/w/b/f%d", r);
		ev(&w, 20, SYS_openat, 3, f, NULL, 4, A(AT_FDCWD), A(0), A(MODE_NEW), A(0644));
		ev(&w, 10, SYS_fsync, 0, NULL, NULL, 1, A(3));
		ev(&w, 20, SYS_fsync, 0, NULL, NULL, 1, A(3));
		ev(&w, 10, SYS_close, 0, NULL, NULL, 1, A(3));
		ev(&w, 20, SYS_close, 0, NULL, NULL, 1, A(3));
	}
	/* then 20 makes a name in /w: it follows 10's looks at /w */
	ev(&w, 20, SYS_mkdir, 0, "/w/c", NULL, 2, A(0), A(0777));
	/* and 10's look at the new name follows that */
	ev(&w, 10, SYS_newfstatat, 0, "/w/c", NULL, 4, A(AT_FDCWD), A(0), A(0), A(0));
	ev(&w, 10, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	ev(&w, 20, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (r = 0; r < ROUNDS; r++) {
		assert_int_equal(p.ops[nth(&p, 10, SYS_mkdir, r)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, 20, SYS_mkdir, r)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, 10, SYS_openat, r)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, 20, SYS_openat, r)].ndeps, 0);
	}
	assert_true(depends(&p, nth(&p, 20, SYS_mkdir, ROUNDS), nth(&p, 10, SYS_mkdir, ROUNDS - 1)));
	assert_true(depends(&p, nth(&p, 10, SYS_newfstatat, 0), nth(&p, 20, SYS_mkdir, ROUNDS)));
	rpl_plan_free(&p);
}

#define LOOKERS 7

/*
 * Many processes look at one file (a header every compiler reads), then
 * one removes it: the lookers need not take turns, but the remove comes
 * after every look, and a look after it after the remove.
 */
static void looks_then_change(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;
	uint32_t rm, seen = 0;
	size_t i;
	int k;

	st(&w, "/w", S_IFDIR, 0, NULL, 1, 2);
	st(&w, "/w/h", S_IFREG, 10, NULL, 2, 1);
	for (k = 0; k < LOOKERS; k++) {
		ev(&w, 100 + k, SYS_openat, 3, "/w/h", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
		ev(&w, 100 + k, SYS_read, 10, NULL, NULL, 3, A(3), A(0), A(4096));
		ev(&w, 100 + k, SYS_close, 0, NULL, NULL, 1, A(3));
	}
	ev(&w, 200, SYS_unlink, 0, "/w/h", NULL, 1, A(0));
	ev(&w, 101, SYS_newfstatat, -ENOENT, "/w/h", NULL, 4, A(AT_FDCWD), A(0), A(0), A(0));
	close_trace(&w);

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	/* no turns: a look follows no other, but where more processes
	 * look than the plan keeps, the newest follows the oldest kept */
	assert_int_equal(p.ops[nth(&p, 100, SYS_openat, 0)].ndeps, 0);
	assert_int_equal(p.ops[nth(&p, 101, SYS_openat, 0)].ndeps, 0);
	for (k = 2; k < LOOKERS; k++)
		assert_in_range(p.ops[nth(&p, 100 + k, SYS_openat, 0)].ndeps, 0, 1);
	/* the remove follows every look: directly, or through a look that
	 * follows it */
	rm = nth(&p, 200, SYS_unlink, 0);
	for (k = 0; k < LOOKERS; k++) {
		uint32_t op = nth(&p, 100 + k, SYS_openat, 0);
		int reach = depends(&p, rm, op);

		for (i = 0; !reach && i < p.ops[rm].ndeps; i++)
			reach = depends(&p, p.deps[p.ops[rm].dep_off + i], op);
		seen += reach;
	}
	assert_int_equal(seen, LOOKERS);
	assert_true(depends(&p, nth(&p, 101, SYS_newfstatat, 0), rm));
	rpl_plan_free(&p);
}

struct pev {
	int64_t t0, t1;
	int tid, nr;
	int64_t ret;
	int64_t a[3];
};

#define NB 8192
#define T0 1000000000LL

/* A thread writes a non-blocking pipe, the main thread reads it.  The
 * first read's return was recorded late (the tracer's latency), after the
 * write that its reading made room for had entered. */
static const struct pev pevs[] = {
	{ 1000, 1010, 100, SYS_pipe2, 0, { 3 | (4LL << 32), O_NONBLOCK } },
	{ 1020, 1030, 100, SYS_clone, 101, { 0x3d0f00 } },
	{ 1100, 1101, 101, SYS_write, NB, { 4, 0, NB } },		/* W1 */
	{ 1105, 1200, 100, SYS_read, NB, { 3, 0, NB } },		/* R1 */
	{ 1110, 1111, 101, SYS_write, NB, { 4, 0, NB } },		/* W2 */
	{ 1120, 1121, 101, SYS_write, -EAGAIN, { 4, 0, NB } },		/* full */
	{ 1150, 1151, 101, SYS_write, NB, { 4, 0, NB } },		/* W4 */
	{ 1210, 1211, 100, SYS_read, NB, { 3, 0, NB } },		/* R2 */
	{ 1220, 1221, 100, SYS_read, NB, { 3, 0, NB } },		/* R3 */
	{ 1300, 1301, 101, SYS_close, 0, { 4 } },
	{ 1310, 1310, 101, SYS_exit, 0, { 0 } },
	{ 1320, 1321, 100, SYS_read, 0, { 3, 0, NB } },			/* end of file */
	{ 1400, 1400, 100, SYS_exit_group, 0, { 0 } },
};
#define N_PEVS (sizeof(pevs) / sizeof(pevs[0]))

static uint32_t pev_op(const struct rpl_plan *p, size_t k)
{
	size_t i;

	for (i = 0; i < p->n_ops; i++)
		if (p->ops[i].ev.t_enter == T0 + pevs[k].t0 * US && p->ops[i].ev.tid == pevs[k].tid)
			return (uint32_t)i;
	fail_msg("no op for event %zu", k);
	return 0;
}

static void write_pipe_trace(void)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0 };
	struct iot_process pr = { .kind = IOT_PROC_THREAD, .t_ns = T0 + 1025 * US, .pid = 100,
				  .tid = 101, .ppid = 100, .ptid = 100, .clone_flags = 0x3d0f00 };
	struct iot_writer *w;
	size_t i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(iot_writer_process(w, &pr), 0);
	for (i = 0; i < N_PEVS; i++) {
		struct iot_event ev = { .t_enter = T0 + pevs[i].t0 * US,
					.t_exit = T0 + pevs[i].t1 * US, .pid = 100,
					.tid = pevs[i].tid, .nr = pevs[i].nr, .ret = pevs[i].ret,
					.nargs = 3 };

		memcpy(ev.args, pevs[i].a, sizeof(pevs[i].a));
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
}

/* A read follows the write that put its last byte in the pipe, not the
 * last write before its return; no write follows a read (the room it
 * needs is waited for when it runs); end of file follows the close.
 * Replayed, the write that found the pipe full moves nothing. */
static void pipe_order(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	static struct rpl_result res;
	struct rpl_plan p;
	char root[400];
	size_t i;

	write_pipe_trace();
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_true(depends(&p, pev_op(&p, 3), pev_op(&p, 2)));		/* R1 <- W1 */
	assert_false(depends(&p, pev_op(&p, 3), pev_op(&p, 6)));	/* not W4 */
	assert_true(depends(&p, pev_op(&p, 7), pev_op(&p, 4)));		/* R2 <- W2 */
	assert_true(depends(&p, pev_op(&p, 8), pev_op(&p, 6)));		/* R3 <- W4 */
	assert_true(depends(&p, pev_op(&p, 11), pev_op(&p, 9)));	/* EOF <- close */
	for (i = 0; i < N_PEVS; i++)
		if (pevs[i].nr == SYS_write)
			assert_int_equal(p.ops[pev_op(&p, i)].ndeps, 0);
	rpl_plan_free(&p);

	snprintf(root, sizeof(root), "%s/root", tmp);
	mkdir(root, 0755);
	o.root = root;
	o.timing = RPL_TIMING_AFAP;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.ordering_violations, 0);
	assert_int_equal(res.deadlock_breaks, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(failed_mkdirs, setup, teardown),
		cmocka_unit_test_setup_teardown(looks_then_change, setup, teardown),
		cmocka_unit_test_setup_teardown(pipe_order, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
