/*
 * test_analyze.c - the analyzer's pieces: histogram accuracy, classes,
 * escaping, and phases of a trace written here with the writer.
 */
#include <asm/unistd_64.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ana.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quantiles within 1% of the exact nearest-rank values. */
static void test_hist_accuracy(void **state)
{
	static int64_t v[20000];
	struct ana_hist h = { 0 };
	const double q[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t r = 7;
	size_t i, k;

	for (i = 0; i < 20000; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		/* spread over six decades, 10 ns to 10 ms */
		v[i] = (int64_t)(10.0 * __builtin_exp((double)(r >> 11) / 9007199254740992.0 * 13.8));
		ana_hist_add(&h, v[i]);
	}
	qsort(v, 20000, sizeof(v[0]), cmp_i64);
	for (k = 0; k < 4; k++) {
		int64_t exact = v[(size_t)(q[k] * 20000 + 0.999999) - 1];
		int64_t got = ana_hist_quantile(&h, q[k]);
		double err = (double)(got - exact) / (double)exact;

		assert_true(err < 0.01 && err > -0.01);
	}
	assert_int_equal(ana_hist_quantile(&h, 1.0), v[19999]);
	assert_int_equal(ana_hist_quantile(&h, 0.0), v[0]);
	/* bounded memory: buckets up to 10 ms, not per value */
	assert_true(h.nb < 4000);
	ana_hist_free(&h);
}

static void test_classes(void **state)
{
	assert_int_equal(ana_class_of(iot_syscall_by_name("openat")), IOT_CLASS_METADATA);
	assert_int_equal(ana_class_of(iot_syscall_by_name("newfstatat")), IOT_CLASS_METADATA);
	assert_int_equal(ana_class_of(iot_syscall_by_name("pread64")), IOT_CLASS_READ);
	assert_int_equal(ana_class_of(iot_syscall_by_name("writev")), IOT_CLASS_WRITE);
	assert_int_equal(ana_class_of(iot_syscall_by_name("ftruncate")), IOT_CLASS_WRITE);
	assert_int_equal(ana_class_of(iot_syscall_by_name("fallocate")), IOT_CLASS_WRITE);
	assert_int_equal(ana_class_of(iot_syscall_by_name("getdents64")), IOT_CLASS_DIRECTORY);
	assert_int_equal(ana_class_of(iot_syscall_by_name("fdatasync")), IOT_CLASS_SYNC);
	assert_int_equal(ana_class_of(iot_syscall_by_name("lsetxattr")), IOT_CLASS_XATTR);
	assert_int_equal(ana_class_of(iot_syscall_by_name("wait4")), IOT_CLASS_PROCESS);
	assert_int_equal(ana_class_of(iot_syscall_by_name("lseek")), IOT_CLASS_OTHER);
	assert_int_equal(ana_class_of(iot_syscall_by_name("mmap")), IOT_CLASS_OTHER);
}

static char *capture(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, s, n);
	fclose(f);
	return buf;
}

static void test_escaping(void **state)
{
	char *s;

	s = capture(ana_json_str, "a\"b\\c\n\x01", 7);
	assert_string_equal(s, "\"a\\\"b\\\\c\\n\\u0001\"");
	free(s);
	/* valid UTF-8 passes, a lone 0xe9 and an overlong form do not */
	s = capture(ana_json_str, "caf\xc3\xa9 caf\xe9 \xc0\xaf", 13);
	assert_string_equal(s, "\"caf\xc3\xa9 caf\\u00e9 \\u00c0\\u00af\"");
	free(s);
	s = capture(ana_csv_str, "a,b \"q\"", 7);
	assert_string_equal(s, "\"a,b \"\"q\"\"\"");
	free(s);
	s = capture(ana_csv_str, "/plain/path", 11);
	assert_string_equal(s, "/plain/path");
	free(s);
	s = capture(ana_html_str, "<a&\xff>", 5);
	assert_string_equal(s, "&lt;a&amp;&#xfffd;&gt;");
	free(s);
}

static int64_t now_ns = 1000000;

static void ev(struct iot_writer *w, int pid, int nr, int64_t ret, int64_t dur)
{
	struct iot_event e = { 0 };

	e.t_enter = now_ns += 1000;
	e.t_exit = now_ns += dur;
	e.pid = e.tid = pid;
	e.nr = nr;
	e.ret = ret;
	assert_int_equal(iot_writer_event(w, &e), 0);
}

static void pr(struct iot_writer *w, int kind, int pid, int ppid, const char *a0,
	       int64_t cpu)
{
	const char *argv[] = { a0, "arg" };
	struct iot_process p = { 0 };

	p.kind = (uint32_t)kind;
	p.t_ns = now_ns += 10;
	p.pid = p.tid = pid;
	p.ppid = ppid;
	p.argc = a0 ? 2 : 0;
	p.argv = argv;
	p.utime_ns = cpu;
	assert_int_equal(iot_writer_process(w, &p), 0);
}

/* A trace at @path (a mkstemp() template), its chunks cut every 3 events. */
static struct iot_writer *tmp_writer(char *path)
{
	struct iot_header h = { .argc = 0 };
	struct iot_writer_opts o = { .flush_events = 3 };
	struct iot_writer *w;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(iot_writer_fdopen(&w, fd, &h, &o), 0);
	return w;
}

/* A shell that runs two commands, then execs a third in place. */
static void test_phases(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct ana_trace t = { 0 };

	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	ev(w, 10, __NR_read, 100, 500);			/* gaps */
	pr(w, IOT_PROC_FORK, 11, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 11, 10, "/bin/cp", 0);
	ev(w, 11, __NR_openat, 3, 2000);
	ev(w, 11, __NR_write, 4096, 8000);
	pr(w, IOT_PROC_FORK, 12, 11, NULL, 0);		/* a grandchild: same phase */
	ev(w, 12, __NR_fsync, 0, 50000);
	pr(w, IOT_PROC_EXIT, 12, 11, NULL, 300);
	pr(w, IOT_PROC_EXIT, 11, 10, NULL, 700);
	pr(w, IOT_PROC_FORK, 13, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 13, 10, "sync", 0);
	ev(w, 13, __NR_sync, 0, 90000);
	pr(w, IOT_PROC_EXIT, 13, 10, NULL, 100);
	pr(w, IOT_PROC_EXEC, 10, 1, "du", 0);		/* exec in place */
	ev(w, 10, __NR_getdents64, 0, 3000);
	ev(w, 10, __NR_newfstatat, -2, 1000);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 50);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	assert_int_equal(t.events, 7);
	assert_int_equal(t.n_phases, 4);
	assert_string_equal(t.phases[0].name, "/bin/cp arg");
	assert_int_equal(t.phases[0].st.count, 3);
	assert_int_equal(t.phases[0].cpu_ns, 1000);
	assert_string_equal(t.phases[1].name, "sync arg");
	assert_int_equal(t.phases[1].st.count, 1);
	assert_string_equal(t.phases[2].name, "du arg");
	assert_int_equal(t.phases[2].st.count, 2);
	assert_int_equal(t.phases[2].st.errors, 1);
	assert_string_equal(t.phases[3].name, "(gaps)");
	assert_int_equal(t.phases[3].st.count, 1);
	assert_int_equal(t.cpu_ns, 1150);
	assert_int_equal(t.cls[IOT_CLASS_SYNC].count, 2);
	assert_int_equal(t.cls[IOT_CLASS_WRITE].bytes, 4096);
	assert_int_equal(t.cls[IOT_CLASS_READ].bytes, 100);
	assert_int_equal(t.sys[__NR_sync].total_ns, 90000);
	/* commands by the basename of the last exec */
	for (size_t i = 0; i < t.n_procs; i++)
		if (strcmp(t.procs[i].cmd, "cp") == 0)
			assert_int_equal(t.procs[i].st.count, 3);
	ana_trace_free(&t);
}

static const struct ana_proc *cmd_row(const struct ana_trace *t, const char *cmd)
{
	for (size_t i = 0; i < t->n_procs; i++)
		if (strcmp(t->procs[i].cmd, cmd) == 0)
			return &t->procs[i];
	return NULL;
}

/* What is a process: a pid used again by another process (the trace
 * says so by a fork record after the first one's exit) is another one,
 * and each one's calls count under its own command, not all under the
 * last one's.  An exec from a thread other than the leader (the recorder
 * writes the leader's exit, then the exec) is the same process going on:
 * its calls, also those many chunks later, count under the command it
 * execs and in its phase. */
static void test_pid_reuse(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct ana_trace t = { 0 };
	int i;

	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	pr(w, IOT_PROC_FORK, 12, 10, NULL, 0);
	ev(w, 12, __NR_close, 0, 100);
	pr(w, IOT_PROC_EXIT, 12, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 12, 10, "/usr/bin/server", 0);
	for (i = 0; i < 60; i++)			/* 20 chunks */
		ev(w, 12, __NR_read, 10, 2000);
	pr(w, IOT_PROC_EXIT, 12, 10, NULL, 100);
	ev(w, 10, __NR_wait4, 12, 1000);
	pr(w, IOT_PROC_FORK, 11, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 11, 10, "/bin/aaa", 0);
	ev(w, 11, __NR_openat, 3, 2000);
	ev(w, 11, __NR_read, 10, 2000);
	pr(w, IOT_PROC_EXIT, 11, 10, NULL, 100);
	ev(w, 10, __NR_wait4, 11, 1000);
	/* not in the chunk of the first one's calls: a chunk gives its
	 * processes before its events */
	assert_int_equal(iot_writer_flush(w, 0), 0);
	pr(w, IOT_PROC_FORK, 11, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 11, 10, "/bin/bbb", 0);
	ev(w, 11, __NR_close, 0, 500);
	pr(w, IOT_PROC_EXIT, 11, 10, NULL, 200);
	ev(w, 10, __NR_wait4, 11, 1000);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 50);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	assert_non_null(cmd_row(&t, "aaa"));
	assert_int_equal(cmd_row(&t, "aaa")->st.count, 2);
	assert_int_equal(cmd_row(&t, "aaa")->pids, 1);
	assert_int_equal(cmd_row(&t, "bbb")->st.count, 1);
	assert_int_equal(cmd_row(&t, "bbb")->pids, 1);
	assert_int_equal(cmd_row(&t, "sh")->st.count, 3);
	assert_int_equal(cmd_row(&t, "server")->st.count, 61);
	assert_int_equal(t.phases[0].st.count, 61);
	assert_null(cmd_row(&t, "(unknown)"));
	ana_trace_free(&t);
}

/* Many short processes, the chunks cut every 3 events, their pids used
 * again and again (700 of them, as pid_max wraps): a child's calls before
 * its exec count under the command it execs, whether they are in a chunk
 * before its exec record or in the one after; calls written after its
 * exit record (a later chunk) count under its command too; the table
 * forgets the processes that ended (ANA_GRAVE_CHUNKS) and nothing is
 * lost. */
static void test_many_processes(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct ana_trace t = { 0 };
	int i, n = 3000;
	pr(w, IOT_PROC_START, 10, 1, "make", 0);
	pr(w, IOT_PROC_FORK, 11, 10, NULL, 0);		/* the one phase */
	for (i = 0; i < n; i++) {
		int pid = 1000 + i % 700;

		pr(w, IOT_PROC_FORK, pid, 11, NULL, 0);
		ev(w, pid, __NR_close, 0, 100);		/* before its exec */
		if (i % 2)
			ev(w, pid, __NR_close, 0, 100);
		pr(w, IOT_PROC_EXEC, pid, 11, i % 3 ? "/usr/bin/cc1" : "/bin/sh", 0);
		ev(w, pid, __NR_openat, 3, 3000);
		if (i % 5 == 0) {
			pr(w, IOT_PROC_EXIT, pid, 11, NULL, 10);
			ev(w, pid, __NR_exit_group, 0, 0);	/* after its exit record */
			assert_int_equal(iot_writer_flush(w, 0), 0);
			ev(w, pid, __NR_close, 0, 100);	/* a chunk later */
		} else {
			pr(w, IOT_PROC_EXIT, pid, 11, NULL, 10);
		}
		ev(w, 11, __NR_wait4, pid, 1000);
	}
	pr(w, IOT_PROC_EXIT, 11, 10, NULL, 10);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 10);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	/* i % 3 == 0: sh, 1000 of them, 500 with two closes, 200 with two
	 * more calls after their exit */
	assert_int_equal(cmd_row(&t, "sh")->pids, 1000);
	assert_int_equal(cmd_row(&t, "sh")->st.count, 1000 * 2 + 500 + 200 * 2);
	assert_int_equal(cmd_row(&t, "cc1")->pids, 2000);
	assert_int_equal(cmd_row(&t, "cc1")->st.count, 2000 * 2 + 1000 + 400 * 2);
	assert_int_equal(cmd_row(&t, "make")->st.count, n);
	assert_null(cmd_row(&t, "(unknown)"));
	assert_int_equal(t.n_phases, 2);
	assert_int_equal(t.phases[0].st.count, t.total.count);
	assert_int_equal(t.phases[0].procs, n + 1);
	ana_trace_free(&t);
}

/* A process whose leader exits first (pthread_exit(): its exit record
 * written then, as the bpf backend writes it) while its other thread
 * goes on for 20 chunks, forking children: the thread's calls count
 * under the process's command, not "(unknown)" (the process was dropped
 * four chunks after its leader's exit), and it goes after its last
 * thread's exit. */
static void test_leader_exits_first(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct iot_process th = { .kind = IOT_PROC_THREAD, .pid = 20, .tid = 21, .ppid = 10 };
	struct iot_event e = { 0 };
	struct ana_trace t = { 0 };
	int i;

	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	pr(w, IOT_PROC_FORK, 20, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 20, 10, "/usr/bin/worker", 0);
	th.t_ns = now_ns += 10;
	assert_int_equal(iot_writer_process(w, &th), 0);
	pr(w, IOT_PROC_EXIT, 20, 10, NULL, 10);		/* the leader's */
	for (i = 0; i < 60; i++) {			/* 20 chunks */
		e.t_enter = now_ns += 1000;
		e.t_exit = now_ns += 1000;
		e.pid = 20;
		e.tid = 21;
		e.nr = __NR_newfstatat;
		assert_int_equal(iot_writer_event(w, &e), 0);
		if (i % 6 == 5) {
			pr(w, IOT_PROC_FORK, 100 + i, 20, NULL, 0);
			pr(w, IOT_PROC_EXIT, 100 + i, 20, NULL, 0);
		}
	}
	th.kind = IOT_PROC_EXIT;
	th.t_ns = now_ns += 10;
	assert_int_equal(iot_writer_process(w, &th), 0);
	ev(w, 10, __NR_wait4, 20, 1000);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 50);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	assert_non_null(cmd_row(&t, "worker"));
	assert_int_equal(cmd_row(&t, "worker")->st.count, 60);
	assert_null(cmd_row(&t, "(unknown)"));
	ana_trace_free(&t);
}

/* A shell that runs 3,000 top-level commands, each as long as no other,
 * then execs a last one in place: the ANA_PHASES_MAX longest keep rows of
 * their own, in the order they ran, the others are one row, "(other
 * commands)", before "(gaps)"; each call is in one phase and the gaps are
 * the time between the commands, as with a row each.  The first command
 * (among the shortest) leaves a process that exits at the end: its CPU
 * time and calls count in "(other commands)".  With ANA_PHASES_MAX
 * commands, nothing is folded. */
static void fold_trace(const char *path, int n, int64_t *gaps, int *kept)
{
	struct iot_writer *w;
	struct iot_header h = { .argc = 0 };
	struct iot_writer_opts o = { .flush_events = 3 };
	int64_t first = 0, covered = 0, s;
	int i, k;

	assert_int_equal(iot_writer_open(&w, path, &h, &o), 0);
	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	first = now_ns + 1000;
	for (i = 0; i < n; i++) {
		int pid = 1000 + i, len = (i * 7919) % n;	/* each its own length */
		char name[32];

		snprintf(name, sizeof(name), "/bin/c%d", i);
		ev(w, 10, __NR_clone, pid, 100);
		pr(w, IOT_PROC_FORK, pid, 10, NULL, 0);
		s = now_ns;
		pr(w, IOT_PROC_EXEC, pid, 10, name, 0);
		ev(w, pid, __NR_openat, 3, 1000 + 10 * len);
		if (i == 0) {
			pr(w, IOT_PROC_FORK, 999, pid, NULL, 0);
			ev(w, 999, __NR_read, 1, 100);
		}
		pr(w, IOT_PROC_EXIT, pid, 10, NULL, 10);
		covered += now_ns - s;
		ev(w, 10, __NR_wait4, pid, 100);
		kept[i] = len >= n - ANA_PHASES_MAX + 1;
	}
	ev(w, 999, __NR_read, 1, 100);
	pr(w, IOT_PROC_EXIT, 999, 1000, NULL, 7777);
	/* a chunk gives its processes first: the exec after the calls before */
	assert_int_equal(iot_writer_flush(w, 0), 0);
	pr(w, IOT_PROC_EXEC, 10, 1, "/bin/last", 0);	/* in place: one more */
	s = now_ns;
	ev(w, 10, __NR_write, 1, 1000 * (int64_t)n);	/* the longest */
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 50);
	covered += now_ns - s;
	/* the exec's phase ends at the last call's end, not at the exit */
	covered -= now_ns - (s + 1000 + 1000 * (int64_t)n);
	assert_int_equal(iot_writer_close(w, 0), 0);
	*gaps = now_ns - 10 - first - covered;
	for (i = k = 0; i < n; i++)
		k += kept[i];
	if (n > ANA_PHASES_MAX)
		assert_int_equal(k, ANA_PHASES_MAX - 1);	/* and /bin/last */
}

/* A server a phase starts (pg_ctl start) runs on through the next
 * phases: its calls count in the phase open when it makes them, and its
 * CPU time where it ran, not all in the phase that started it (3,123 %
 * of that phase's real time before). */
static void test_server_phase(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct ana_trace t = { 0 };
	int i;

	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	ev(w, 10, __NR_clone, 20, 100);
	pr(w, IOT_PROC_FORK, 20, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 20, 10, "/bin/start", 0);
	ev(w, 20, __NR_clone, 21, 100);
	pr(w, IOT_PROC_FORK, 21, 20, NULL, 0);
	ev(w, 21, __NR_openat, 3, 100);
	pr(w, IOT_PROC_EXIT, 20, 10, NULL, 10);
	ev(w, 10, __NR_wait4, 20, 100);
	ev(w, 10, __NR_clone, 30, 100);
	pr(w, IOT_PROC_FORK, 30, 10, NULL, 0);
	pr(w, IOT_PROC_EXEC, 30, 10, "/bin/client", 0);
	for (i = 0; i < 10; i++) {
		ev(w, 30, __NR_write, 1, 100000);
		ev(w, 21, __NR_read, 1, 100);
	}
	pr(w, IOT_PROC_EXIT, 30, 10, NULL, 10);
	ev(w, 10, __NR_wait4, 30, 100);
	pr(w, IOT_PROC_EXIT, 21, 20, NULL, 1000000);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 10);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	assert_string_equal(t.phases[0].name, "/bin/start arg");
	assert_string_equal(t.phases[1].name, "/bin/client arg");
	assert_int_equal(t.phases[0].st.count, 2);		/* clone, openat */
	assert_int_equal(t.phases[1].st.count, 20);
	/* the server ran (between its calls) nearly all in the client's */
	assert_true(t.phases[0].cpu_ns < 100000);
	assert_true(t.phases[1].cpu_ns > 900000);
	ana_trace_free(&t);
}

static void test_fold_phases(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	static int kept[3000];
	struct ana_trace t = { 0 };
	const struct ana_phase *f;
	uint64_t calls = 0;
	int64_t gaps;
	size_t i, k;
	int fd = mkstemp(path), n = 3000;

	assert_true(fd >= 0);
	close(fd);
	fold_trace(path, n, &gaps, kept);
	assert_int_equal(ana_load(&t, path), 0);
	assert_int_equal(t.n_phases, ANA_PHASES_MAX + 2);
	assert_int_equal(t.phases_folded, n + 1 - ANA_PHASES_MAX);
	for (i = 0, k = 0; i < (size_t)n; i++) {
		char name[32];

		if (!kept[i])
			continue;
		snprintf(name, sizeof(name), "/bin/c%zu arg", i);
		assert_string_equal(t.phases[k].name, name);
		assert_int_equal(t.phases[k].st.count, 1);
		assert_int_equal(t.phases[k].procs, 1);
		k++;
	}
	assert_string_equal(t.phases[k].name, "/bin/last arg");
	assert_int_equal(t.phases[k].st.count, 1);
	f = &t.phases[k + 1];
	assert_string_equal(f->name, "(other commands)");
	assert_int_equal(f->st.count, n + 1 - (ANA_PHASES_MAX - 1) + 1);
	assert_int_equal(f->procs, n - (ANA_PHASES_MAX - 1) + 1);
	assert_true(f->cpu_ns >= 10 * (n - (ANA_PHASES_MAX - 1)) + 7777);
	assert_string_equal(t.phases[k + 2].name, "(gaps)");
	assert_int_equal(t.phases[k + 2].st.count, 2 * n);
	assert_int_equal(t.gaps_real_ns, gaps);
	for (i = 0; i < t.n_phases; i++)
		calls += t.phases[i].st.count;
	assert_int_equal(calls, t.total.count);
	ana_trace_free(&t);

	/* as many as the rows: none folded */
	memset(&t, 0, sizeof(t));
	fold_trace(path, ANA_PHASES_MAX - 1, &gaps, kept);
	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	assert_int_equal(t.n_phases, ANA_PHASES_MAX + 1);
	assert_int_equal(t.phases_folded, 0);
	assert_int_equal(t.gaps_real_ns, gaps);
	assert_string_equal(t.phases[0].name, "/bin/c0 arg");
	/* c0's child's read after c0 ended counts where it falls, in no
	 * phase (a server a phase starts runs on through the next ones) */
	assert_int_equal(t.phases[0].st.count, 2);
	assert_string_equal(t.phases[t.n_phases - 1].name, "(gaps)");
	assert_int_equal(t.phases[t.n_phases - 1].st.count, 2 * (ANA_PHASES_MAX - 1) + 1);
	ana_trace_free(&t);
}

/* Past ANA_CMDS_MAX command names, a new one's processes and calls count
 * under "(other commands)"; the first ones keep their rows. */
static void test_fold_commands(void **state)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	struct iot_writer *w = tmp_writer(path);
	struct ana_trace t = { 0 };
	int i, n = 1000;

	pr(w, IOT_PROC_START, 10, 1, "sh", 0);
	pr(w, IOT_PROC_FORK, 11, 10, NULL, 0);		/* the one phase */
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/bin/c%d", i % 2 ? i : 0);
		pr(w, IOT_PROC_FORK, 1000 + i, 11, NULL, 0);
		pr(w, IOT_PROC_EXEC, 1000 + i, 11, name, 0);
		ev(w, 1000 + i, __NR_openat, 3, 1000);
		pr(w, IOT_PROC_EXIT, 1000 + i, 11, NULL, 10);
	}
	pr(w, IOT_PROC_EXIT, 11, 10, NULL, 10);
	pr(w, IOT_PROC_EXIT, 10, 1, NULL, 10);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(ana_load(&t, path), 0);
	unlink(path);
	/* sh, c0, and 254 odd ones */
	assert_int_equal(t.n_procs, ANA_CMDS_MAX + 1);
	assert_int_equal(cmd_row(&t, "c0")->pids, n / 2);
	assert_non_null(cmd_row(&t, "c507"));
	assert_null(cmd_row(&t, "c509"));
	assert_int_equal(cmd_row(&t, "(other commands)")->pids, n / 2 - (ANA_CMDS_MAX - 2));
	assert_int_equal(cmd_row(&t, "(other commands)")->st.count, n / 2 - (ANA_CMDS_MAX - 2));
	assert_int_equal(t.phases[0].st.count, n);
	ana_trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_accuracy),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_many_processes),
		cmocka_unit_test(test_leader_exits_first),
		cmocka_unit_test(test_server_phase),
		cmocka_unit_test(test_fold_phases),
		cmocka_unit_test(test_fold_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
