/*
 * test_replay_order.c - which orders between processes the plan keeps
 * (replay/plan.c plan_deps()): an op that changes a path or a directory's
 * names follows every op on it before; ops that only look (a stat, a
 * failed mkdir of a directory that is there) follow the last change, not
 * each other.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(failed_mkdirs, setup, teardown),
		cmocka_unit_test_setup_teardown(looks_then_change, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
