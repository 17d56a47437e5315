/*
 * test_replay_starts.c - process starts in a replay (replay/spawn.c): each
 * successful execve starts a program natively and waits for it; a failed
 * one (a PATH search miss) does not; without opts.starts none does.  The
 * start, a clone in the replayer's memory, leaves the replayer's
 * descriptors open.  A thread spinning think time yields
 * while a start or a wake of another replay thread is pending (spin.c).
 */
#include <errno.h>
#include <pthread.h>
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
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

static char tmp[256], trace[300], root[300];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = 1000000000LL };
	struct w w = { .t = 1000000000LL + 1000 * US };
	int k;

	snprintf(tmp, sizeof(tmp), "%s/iotape-rpls-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(trace, sizeof(trace), "%s/t.iotape", tmp);
	snprintf(root, sizeof(root), "%s/root", tmp);
	if (iot_writer_open(&w.w, trace, &h, NULL) < 0)
		return -1;
	st(&w, "/bin", S_IFDIR, 0, NULL, 1, 2);
	st(&w, "/bin/prog", S_IFREG, 100, NULL, 2, 1);
	/* three processes: a miss on PATH, then the exec */
	for (k = 0; k < 3; k++) {
		ev(&w, 10 + k, SYS_execve, -ENOENT, "/usr/bin/prog", NULL, 3, A(0), A(0), A(0));
		ev(&w, 10 + k, SYS_execve, 0, "/bin/prog", NULL, 3, A(0), A(0), A(0));
		ev(&w, 10 + k, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	}
	if (w.err || iot_writer_close(w.w, 0) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void starts(void **state)
{
	struct rpl_opts o = { .trace = trace, .root = root, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_AFAP, .force = 1, .starts = 1 };
	static struct rpl_result res;

	mkdir(root, 0755);
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.starts, 3);
	assert_int_equal(res.start_fails, 0);
	assert_true(res.starts_ns > 0);
	assert_int_equal(res.sc[SYS_execve].replayed, 6);

	o.starts = 0;
	memset(&res, 0, sizeof(res));
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.starts, 0);
	assert_int_equal(res.mismatches, 0);
}

/* Many descriptors open in the replayer, numbered above the start
 * program's (which takes the lowest free number): the
 * starts leave every one of them open and its close-on-exec flag as it
 * was (a clone that closed them in a table it shared would not).  With
 * one descriptor table for all threads (IOTAPE_REPLAY_FILES=shared) the
 * starts are made from the replayer's own table, else from a replayed
 * process's. */
static void starts_keep_fds(void **state)
{
	struct rpl_opts o = { .trace = trace, .root = root, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_AFAP, .force = 1, .starts = 1 };
	static struct rpl_result res;
	enum { N = 600 };
	int fds[N], i, fd;

	mkdir(root, 0755);
	fd = open("/", O_RDONLY);
	assert_true(fd >= 0);
	for (i = 0; i < N; i++) {
		fds[i] = fcntl(fd, i % 2 ? F_DUPFD_CLOEXEC : F_DUPFD, 1000);
		assert_true(fds[i] >= 1000);
	}
	close(fd);
	assert_int_equal(setenv("IOTAPE_REPLAY_FILES", "shared", 1), 0);
	assert_int_equal(rpl_run(&o, &res), 0);
	unsetenv("IOTAPE_REPLAY_FILES");
	assert_int_equal(res.starts, 3);
	assert_int_equal(res.start_fails, 0);
	assert_int_equal(res.mismatches, 0);
	memset(&res, 0, sizeof(res));
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.starts, 3);
	assert_int_equal(res.start_fails, 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(fcntl(fds[i], F_GETFD), i % 2 ? FD_CLOEXEC : 0);
		close(fds[i]);
	}
}

struct waker {
	struct rpl_plan *p;
	_Atomic int done;
};

static void *wake_loop(void *arg)
{
	struct waker *w = arg;

	while (!atomic_load(&w->done))
		rpl_woke(w->p);
	return NULL;
}

/* Spinning yields only while a hand-over is pending: none without, at
 * least one while a start is under way or a thread was woken. */
static void spin_yields(void **state)
{
	static struct rpl_plan p;
	struct waker w = { .p = &p };
	pthread_t th;

	memset(&p, 0, sizeof(p));
	assert_int_equal(rpl_spin_cpu(&p, 3000000, -1), 0);
	assert_int_equal(atomic_load(&p.spin_yields), 0);

	atomic_store(&p.handovers, 1);
	assert_int_equal(rpl_spin_cpu(&p, 3000000, -1), 0);
	assert_true(atomic_load(&p.spin_yields) > 0);

	atomic_store(&p.handovers, 0);
	atomic_store(&p.spin_yields, 0);
	assert_int_equal(pthread_create(&th, NULL, wake_loop, &w), 0);
	assert_int_equal(rpl_spin_cpu(&p, 30000000, -1), 0);
	atomic_store(&w.done, 1);
	pthread_join(th, NULL);
	assert_true(atomic_load(&p.spin_yields) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(starts, setup, teardown),
		cmocka_unit_test_setup_teardown(starts_keep_fds, setup, teardown),
		cmocka_unit_test(spin_yields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
