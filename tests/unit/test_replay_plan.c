/*
 * test_replay_plan.c - the replayer's plan (threads, processes, fork,
 * wait, pipe and resource edges) on a trace written here with the writer,
 * then a replay of it into a temporary root, and its profile.  Which
 * orders between processes the plan keeps (deps.c): an op that
 * changes a path follows every op on it before; ops that only look (a
 * stat, a failed mkdir of a directory that is there, a mapping of a
 * library) follow the last change, not each other; names made or removed
 * in one directory need no order among themselves, but a listing or a
 * removal of the directory follows them; a pipe's reads follow the
 * writes that fed them, and its writes no read.  The replay waits for an
 * op's dependencies after its think time.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

static char tmp[256], trace[300];

#define US 1000LL
#define T0 1000000000LL

struct evspec {
	int64_t t0, t1;
	int pid, tid, nr;
	int64_t ret;
	int nargs;
	int64_t a[6];
	const char *path, *path2;
};

/* The workload: a process writes a file, makes a pipe, forks a child
 * that appends to the inherited descriptor and feeds the pipe, starts a
 * thread that creates a file, reads the pipe, reaps the child. */
static const struct evspec evs[] = {
	{ 1000, 1010, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/f", NULL },
	{ 1020, 1030, 100, 100, SYS_pipe2, 0, 2, { 4 | (5LL << 32), O_CLOEXEC }, NULL, NULL },
	{ 1040, 1050, 100, 100, SYS_write, 100, 3, { 3, 0, 100 }, "/w/f", NULL },
	{ 1060, 1070, 100, 100, SYS_clone, 101, 5, { 17 }, NULL, NULL },
	{ 1072, 1075, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
	{ 1080, 1300, 100, 100, SYS_read, 10, 3, { 4, 0, 4096 }, NULL, NULL },
	{ 1310, 1500, 100, 100, SYS_wait4, 101, 4, { 101, 0, 0, 0 }, NULL, NULL },
	{ 1510, 1520, 100, 100, SYS_close, 0, 1, { 3 }, "/w/f", NULL },
	{ 1525, 1527, 100, 100, SYS_close, 0, 1, { 6 }, NULL, NULL },
	{ 1528, 1529, 100, 100, SYS_newfstatat, 0, 4, { AT_FDCWD, 0, 0, 0 }, "/w/g", NULL },
	{ 1530, 1530, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
	{ 1100, 1110, 101, 101, SYS_write, 50, 3, { 3, 0, 50 }, "/w/f", NULL },
	{ 1200, 1210, 101, 101, SYS_write, 10, 3, { 5, 0, 10 }, NULL, NULL },
	{ 1220, 1230, 101, 101, SYS_openat, -ENOENT, 4, { AT_FDCWD, 0, O_RDONLY, 0 }, "/w/missing", NULL },
	{ 1240, 1250, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDONLY, 0 }, "/dev/null", NULL },
	{ 1260, 1270, 101, 101, SYS_read, 0, 3, { 3, 0, 10 }, NULL, NULL },
	{ 1400, 1400, 101, 101, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
	{ 1090, 1095, 100, 102, SYS_openat, 6, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0600 }, "/w/g", NULL },
	{ 1096, 1096, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
};
#define N_EVS (sizeof(evs) / sizeof(evs[0]))

/* @n events of @e, with the header, the starting tree and the process
 * records of evs[] (101 forked, 102 a thread of 100). */
static void write_events(const struct evspec *e, size_t n)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = T0 };
	struct iot_path_state ps = { .path = "/w", .path_len = 2, .type = S_IFDIR,
				     .mode = 0755, .nlink = 2 };
	struct iot_process pr = { .kind = IOT_PROC_FORK, .t_ns = T0 + 1065 * US, .pid = 101,
				  .tid = 101, .ppid = 100, .ptid = 100, .clone_flags = 17 };
	struct iot_writer *w;
	size_t i;

	assert_int_equal(iot_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(iot_writer_path_state(w, &ps), 0);
	assert_int_equal(iot_writer_process(w, &pr), 0);
	pr.kind = IOT_PROC_THREAD;
	pr.pid = 100;
	pr.tid = 102;
	pr.clone_flags = 0x3d0f00;
	assert_int_equal(iot_writer_process(w, &pr), 0);
	/* Written in exit order, as a recorder would. */
	for (i = 0; i < n; i++) {
		const struct evspec *s = &e[i];
		struct iot_event ev = {
			.t_enter = T0 + s->t0 * US, .t_exit = T0 + s->t1 * US,
			.pid = s->pid, .tid = s->tid, .nr = s->nr, .ret = s->ret,
			.nargs = (uint32_t)s->nargs, .path = s->path,
			.path_len = s->path ? (uint32_t)strlen(s->path) : 0,
			.path2 = s->path2, .path2_len = s->path2 ? (uint32_t)strlen(s->path2) : 0,
		};

		memcpy(ev.args, s->a, sizeof(ev.args));
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
}

static void write_trace(void)
{
	write_events(evs, N_EVS);
}

static int setup(void **state)
{
	return tb_mkdtemp(tmp, sizeof(tmp), trace, sizeof(trace), "iotape-rplp");
}

static int teardown(void **state)
{
	return tb_rmtree(tmp);
}

/* The op of the plan recorded at @t0 by @tid. */
static uint32_t op_at(const struct rpl_plan *p, int tid, int64_t t0)
{
	size_t i;

	for (i = 0; i < p->n_ops; i++)
		if (p->ops[i].ev.tid == tid && p->ops[i].ev.t_enter == T0 + t0 * US)
			return (uint32_t)i;
	fail_msg("no op of %d at %lld", tid, (long long)t0);
	return 0;
}

static int depends(const struct rpl_plan *p, uint32_t op, uint32_t on)
{
	uint16_t i;

	for (i = 0; i < p->ops[op].ndeps; i++)
		if (rpl_dep_op(p, &p->deps[p->ops[op].dep_off + i]) == on)
			return 1;
	return 0;
}

static void plan_edges(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	const struct rpl_thread *parent, *child, *thr;
	uint32_t clone_op, thr_op;

	write_trace();
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_ops, N_EVS);
	assert_int_equal(p.n_threads, 3);
	assert_int_equal(p.n_procs, 2);
	assert_int_equal(p.n_ps, 1);
	/* a thread's ops in ascending order (deps.c finds an op's place so),
	 * and every dependency names an op of its thread */
	for (size_t t = 0; t < p.n_threads; t++)
		for (uint32_t k = 1; k < p.threads[t].n_ops; k++)
			assert_true(p.threads[t].ops[k - 1] < p.threads[t].ops[k]);
	for (size_t d = 0; d < p.n_deps; d++) {
		assert_true(p.deps[d].pos < p.threads[p.deps[d].thread].n_ops);
		assert_int_equal(p.ops[rpl_dep_op(&p, &p.deps[d])].thread, p.deps[d].thread);
	}
	/* entry order within threads */
	for (size_t t = 0; t < p.n_threads; t++)
		for (uint32_t k = 1; k < p.threads[t].n_ops; k++)
			assert_true(p.ops[p.threads[t].ops[k - 1]].ev.t_enter <
				    p.ops[p.threads[t].ops[k]].ev.t_enter);
	parent = &p.threads[p.ops[op_at(&p, 100, 1000)].thread];
	child = &p.threads[p.ops[op_at(&p, 101, 1100)].thread];
	thr = &p.threads[p.ops[op_at(&p, 102, 1090)].thread];
	/* fork -> the child's first op; a new process, its own table */
	clone_op = op_at(&p, 100, 1060);
	assert_int_equal(child->spawn_op, (int32_t)clone_op);
	assert_int_equal(rpl_op_child(&p.ops[clone_op]), (int32_t)(child - p.threads));
	assert_int_not_equal(child->proc, parent->proc);
	assert_int_equal(p.procs[child->proc].parent, (int32_t)parent->proc);
	assert_int_equal(p.procs[child->proc].share_files, 0);
	/* CLONE_THREAD: same process */
	thr_op = op_at(&p, 100, 1072);
	assert_int_equal(thr->spawn_op, (int32_t)thr_op);
	assert_int_equal(thr->proc, parent->proc);
	/* child exit -> the parent's wait4 */
	assert_int_equal(rpl_op_wait_proc(&p.ops[op_at(&p, 100, 1310)]), (int32_t)child->proc);
	/* same open file through fork: the child's append follows the fork,
	 * not the parent's write (writes of data commute, deps.c); the
	 * parent's close of it follows the child's write */
	assert_false(depends(&p, op_at(&p, 101, 1100), op_at(&p, 100, 1040)));
	assert_true(depends(&p, op_at(&p, 100, 1510), op_at(&p, 101, 1100)));
	/* pipe write -> read, though the read entered first */
	assert_true(depends(&p, op_at(&p, 100, 1080), op_at(&p, 101, 1200)));
	/* a descriptor a thread opened, closed by the main thread */
	assert_true(depends(&p, op_at(&p, 100, 1525), op_at(&p, 102, 1090)));
	/* same path: the stat follows the thread's create */
	assert_true(depends(&p, op_at(&p, 100, 1528), op_at(&p, 102, 1090)));
	/* no edges inside a thread, none backwards */
	for (size_t i = 0; i < p.n_ops; i++)
		for (uint16_t d = 0; d < p.ops[i].ndeps; d++) {
			const struct rpl_op *dep = &p.ops[rpl_dep_op(&p, &p.deps[p.ops[i].dep_off + d])];

			assert_int_not_equal(dep->thread, p.ops[i].thread);
			assert_true(dep->ev.t_exit <= p.ops[i].ev.t_exit);
		}
	/* think time: gap since the thread's previous op ended */
	assert_int_equal(p.ops[op_at(&p, 100, 1040)].think_ns, 10 * US);
	assert_int_equal(p.ops[op_at(&p, 101, 1100)].think_ns, 30 * US);
	rpl_plan_free(&p);
}

/* A pipe's reader may return before the write that fed it does: every
 * call that can put data into a pipe orders from its entry, pwritev2
 * (offset -1: the pipe's position) as write does. */
static void plan_pipe_writers(void **state)
{
	static const int nrs[] = { SYS_write, SYS_writev, SYS_pwritev2 };
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	size_t k;

	for (k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++) {
		const struct evspec ev[] = {
			{ 1000, 1010, 100, 100, SYS_pipe2, 0, 2, { 4 | (5LL << 32), 0 }, NULL, NULL },
			{ 1072, 1075, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
			{ 1100, 1120, 100, 100, SYS_read, 10, 3, { 4, 0, 4096 }, NULL, NULL },
			{ 1110, 1125, 100, 102, nrs[k], 10, nrs[k] == SYS_write ? 3 : 6,
			  { 5, nrs[k] == SYS_write ? 0 : 10, nrs[k] == SYS_write ? 10 : 1, -1, -1, 0 },
			  NULL, NULL },
			{ 1130, 1130, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
			{ 1140, 1140, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
		};

		write_events(ev, sizeof(ev) / sizeof(ev[0]));
		assert_int_equal(rpl_plan_build(&p, &o), 0);
		if (!depends(&p, op_at(&p, 100, 1100), op_at(&p, 102, 1110)))
			fail_msg("the read of the pipe does not wait for nr %d feeding it", nrs[k]);
		rpl_plan_free(&p);
	}
}

static void replay_end_to_end(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1,
			      .timing = RPL_TIMING_ORIGINAL, .verify = 1 };
	static struct rpl_result res;
	struct iot_reader *rd;
	struct iot_item it;
	char root[400], out[400], f[500];
	struct stat st;
	size_t events = 0, skipped = 0;
	int r;

	write_trace();
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(out, sizeof(out), "%s/p.iotape", tmp);
	mkdir(root, 0755);
	o.root = root;
	o.out = out;
	o.label = "unit";
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.ops, N_EVS);
	/* /dev/null open, and the read of it, are skipped; all else replayed */
	assert_int_equal(res.skipped, 2);
	assert_int_equal(res.skipped_by[RPL_SKIP_PSEUDO], 1);
	assert_int_equal(res.skipped_by[RPL_SKIP_FD], 1);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.ordering_violations, 0);
	assert_int_equal(res.deadlock_breaks, 0);
	assert_true(res.elapsed_ns >= 500 * US);	/* original think times kept */
	/* parent 100 bytes, then the child's 50 through the shared offset */
	snprintf(f, sizeof(f), "%s/w/f", root);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_size, 150);
	snprintf(f, sizeof(f), "%s/w/g", root);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(iot_reader_open(&rd, out), 0);
	assert_int_equal(iot_reader_header(rd)->kind, IOT_KIND_PROFILE);
	assert_string_equal(iot_header_get(iot_reader_header(rd), "replay.source"), trace);
	assert_string_equal(iot_reader_header(rd)->target_label, "unit");
	while ((r = iot_reader_next(rd, &it)) > 0) {
		if (it.kind != IOT_ITEM_EVENT)
			continue;
		events++;
		skipped += (it.u.ev.flags & IOT_EV_REPLAY_SKIPPED) != 0;
		assert_true(it.u.ev.t_exit >= it.u.ev.t_enter);
		assert_false(it.u.ev.flags & IOT_EV_REPLAY_MISMATCH);
	}
	assert_int_equal(r, 0);
	assert_int_equal(events, N_EVS);
	assert_int_equal(skipped, 2);
	iot_reader_close(rd);

	/* A non-empty root is refused without --force. */
	assert_int_equal(rpl_run(&o, &res), -ENOTEMPTY);
	o.force = 1;
	o.timing = RPL_TIMING_AFAP;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
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
	/* then 20 makes a name in /w: 10's looks at /w (its other names)
	 * did not see it, it follows none of them */
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
	assert_int_equal(p.ops[nth(&p, 20, SYS_mkdir, ROUNDS)].ndeps, 0);
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
			reach = depends(&p, rpl_dep_op(&p, &p.deps[p.ops[rm].dep_off + i]), op);
		seen += reach;
	}
	assert_int_equal(seen, LOOKERS);
	assert_true(depends(&p, nth(&p, 101, SYS_newfstatat, 0), rm));
	rpl_plan_free(&p);
}

#define MODE_OBJ (O_WRONLY | O_CREAT | O_TRUNC)

/*
 * Two compile jobs of a make -j2 write their objects into one directory
 * and load one library: the names each makes there, and its looks at the
 * library (an open, a mapping), need no order with the other's; a
 * listing of the directory comes after them all, and a removal of it
 * after every name removed.
 */
static void names_apart(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;
	int k;

	st(&w, "/w", S_IFDIR, 0, NULL, 1, 2);
	st(&w, "/lib", S_IFDIR, 0, NULL, 2, 2);
	st(&w, "/lib/libc.so", S_IFREG, 8192, NULL, 3, 1);
	for (k = 0; k < 2; k++) {
		int tid = 10 + 10 * k;

		ev(&w, tid, SYS_openat, 3, "/lib/libc.so", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
		ev(&w, tid, SYS_mmap, 0x10000, "/lib/libc.so", NULL, 6, A(0), A(8192), A(1), A(2),
		   A(3), A(0));
		ev(&w, tid, SYS_close, 0, NULL, NULL, 1, A(3));
	}
	ev(&w, 10, SYS_openat, 3, "/w/a.o", NULL, 4, A(AT_FDCWD), A(0), A(MODE_OBJ), A(0644));
	ev(&w, 20, SYS_openat, 3, "/w/b.o", NULL, 4, A(AT_FDCWD), A(0), A(MODE_OBJ), A(0644));
	ev(&w, 10, SYS_mkdir, -EEXIST, "/w", NULL, 2, A(0), A(0777));
	ev(&w, 10, SYS_openat, 4, "/w/a.d", NULL, 4, A(AT_FDCWD), A(0), A(MODE_OBJ), A(0644));
	ev(&w, 20, SYS_openat, 4, "/w/b.d", NULL, 4, A(AT_FDCWD), A(0), A(MODE_OBJ), A(0644));
	ev(&w, 30, SYS_openat, 3, "/w", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY | O_DIRECTORY),
	   A(0));
	ev(&w, 10, SYS_unlink, 0, "/w/a.o", NULL, 1, A(0));
	ev(&w, 20, SYS_unlink, 0, "/w/b.o", NULL, 1, A(0));
	ev(&w, 40, SYS_rmdir, -ENOTEMPTY, "/w", NULL, 1, A(0));
	close_trace(&w);

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	for (k = 0; k < 2; k++) {
		int tid = 10 + 10 * k;

		assert_int_equal(p.ops[nth(&p, tid, SYS_openat, 0)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, tid, SYS_mmap, 0)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, tid, SYS_openat, 1)].ndeps, 0);
		assert_int_equal(p.ops[nth(&p, tid, SYS_openat, 2)].ndeps, 0);
	}
	/* a lookup of the directory (mkdir -p) follows no name made in it */
	assert_int_equal(p.ops[nth(&p, 10, SYS_mkdir, 0)].ndeps, 0);
	/* the listing follows the last name each job made */
	assert_true(depends(&p, nth(&p, 30, SYS_openat, 0), nth(&p, 10, SYS_openat, 2)));
	assert_true(depends(&p, nth(&p, 30, SYS_openat, 0), nth(&p, 20, SYS_openat, 2)));
	/* the names removed after it follow it, and the rmdir that found
	 * the directory not empty follows them */
	assert_true(depends(&p, nth(&p, 10, SYS_unlink, 0), nth(&p, 30, SYS_openat, 0)));
	assert_true(depends(&p, nth(&p, 40, SYS_rmdir, 0), nth(&p, 10, SYS_unlink, 0)));
	assert_true(depends(&p, nth(&p, 40, SYS_rmdir, 0), nth(&p, 20, SYS_unlink, 0)));
	rpl_plan_free(&p);
}

/*
 * Two processes (xargs -P2's) write lines, in turn, into one file through
 * the descriptor they inherited; a third reads the file, then fsyncs it.
 * Without the bytes in the trace the writes keep no order between the
 * two; the read follows the last write of each, the fsync the read.
 * With them (record --data), each write follows the other's before it.
 */
static void writes_apart(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	const struct iot_kv data = { .key = "record.data", .value = "1" };
	int with;

	for (with = 0; with < 2; with++) {
		struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test",
					.start_ns = 1000000000LL };
		struct w w = { .t = 1000000000LL + 1000 * US };
		struct rpl_plan p;
		int k;

		if (with) {
			h.n_extra = 1;
			h.extra = &data;
		}
		assert_int_equal(iot_writer_open(&w.w, trace, &h, NULL), 0);
		st(&w, "/w", S_IFDIR, 0, NULL, 1, 2);
		st(&w, "/w/sums", S_IFREG, 0, NULL, 2, 1);
		for (k = 0; k < ROUNDS; k++) {
			ev(&w, 10, SYS_write, 70, "/w/sums", NULL, 3, A(1), A(0), A(70));
			ev(&w, 20, SYS_write, 70, "/w/sums", NULL, 3, A(1), A(0), A(70));
		}
		ev(&w, 30, SYS_openat, 3, "/w/sums", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
		ev(&w, 30, SYS_read, 560, "/w/sums", NULL, 3, A(3), A(0), A(4096));
		ev(&w, 30, SYS_fsync, 0, "/w/sums", NULL, 1, A(3));
		close_trace(&w);

		assert_int_equal(rpl_plan_build(&p, &o), 0);
		for (k = 1; k < ROUNDS; k++) {
			assert_int_equal(depends(&p, nth(&p, 10, SYS_write, k), nth(&p, 20, SYS_write, k - 1)),
					 with);
			assert_int_equal(depends(&p, nth(&p, 20, SYS_write, k), nth(&p, 10, SYS_write, k)),
					 with);
		}
		/* the open follows the last write of each by the path */
		assert_true(depends(&p, nth(&p, 30, SYS_openat, 0), nth(&p, 20, SYS_write, ROUNDS - 1)));
		if (!with)
			assert_true(depends(&p, nth(&p, 30, SYS_openat, 0),
					    nth(&p, 10, SYS_write, ROUNDS - 1)));
		rpl_plan_free(&p);
	}
}

/* Thread 100 computes 400 ms, then creates a file; thread 300 computes
 * 401 ms, then opens it. */
static const struct evspec tevs[] = {
	{ 1000, 1005, 100, 100, SYS_newfstatat, 0, 4, { AT_FDCWD, 0, 0, 0 }, "/w", NULL },
	{ 1000, 1005, 300, 300, SYS_newfstatat, 0, 4, { AT_FDCWD, 0, 0, 0 }, "/w", NULL },
	{ 401000, 401010, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, MODE_OBJ, 0644 }, "/w/f", NULL },
	{ 401020, 401025, 100, 100, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 401030, 401030, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
	{ 402000, 402010, 300, 300, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDONLY, 0 }, "/w/f", NULL },
	{ 402020, 402025, 300, 300, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 402030, 402030, 300, 300, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};
#define N_TEVS (sizeof(tevs) / sizeof(tevs[0]))

/* Thread 300 polls until 100's create (an event the replay leaves to the
 * ordering), then computes 200 ms, then opens the file. */
static const struct evspec wevs[] = {
	{ 1000, 1005, 100, 100, SYS_newfstatat, 0, 4, { AT_FDCWD, 0, 0, 0 }, "/w", NULL },
	{ 1000, 401020, 300, 300, SYS_poll, 1, 3, { 0, 1, -1 }, NULL, NULL },
	{ 401000, 401010, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, MODE_OBJ, 0644 }, "/w/f", NULL },
	{ 401020, 401025, 100, 100, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 401030, 401030, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
	{ 601020, 601030, 300, 300, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDONLY, 0 }, "/w/f", NULL },
	{ 601040, 601045, 300, 300, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 601050, 601050, 300, 300, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};
#define N_WEVS (sizeof(wevs) / sizeof(wevs[0]))

/* The replay of @e (@n events, think time slept): when 100's create
 * ended and 300's open started, replay times. */
static void create_then_open(const struct evspec *e, size_t n, const char *name,
			     int64_t *created, int64_t *opened)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1,
			      .think = RPL_THINK_SLEEP };
	static struct rpl_result res;
	struct iot_reader *rd;
	struct iot_item it;
	char root[400], out[400];
	int r;

	write_events(e, n);
	snprintf(root, sizeof(root), "%s/root-%s", tmp, name);
	snprintf(out, sizeof(out), "%s/%s.iotape", tmp, name);
	mkdir(root, 0755);
	o.root = root;
	o.out = out;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.ordering_violations, 0);
	assert_int_equal(iot_reader_open(&rd, out), 0);
	*created = *opened = -1;
	while ((r = iot_reader_next(rd, &it)) > 0) {
		if (it.kind != IOT_ITEM_EVENT || it.u.ev.nr != SYS_openat)
			continue;
		if (it.u.ev.tid == 100)
			*created = it.u.ev.t_exit;
		else
			*opened = it.u.ev.t_enter;
	}
	assert_int_equal(r, 0);
	iot_reader_close(rd);
	assert_true(*created > 0 && *opened >= *created);
}

/*
 * The two compute side by side, as recorded: the open waits for the
 * create after its own think time, not before it (which put 300's 401 ms
 * after 100's create, in series: the open 401 ms after the create, not
 * 1 ms).  The margin, 200 ms, is what a loaded machine may add between
 * the create's end and the open's start.
 */
static void think_then_wait(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	int64_t created, opened;
	struct rpl_plan p;

	write_events(tevs, N_TEVS);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_true(depends(&p, op_at(&p, 300, 402000), op_at(&p, 100, 401000)));
	rpl_plan_free(&p);
	create_then_open(tevs, N_TEVS, "think", &created, &opened);
	assert_true(opened - created < 200000 * US);
	/* After a poll that returned for the create, the 200 ms come after
	 * the create, as the program computed them. */
	create_then_open(wevs, N_WEVS, "woken", &created, &opened);
	assert_true(opened - created >= 200000 * US);
}

#define NB 8192

/* A thread writes a non-blocking pipe, the main thread reads it.  The
 * first read's return was recorded late (the tracer's latency), after the
 * write that its reading made room for had entered. */
static const struct evspec pevs[] = {
	{ 1000, 1010, 100, 100, SYS_pipe2, 0, 2, { 3 | (4LL << 32), O_NONBLOCK }, NULL, NULL },
	{ 1020, 1030, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
	{ 1100, 1101, 100, 102, SYS_write, NB, 3, { 4, 0, NB }, NULL, NULL },		/* W1 */
	{ 1105, 1200, 100, 100, SYS_read, NB, 3, { 3, 0, NB }, NULL, NULL },		/* R1 */
	{ 1110, 1111, 100, 102, SYS_write, NB, 3, { 4, 0, NB }, NULL, NULL },		/* W2 */
	{ 1120, 1121, 100, 102, SYS_write, -EAGAIN, 3, { 4, 0, NB }, NULL, NULL },	/* full */
	{ 1150, 1151, 100, 102, SYS_write, NB, 3, { 4, 0, NB }, NULL, NULL },		/* W4 */
	{ 1210, 1211, 100, 100, SYS_read, NB, 3, { 3, 0, NB }, NULL, NULL },		/* R2 */
	{ 1220, 1221, 100, 100, SYS_read, NB, 3, { 3, 0, NB }, NULL, NULL },		/* R3 */
	{ 1300, 1301, 100, 102, SYS_close, 0, 1, { 4 }, NULL, NULL },
	{ 1310, 1310, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
	{ 1320, 1321, 100, 100, SYS_read, 0, 3, { 3, 0, NB }, NULL, NULL },		/* end of file */
	{ 1400, 1400, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};
#define N_PEVS (sizeof(pevs) / sizeof(pevs[0]))

static uint32_t pev_op(const struct rpl_plan *p, size_t k)
{
	return op_at(p, pevs[k].tid, pevs[k].t0);
}

/* Replay the last trace into root @name: all as recorded, no wait given up */
static void replay_clean(struct rpl_opts *o, const char *name, enum rpl_timing timing)
{
	static struct rpl_result res;
	char root[400];

	snprintf(root, sizeof(root), "%s/%s", tmp, name);
	mkdir(root, 0755);
	o->root = root;
	o->timing = timing;
	assert_int_equal(rpl_run(o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.ordering_violations, 0);
	assert_int_equal(res.deadlock_breaks, 0);
	assert_int_equal(res.pipe_gaveup, 0);
}

#define STAT4(t0, t1, tid, ret, path) \
	{ t0, t1, 100, tid, SYS_newfstatat, ret, 4, { AT_FDCWD, 0, 0, 0 }, path, NULL }
#define EXIT_AT(t, pid) { t, t, pid, pid, SYS_exit_group, 0, 1, { 0 }, NULL, NULL }

/*
 * Two processes' calls on one path that overlapped, ordered by what the
 * look-up found, not by their ends, in each of the four ways the ends
 * had it wrong.  100 creates /w/j while 101's stat of it, which entered
 * later and returned first, found it: the stat follows the create
 * (ordered by ends, it came first and replayed ENOENT).  100 creates /w/m
 * while 101's stat, which returned after it, missed it: the create
 * follows the stat.  100 removes /w/k, and 101's stat, returned after,
 * found it: the removal follows the stat.  100 removes /w/n, and 101's
 * stat, returned first, missed it: the stat follows the removal.
 * Replayed: no mismatch.
 */
static const struct evspec ovevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/k", NULL },
	{ 1002, 1003, 100, 100, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 1004, 1005, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/n", NULL },
	{ 1006, 1007, 100, 100, SYS_close, 0, 1, { 3 }, NULL, NULL },
	STAT4(1110, 1150, 101, 0, "/w/j"),
	{ 1100, 1200, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/j", NULL },
	{ 1210, 1240, 100, 100, SYS_openat, 4, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/m", NULL },
	STAT4(1220, 1280, 101, -ENOENT, "/w/m"),
	{ 1300, 1340, 100, 100, SYS_unlink, 0, 1, { 0 }, "/w/k", NULL },
	STAT4(1310, 1380, 101, 0, "/w/k"),
	STAT4(1410, 1420, 101, -ENOENT, "/w/n"),
	{ 1400, 1450, 100, 100, SYS_unlink, 0, 1, { 0 }, "/w/n", NULL },
	EXIT_AT(1500, 101),
	EXIT_AT(1510, 100),
};

static void overlap_seen(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t mk_j, mk_m, rm_k, rm_n, st_j, st_m, st_k, st_n;
	struct rpl_plan p;

	write_events(ovevs, sizeof(ovevs) / sizeof(ovevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	mk_j = nth(&p, 100, SYS_openat, 2);
	mk_m = nth(&p, 100, SYS_openat, 3);
	rm_k = nth(&p, 100, SYS_unlink, 0);
	rm_n = nth(&p, 100, SYS_unlink, 1);
	st_j = op_at(&p, 101, 1110);
	st_m = op_at(&p, 101, 1220);
	st_k = op_at(&p, 101, 1310);
	st_n = op_at(&p, 101, 1410);
	assert_string_equal(p.ops[mk_j].ev.path, "/w/j");
	assert_true(depends(&p, st_j, mk_j));
	assert_false(depends(&p, mk_j, st_j));
	assert_true(depends(&p, mk_m, st_m));
	assert_false(depends(&p, st_m, mk_m));
	assert_true(depends(&p, rm_k, st_k));
	assert_true(depends(&p, st_n, rm_n));
	assert_false(depends(&p, rm_n, st_n));
	assert_int_equal(p.order_pulled, 4);
	rpl_plan_free(&p);
	replay_clean(&o, "root-overlap", RPL_TIMING_AFAP);
}

#define SFILE(t0, t1, tid, nr, ret, nargs, ...) \
	{ t0, t1, tid, tid, nr, ret, nargs, { __VA_ARGS__ }, "/w/s", NULL }

/*
 * A status file that 100 made, then rewrites with open(O_CREAT|O_TRUNC)
 * while 101 reads it through opens of its own (git-annex's transfer
 * info).  The rewrite's open returned late; 101's open, read of the
 * line and close before it returned first and found the file, which the
 * open did not make (it made it before): they do not follow the open,
 * which follows them (through 101's next open, which found the file
 * too).  101's next read met the end of the file at 0, short of the
 * line: it follows the open that emptied it.
 */
static const struct evspec trevs[] = {
	SFILE(1000, 1001, 100, SYS_openat, 3, 4, AT_FDCWD, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644),
	SFILE(1002, 1003, 100, SYS_write, 39, 3, 3, 0, 39),
	SFILE(1004, 1005, 100, SYS_close, 0, 1, 3),
	SFILE(1100, 1200, 100, SYS_openat, 3, 4, AT_FDCWD, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644),
	SFILE(1110, 1111, 101, SYS_openat, 3, 4, AT_FDCWD, 0, O_RDONLY, 0),
	SFILE(1112, 1113, 101, SYS_read, 39, 3, 3, 0, 8192),
	SFILE(1114, 1115, 101, SYS_close, 0, 1, 3),
	SFILE(1150, 1151, 101, SYS_openat, 3, 4, AT_FDCWD, 0, O_RDONLY, 0),
	SFILE(1152, 1153, 101, SYS_read, 0, 3, 3, 0, 8192),
	SFILE(1154, 1155, 101, SYS_close, 0, 1, 3),
	SFILE(1210, 1211, 100, SYS_write, 39, 3, 3, 0, 39),
	SFILE(1212, 1213, 100, SYS_close, 0, 1, 3),
	EXIT_AT(1500, 101),
	EXIT_AT(1510, 100),
};

static void overlap_truncated(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t trunc, open1, read1, close1, open2, read2;
	struct rpl_plan p;

	write_events(trevs, sizeof(trevs) / sizeof(trevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	trunc = op_at(&p, 100, 1100);
	open1 = op_at(&p, 101, 1110);
	read1 = op_at(&p, 101, 1112);
	close1 = op_at(&p, 101, 1114);
	open2 = op_at(&p, 101, 1150);
	read2 = op_at(&p, 101, 1152);
	assert_false(depends(&p, open1, trunc));
	assert_false(depends(&p, read1, trunc));
	assert_false(depends(&p, close1, trunc));
	assert_false(depends(&p, open2, trunc));
	assert_true(depends(&p, trunc, open2));
	assert_true(depends(&p, read2, trunc));
	assert_int_equal(p.order_pulled, 1);
	rpl_plan_free(&p);
	replay_clean(&o, "root-truncated", RPL_TIMING_AFAP);
}

/*
 * A number an eventfd2 took after another thread's socket took it and
 * closed it, though the eventfd2 entered first (zmq's threads, ptrace: it
 * returned 174 us later).  In entry order the socket displaced the
 * eventfd and its close left 5 free: the eventfd's write by 102 and read
 * by 100 went through no descriptor of the plan, the read, returned before
 * the write's recorded end, was replayed first and waited 2 s for a
 * count (EAGAIN).  Now the eventfd is 5 again after the close: the read
 * follows the write (an eventfd's write counts from its entry).
 */
static const struct evspec efevs[] = {
	{ 1000, 1010, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
	{ 1100, 1300, 100, 100, SYS_eventfd2, 5, 2, { 0, O_CLOEXEC }, NULL, NULL },
	{ 1150, 1160, 100, 102, SYS_socket, 5, 3, { AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 6 },
	  NULL, NULL },
	{ 1200, 1210, 100, 102, SYS_close, 0, 1, { 5 }, NULL, NULL },
	{ 2000, 2100, 100, 102, SYS_write, 8, 3, { 5, 0, 8 }, NULL, NULL },
	{ 2050, 2060, 100, 100, SYS_read, 8, 3, { 5, 0, 8 }, NULL, NULL },
	{ 2200, 2200, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
	EXIT_AT(2300, 100),
};

static void number_taken_back(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;

	(void)state;
	write_events(efevs, sizeof(efevs) / sizeof(efevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_true(depends(&p, op_at(&p, 100, 2050), op_at(&p, 102, 2000)));
	rpl_plan_free(&p);
	replay_clean(&o, "root-taken-back", RPL_TIMING_AFAP);
}

/*
 * A directory that 100 made, in which it renames a file it made there
 * (/w/d/a.tmp to /w/d/a, as a writer that replaces a file does) while 101
 * lists it.  The rename returned late; 101's listing, returned first,
 * showed the new name (24 bytes of dirent64 where the old one took 32):
 * it follows the rename.
 */
static const struct evspec rnevs[] = {
	{ 1000, 1001, 100, 100, SYS_mkdir, 0, 2, { 0, 0755 }, "/w/d", NULL },
	{ 1002, 1003, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT | O_EXCL, 0644 },
	  "/w/d/a.tmp", NULL },
	{ 1004, 1005, 100, 100, SYS_close, 0, 1, { 3 }, "/w/d/a.tmp", NULL },
	{ 1100, 1200, 100, 100, SYS_rename, 0, 2, { 0, 0 }, "/w/d/a.tmp", "/w/d/a" },
	{ 1110, 1111, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0 }, "/w/d", NULL },
	{ 1112, 1113, 101, 101, SYS_getdents64, 72, 3, { 3, 0, 32768 }, "/w/d", NULL },
	{ 1114, 1115, 101, 101, SYS_getdents64, 0, 3, { 3, 0, 32768 }, "/w/d", NULL },
	{ 1116, 1117, 101, 101, SYS_close, 0, 1, { 3 }, "/w/d", NULL },
	EXIT_AT(1500, 101),
	EXIT_AT(1510, 100),
};

static void overlap_renamed(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t mv, list;
	struct rpl_plan p;

	write_events(rnevs, sizeof(rnevs) / sizeof(rnevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	mv = op_at(&p, 100, 1100);
	list = op_at(&p, 101, 1112);
	assert_true(depends(&p, list, mv));
	assert_false(depends(&p, mv, list));
	assert_int_equal(p.order_pulled, 1);
	rpl_plan_free(&p);
	replay_clean(&o, "root-renamed", RPL_TIMING_AFAP);
}

/* A record lock of /w/db: fcntl(3, F_SETLK, {type, SEEK_SET, start, len}) */
#define LOCK(t0, t1, pid, ret, type, start, len) \
	{ t0, t1, pid, pid, SYS_fcntl, ret, 6, { 3, F_SETLK, 0, type, start, len }, "/w/db", NULL }

/*
 * Two processes' record locks of one file that overlapped, ordered by
 * their answers, not by their ends (sqlite3's two writers: an unlock
 * whose return the recorder saw 0.8-1.1 ms late).  100's unlock returned
 * after 101's lock of the bytes it freed, which was granted: the lock
 * follows the unlock.  101's lock returned after 100's lock of the same
 * bytes was refused: the refusal follows the lock.  A lock of other
 * bytes, and another process's unlock of bytes it does not ask for, are
 * not pulled.  Replayed: no mismatch.
 */
static const struct evspec lkevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/db", NULL },
	{ 1010, 1011, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	LOCK(1100, 1101, 100, 0, F_WRLCK, 0, 10),
	LOCK(1200, 1400, 100, 0, F_UNLCK, 0, 0),		/* returned late */
	LOCK(1250, 1251, 101, 0, F_WRLCK, 0, 10),		/* granted: after it */
	LOCK(1260, 1261, 101, 0, F_WRLCK, 20, 10),		/* other bytes: free */
	LOCK(1600, 1601, 101, 0, F_UNLCK, 0, 0),
	LOCK(1700, 1900, 101, 0, F_WRLCK, 0, 10),		/* returned late */
	LOCK(1750, 1751, 100, -EAGAIN, F_RDLCK, 0, 1),		/* refused: after it */
	LOCK(1760, 1761, 100, 0, F_RDLCK, 50, 1),		/* other bytes */
	/* (an exit's release of a process's locks is not ordered so) */
	LOCK(1950, 1951, 101, 0, F_UNLCK, 0, 0),
	EXIT_AT(2000, 101),
	EXIT_AT(2010, 100),
};

static void overlap_locks(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t un, wr, wr2, take, refused;
	struct rpl_plan p;

	write_events(lkevs, sizeof(lkevs) / sizeof(lkevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	un = op_at(&p, 100, 1200);
	wr = op_at(&p, 101, 1250);
	wr2 = op_at(&p, 101, 1260);
	take = op_at(&p, 101, 1700);
	refused = op_at(&p, 100, 1750);
	assert_true(depends(&p, wr, un));
	assert_false(depends(&p, un, wr));
	assert_true(depends(&p, refused, take));
	assert_false(depends(&p, take, refused));
	/* a lock of bytes the late unlock did not free follows its thread
	 * only; the two pulls above are all (the lock of other bytes after
	 * the refusal is not one) */
	assert_false(depends(&p, wr2, un));
	assert_int_equal(p.order_pulled, 2);
	rpl_plan_free(&p);
	replay_clean(&o, "root-locks", RPL_TIMING_AFAP);
}

/*
 * A try refused that entered while another process held a read lock of
 * its bytes and returned after that process's unlock had returned
 * (sqlite3's writers, ptrace: a try 91 us long, and a reader's F_UNLCK
 * 1 us long in it).  Ordered by its end, the try came after the unlock
 * and was granted; the unlock follows it.  A try of other bytes is not
 * pulled.  Replayed: no mismatch.
 */
static const struct evspec rbevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/db", NULL },
	{ 1010, 1011, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	{ 1020, 1021, 102, 102, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	LOCK(1100, 1101, 100, 0, F_RDLCK, 0, 2),
	LOCK(1150, 1300, 101, -EAGAIN, F_WRLCK, 1, 2),		/* returned late */
	LOCK(1160, 1161, 100, 0, F_RDLCK, 40, 1),
	LOCK(1170, 1400, 102, -EAGAIN, F_WRLCK, 40, 1),	/* not the unlock's */
	LOCK(1200, 1201, 100, 0, F_UNLCK, 0, 2),
	LOCK(1500, 1501, 101, 0, F_WRLCK, 1, 2),		/* granted after it */
	LOCK(1510, 1511, 101, 0, F_UNLCK, 0, 0),
	EXIT_AT(2000, 101),
	EXIT_AT(2010, 100),
	EXIT_AT(2020, 102),
};

static void refused_before_unlock(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t un, refused, other, granted;
	struct rpl_plan p;

	write_events(rbevs, sizeof(rbevs) / sizeof(rbevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	un = op_at(&p, 100, 1200);
	refused = op_at(&p, 101, 1150);
	other = op_at(&p, 102, 1170);
	granted = op_at(&p, 101, 1500);
	assert_true(depends(&p, un, refused));
	assert_false(depends(&p, refused, un));
	assert_false(depends(&p, un, other));
	assert_true(depends(&p, granted, un));
	rpl_plan_free(&p);
	replay_clean(&o, "root-refused", RPL_TIMING_AFAP);
}

/*
 * An unlock of a read lock taken off its CPU in the call (lock_flip's
 * readers, ptrace: 23 ms), a read lock granted to another reader in it,
 * and a writer's try refused after that, which the first reader's lock
 * still refused.  The read lock granted did not wait for the unlock and
 * does not pull it ahead: the unlock follows the refused try, which is
 * not granted in the replay.  A write lock granted in it still does.
 */
static const struct evspec urevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/db", NULL },
	{ 1010, 1011, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	{ 1020, 1021, 102, 102, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	LOCK(1100, 1101, 100, 0, F_RDLCK, 0, 2),
	LOCK(1200, 1900, 100, 0, F_UNLCK, 0, 2),		/* off its CPU */
	LOCK(1300, 1301, 102, 0, F_RDLCK, 0, 2),		/* a reader let in */
	LOCK(1310, 1311, 102, 0, F_UNLCK, 0, 2),
	LOCK(1400, 1401, 101, -EAGAIN, F_WRLCK, 0, 2),	/* still refused */
	LOCK(2000, 2001, 101, 0, F_WRLCK, 0, 2),		/* granted after it */
	LOCK(2010, 2011, 101, 0, F_UNLCK, 0, 2),
	EXIT_AT(3000, 101),
	EXIT_AT(3010, 100),
	EXIT_AT(3020, 102),
};

static void unlock_of_read_lock(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t un, reader, refused, granted;
	struct rpl_plan p;

	write_events(urevs, sizeof(urevs) / sizeof(urevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	un = op_at(&p, 100, 1200);
	reader = op_at(&p, 102, 1300);
	refused = op_at(&p, 101, 1400);
	granted = op_at(&p, 101, 2000);
	assert_false(depends(&p, reader, un));
	assert_false(depends(&p, refused, un));
	assert_true(depends(&p, un, refused));
	assert_true(depends(&p, granted, un));
	rpl_plan_free(&p);
	replay_clean(&o, "root-unlock-read", RPL_TIMING_AFAP);
}

/*
 * A reader's try taken off its CPU before the kernel refused it, for a
 * writer's lock granted after its entry; another reader's unlock of a
 * read lock while it was pending.  That unlock let go no lock that
 * refuses a read lock, and does not pull the try ahead of it (and so of
 * the writer's lock): the try follows the writer's lock, and the
 * writer's unlock follows the try.
 */
static const struct evspec rrevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/db", NULL },
	{ 1010, 1011, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	{ 1020, 1021, 102, 102, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	LOCK(1100, 1101, 100, 0, F_RDLCK, 0, 2),
	LOCK(1150, 1900, 102, -EAGAIN, F_RDLCK, 0, 2),	/* off its CPU */
	LOCK(1200, 1201, 100, 0, F_UNLCK, 0, 2),		/* a reader's */
	LOCK(1300, 1301, 101, 0, F_WRLCK, 0, 2),		/* what refused it */
	LOCK(1400, 1401, 101, 0, F_UNLCK, 0, 2),
	EXIT_AT(3000, 101),
	EXIT_AT(3010, 100),
	EXIT_AT(3020, 102),
};

static void read_refused_late(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t un, refused, wr, wun;
	struct rpl_plan p;

	write_events(rrevs, sizeof(rrevs) / sizeof(rrevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	un = op_at(&p, 100, 1200);
	refused = op_at(&p, 102, 1150);
	wr = op_at(&p, 101, 1300);
	wun = op_at(&p, 101, 1400);
	assert_false(depends(&p, un, refused));
	assert_true(depends(&p, refused, wr));
	assert_true(depends(&p, wun, refused));
	rpl_plan_free(&p);
	replay_clean(&o, "root-read-refused", RPL_TIMING_AFAP);
}

/*
 * A writer's lock held by the ops ordered, then another process's close
 * of the file (the last change of its locks, which held none), a third's
 * lock granted late (off its CPU), and a try refused while the first
 * writer's lock held.  The lock held refused the try: the late lock is
 * not pulled ahead of it, so not ahead of the first writer's unlock.
 */
static const struct evspec hlevs[] = {
	{ 1000, 1001, 100, 100, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR | O_CREAT, 0644 }, "/w/db", NULL },
	{ 1002, 1003, 101, 101, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	{ 1004, 1005, 102, 102, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	{ 1006, 1007, 103, 103, SYS_openat, 3, 4, { AT_FDCWD, 0, O_RDWR, 0 }, "/w/db", NULL },
	LOCK(1020, 1021, 103, 0, F_RDLCK, 0, 2),
	LOCK(1030, 1031, 103, 0, F_UNLCK, 0, 2),
	LOCK(1100, 1101, 100, 0, F_WRLCK, 0, 2),		/* held */
	{ 1200, 1201, 103, 103, SYS_close, 0, 1, { 3 }, "/w/db", NULL },
	LOCK(1300, 2000, 101, 0, F_WRLCK, 0, 2),		/* granted late */
	LOCK(1400, 1401, 102, -EAGAIN, F_WRLCK, 0, 2),	/* the held one's refusal */
	LOCK(1500, 1501, 100, 0, F_UNLCK, 0, 2),
	LOCK(2100, 2101, 101, 0, F_UNLCK, 0, 2),
	EXIT_AT(3000, 101),
	EXIT_AT(3010, 100),
	EXIT_AT(3020, 102),
	EXIT_AT(3030, 103),
};

static void refused_by_lock_held(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	uint32_t late, refused, un;
	struct rpl_plan p;

	write_events(hlevs, sizeof(hlevs) / sizeof(hlevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	late = op_at(&p, 101, 1300);
	refused = op_at(&p, 102, 1400);
	un = op_at(&p, 100, 1500);
	assert_false(depends(&p, refused, late));
	assert_true(depends(&p, late, un));
	rpl_plan_free(&p);
	replay_clean(&o, "root-lock-held", RPL_TIMING_AFAP);
}

/* A read follows the write that put its last byte in the pipe, not the
 * last write before its return; no write follows a read (the room it
 * needs is waited for when it runs); end of file follows the close.
 * Replayed, the write that found the pipe full moves nothing. */
static void pipe_order(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	size_t i;

	write_events(pevs, N_PEVS);
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
	replay_clean(&o, "root-pipe", RPL_TIMING_AFAP);
}

#define LATE_CALLS ((1 << 16) + 1000)

/* A hostile trace claims that every call returned at the end: the plan
 * keeps only so many calls whose effect has not counted yet (deps.c), and
 * orders the first of them at once past that.  Here that is still their
 * recorded order: two threads take turns removing one name, and each
 * removal follows the other thread's before it. */
static void calls_returned_late(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;
	size_t i;

	st(&w, "/f", S_IFREG, 1, NULL, 1, 1);
	for (i = 0; i < LATE_CALLS && !w.err; i++) {
		struct iot_event e = { .pid = 100 + (int)(i & 1), .tid = 100 + (int)(i & 1),
				       .nr = SYS_unlink, .ret = 0, .nargs = 1, .path = "/f",
				       .path_len = 2, .t_enter = w.t, .t_exit = w.t + (1LL << 60) };

		w.t += 10 * US;
		w.err = iot_writer_event(w.w, &e);
	}
	close_trace(&w);

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_ops, LATE_CALLS);
	for (i = 1; i < p.n_ops; i++) {
		assert_int_equal(p.ops[i].ndeps, 1);
		assert_int_equal(rpl_dep_op(&p, &p.deps[p.ops[i].dep_off]), i - 1);
	}
	rpl_plan_free(&p);
}

#define W8(t) { t, t + 1, 100, 102, SYS_write, NB, 3, { 4, 0, NB }, NULL, NULL }

/* A child feeds the pipe, sleeps 300 ms, ends with no exit call recorded:
 * the parent's read of end of file, blocked that long, has no close to
 * follow (the child's descriptors close as its last op is done). */
static const struct evspec eevs[] = {
	{ 1000, 1010, 100, 100, SYS_pipe2, 0, 2, { 4 | (5LL << 32), 0 }, NULL, NULL },
	{ 1060, 1070, 100, 100, SYS_clone, 101, 5, { 17 }, NULL, NULL },
	{ 1080, 1081, 100, 100, SYS_close, 0, 1, { 5 }, NULL, NULL },
	{ 1100, 1101, 101, 101, SYS_write, 10, 3, { 5, 0, 10 }, NULL, NULL },
	{ 1110, 301110, 101, 101, SYS_nanosleep, 0, 2, { 300000000LL, 0 }, NULL, NULL },
	{ 1090, 1200, 100, 100, SYS_read, 10, 3, { 4, 0, 4096 }, NULL, NULL },
	{ 1210, 301300, 100, 100, SYS_read, 0, 3, { 4, 0, 4096 }, NULL, NULL },
	{ 301400, 301410, 100, 100, SYS_wait4, 101, 4, { 101, 0, 0, 0 }, NULL, NULL },
	{ 301500, 301500, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};

/* git's shape: 8 KiB writes, reads of up to 65,515 bytes.  R2's last byte is
 * in W16, which entered before R2 returned but could not return before it:
 * R1's last 21 bytes and W9..W15 fill 15 of 16 pages, W16 needs two. */
static const struct evspec revs[] = {
	{ 1000, 1010, 100, 100, SYS_pipe2, 0, 2, { 3 | (4LL << 32), 0 }, NULL, NULL },
	{ 1020, 1030, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
	W8(1100), W8(1110), W8(1120), W8(1130), W8(1140), W8(1150), W8(1160), W8(1170),
	{ 1090, 1200, 100, 100, SYS_read, 65515, 3, { 3, 0, 65515 }, NULL, NULL },	/* R1 */
	W8(1210), W8(1220), W8(1230), W8(1240), W8(1250), W8(1260), W8(1270),
	{ 1205, 1400, 100, 100, SYS_read, 61461, 3, { 3, 0, 65515 }, NULL, NULL },	/* R2 */
	{ 1350, 1410, 100, 102, SYS_write, NB, 3, { 4, 0, NB }, NULL, NULL },		/* W16 */
	{ 1420, 1421, 100, 100, SYS_read, 4096, 3, { 3, 0, 65515 }, NULL, NULL },	/* R3 */
	{ 1510, 1510, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
	{ 1600, 1600, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};

/* A read follows the latest write that fits with it, not one that needed
 * its room to return (each waited for the other until given up); a read of
 * end of file waits for it. */
static void pipe_room(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	uint32_t r2;

	write_events(revs, sizeof(revs) / sizeof(revs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	r2 = op_at(&p, 100, 1205);
	assert_false(depends(&p, r2, op_at(&p, 102, 1350)));		/* not W16 */
	assert_true(depends(&p, r2, op_at(&p, 102, 1210)));		/* W9 fits */
	assert_true(depends(&p, op_at(&p, 100, 1090), op_at(&p, 102, 1110)));	/* R1 <- W2 */
	assert_true(depends(&p, op_at(&p, 100, 1420), op_at(&p, 102, 1350)));	/* R3 <- W16 */
	rpl_plan_free(&p);
	replay_clean(&o, "root-room", RPL_TIMING_AFAP);
	write_events(eevs, sizeof(eevs) / sizeof(eevs[0]));
	replay_clean(&o, "root-eof", RPL_TIMING_ORIGINAL);
}

/* A socket pair carries data both ways: the main thread and a thread each
 * read what the other wrote on the other end (each read entered before
 * the write that fed it), then the thread closes its end and the main
 * thread reads the end of file. */
static const struct evspec sevs[] = {
	{ 1000, 1010, 100, 100, SYS_socketpair, 0, 4, { AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
							 3 | (4LL << 32) }, NULL, NULL },
	{ 1020, 1030, 100, 100, SYS_clone, 102, 5, { 0x3d0f00 }, NULL, NULL },
	{ 1090, 1200, 100, 100, SYS_read, 10, 3, { 3, 0, 4096 }, NULL, NULL },		/* R1 */
	{ 1100, 1101, 100, 102, SYS_write, 10, 3, { 4, 0, 10 }, NULL, NULL },		/* W1 */
	{ 1150, 1300, 100, 102, SYS_read, 16, 3, { 4, 0, 4096 }, NULL, NULL },		/* R2 */
	{ 1210, 1211, 100, 100, SYS_write, 16, 3, { 3, 0, 16 }, NULL, NULL },		/* W2 */
	{ 1310, 1311, 100, 102, SYS_close, 0, 1, { 4 }, NULL, NULL },
	{ 1320, 1320, 100, 102, SYS_exit, 0, 1, { 0 }, NULL, NULL },
	{ 1305, 1330, 100, 100, SYS_read, 0, 3, { 3, 0, 4096 }, NULL, NULL },		/* end of file */
	{ 1400, 1400, 100, 100, SYS_exit_group, 0, 1, { 0 }, NULL, NULL },
};

/* Each end of a socket pair reads the pipe the other end writes: a read
 * follows the write on the other end, not one on its own; replayed as a
 * real pair, every call moves what it moved. */
static void socketpair_both_ways(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;

	write_events(sevs, sizeof(sevs) / sizeof(sevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_true(depends(&p, op_at(&p, 102, 1150), op_at(&p, 100, 1210)));	/* R2 <- W2 */
	assert_true(depends(&p, op_at(&p, 100, 1090), op_at(&p, 102, 1100)));	/* R1 <- W1 */
	assert_true(depends(&p, op_at(&p, 100, 1305), op_at(&p, 102, 1310)));	/* EOF <- close */
	assert_int_equal(p.ops[op_at(&p, 100, 1210)].ndeps, 0);		/* W2 waits for nothing */
	rpl_plan_free(&p);
	replay_clean(&o, "root-sockpair", RPL_TIMING_AFAP);
}

/* A server takes two clients' connections, each known by its client's
 * socket (iot_sock_ino()); the first accept's entry was recorded before
 * its own connect's (ptrace: the tracer took the accept's stop first,
 * and let the connect run first), while the other client's connect was
 * queued. */
static const struct evspec cevs[] = {
	{ 1000, 1005, 100, 100, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1010, 1015, 100, 100, SYS_bind, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1020, 1025, 100, 100, SYS_listen, 0, 2, { 3, 8 }, NULL, NULL },
	{ 1030, 1035, 200, 200, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1040, 1045, 300, 300, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1100, 1110, 200, 200, SYS_connect, 0, 4, { 3, 0, 10, 111 }, "/w/s", NULL },
	{ 1210, 1215, 300, 300, SYS_connect, 0, 4, { 3, 0, 10, 222 }, "/w/s", NULL },
	{ 1200, 1220, 100, 100, SYS_accept4, 4, 5, { 3, 0, 0, SOCK_CLOEXEC, 222 }, NULL, NULL },
	{ 1300, 1310, 100, 100, SYS_accept4, 5, 5, { 3, 0, 0, SOCK_CLOEXEC, 111 }, NULL, NULL },
};

/* Each accept is paired with the connect its connection came from, the
 * first with the connect that came after its entry: taking the one
 * queued then, the other client's, it left the second accept the wrong
 * connect too (a prefork server recorded under load by ptrace: 28-34
 * mismatches a replay, the workers serving each other's clients). */
static void accept_before_connect(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	const struct rpl_op *a1, *a2, *c1, *c2;

	write_events(cevs, sizeof(cevs) / sizeof(cevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	a1 = &p.ops[op_at(&p, 100, 1200)];
	a2 = &p.ops[op_at(&p, 100, 1300)];
	c1 = &p.ops[op_at(&p, 200, 1100)];
	c2 = &p.ops[op_at(&p, 300, 1210)];
	assert_true(a1->rflags & RPL_OPF_CONNQ);
	assert_true(c2->rflags & RPL_OPF_CONNQ);
	assert_int_equal(a1->link, c2->link);
	assert_true(a2->rflags & RPL_OPF_CONNQ);
	assert_true(c1->rflags & RPL_OPF_CONNQ);
	assert_int_equal(a2->link, c1->link);
	rpl_plan_free(&p);
}

/* A listener with a backlog of 1 (its queue holds 2); three clients
 * connect at once, the third waits in its connect for room, which the
 * server's first accept makes 0.2 ms later; the server's forked child
 * (101) closes its copy of the listener. */
static const struct evspec bevs[] = {
	{ 1000, 1005, 100, 100, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1010, 1015, 100, 100, SYS_bind, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1020, 1025, 100, 100, SYS_listen, 0, 2, { 3, 1 }, NULL, NULL },
	{ 1030, 1035, 200, 200, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1040, 1045, 300, 300, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1050, 1055, 400, 400, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1100, 1105, 200, 200, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1110, 1115, 300, 300, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1300, 1305, 100, 100, SYS_accept4, 4, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
	{ 1120, 1306, 400, 400, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1320, 1325, 101, 101, SYS_close, 0, 1, { 3 }, NULL, NULL },
	{ 1330, 1335, 100, 100, SYS_accept4, 5, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
	{ 1340, 1345, 100, 100, SYS_accept4, 6, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
};

/* The connect that waited for room in the full queue is no change of the
 * listener counted from its entry: the accept that made its room and the
 * child's close do not wait for it (they did, and it for them: socat's
 * forking server, 2 s until the connects gave up), and it follows the
 * connects queued before it. */
static void connect_waits_room(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	uint32_t c1, c2, c3, a1, a3, cl;

	(void)state;
	write_events(bevs, sizeof(bevs) / sizeof(bevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	c1 = op_at(&p, 200, 1100);
	c2 = op_at(&p, 300, 1110);
	c3 = op_at(&p, 400, 1120);
	a1 = op_at(&p, 100, 1300);
	a3 = op_at(&p, 100, 1340);
	cl = op_at(&p, 101, 1320);
	assert_false(depends(&p, a1, c3));
	assert_false(depends(&p, cl, c3));
	assert_false(depends(&p, a3, c3));
	/* the first two: on the listener, from their entry, in turn */
	assert_true(depends(&p, a1, c2) || depends(&p, a1, c1));
	assert_true(depends(&p, c2, c1));
	/* the third after them */
	assert_true(depends(&p, c3, c2));
	rpl_plan_free(&p);
}

/* The same listener: two clients queued, the server's accept begins,
 * and a third client's connect begins before that accept returns: it
 * found no room, and took the room the accept made (ptrace's latency
 * in the accept's return). */
static const struct evspec fevs[] = {
	{ 1000, 1005, 100, 100, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1010, 1015, 100, 100, SYS_bind, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1020, 1025, 100, 100, SYS_listen, 0, 2, { 3, 1 }, NULL, NULL },
	{ 1030, 1035, 200, 200, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1040, 1045, 300, 300, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1050, 1055, 400, 400, SYS_socket, 3, 3, { AF_UNIX, SOCK_STREAM, 0 }, NULL, NULL },
	{ 1100, 1105, 200, 200, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1110, 1115, 300, 300, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1305, 1308, 400, 400, SYS_connect, 0, 3, { 3, 0, 10 }, "/w/s", NULL },
	{ 1300, 1310, 100, 100, SYS_accept4, 4, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
	{ 1330, 1335, 100, 100, SYS_accept4, 5, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
	{ 1340, 1345, 100, 100, SYS_accept4, 6, 4, { 3, 0, 0, SOCK_CLOEXEC }, NULL, NULL },
};

/* The accept under way when the third connect began does not wait for
 * it: it waited for that accept's room (socat's server recorded by
 * ptrace, 1 recording in 3: 2 s, until the connect gave up). */
static void connect_room_in_flight(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	uint32_t c2, c3, a1;

	(void)state;
	write_events(fevs, sizeof(fevs) / sizeof(fevs[0]));
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	c2 = op_at(&p, 300, 1110);
	c3 = op_at(&p, 400, 1305);
	a1 = op_at(&p, 100, 1300);
	assert_false(depends(&p, a1, c3));
	assert_true(depends(&p, c3, c2));
	rpl_plan_free(&p);
}

/* A tid seen again in another process, its first thread's end not
 * recorded (a pid reused, or a lost exit): a thread of its own, of that
 * process (the op keeps no pid of its own: its thread's is the pid the
 * profile writes). */
static const struct evspec tidevs[] = {
	{ 1000, 1010, 200, 201, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/a", NULL },
	{ 1020, 1030, 200, 201, SYS_close, 0, 1, { 3 }, "/w/a", NULL },
	{ 1040, 1050, 300, 201, SYS_openat, 3, 4, { AT_FDCWD, 0, O_WRONLY | O_CREAT, 0644 }, "/w/b", NULL },
	{ 1060, 1070, 300, 201, SYS_close, 0, 1, { 3 }, "/w/b", NULL },
	{ 1080, 1090, 200, 201, SYS_newfstatat, 0, 4, { AT_FDCWD, 0, 0, 0 }, "/w/a", NULL },
};
#define N_TIDEVS (sizeof(tidevs) / sizeof(tidevs[0]))

static void tid_in_two_processes(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct rpl_plan p;
	size_t i;

	(void)state;
	write_events(tidevs, N_TIDEVS);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_ops, N_TIDEVS);
	/* 200's, 300's, and 200's again (201 was 300's last) */
	assert_int_equal(p.n_threads, 3);
	for (i = 0; i < N_TIDEVS; i++) {
		uint32_t k = op_at(&p, 201, tidevs[i].t0);

		assert_int_equal(p.threads[p.ops[k].thread].pid, tidevs[i].pid);
		assert_int_equal(p.threads[p.ops[k].thread].tid, 201);
	}
	assert_int_equal(p.ops[op_at(&p, 201, 1000)].thread, p.ops[op_at(&p, 201, 1020)].thread);
	assert_int_equal(p.ops[op_at(&p, 201, 1040)].thread, p.ops[op_at(&p, 201, 1060)].thread);
	assert_int_not_equal(p.ops[op_at(&p, 201, 1000)].thread,
			     p.ops[op_at(&p, 201, 1040)].thread);
	rpl_plan_free(&p);
}

/* a state of @path with @flags, taken at @t */
static void stf(struct w *w, const char *path, uint32_t type, uint64_t size, uint32_t flags,
		int64_t t)
{
	struct iot_path_state ps = {
		.path = path, .path_len = (uint32_t)strlen(path), .type = type, .size = size,
		.mode = type == S_IFDIR ? 0755 : 0644, .nlink = type == S_IFDIR ? 2 : 1,
		.dev = 1, .t_ns = t, .flags = flags,
	};

	if (!w->err)
		w->err = iot_writer_path_state(w->w, &ps);
}

/*
 * A path with several states (a recorder whose set of paths was full
 * forgot it and took its state again when a call named it again, after
 * the program had changed it): the plan and prepare take its first
 * state and ignore the others, whatever they say.  First: one not
 * flagged IOT_PS_AGAIN before one flagged (the mixed backend times the
 * states it takes itself at its next round, later than the fast path's
 * of calls made meanwhile; a listed entry taken early, before the set
 * forgot it), one a call's naming took before one a listing gave, then
 * the earliest.
 */
static void states_first(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1, .prepare_only = 1,
			      .timing = RPL_TIMING_AFAP };
	static struct rpl_result res;
	struct w w = open_trace();
	struct rpl_plan p;
	const struct iot_path_state *ps;
	char root[400], f[500];
	struct stat sb;
	int64_t t = w.t;

	stf(&w, "/w", S_IFDIR, 0, 0, t);
	stf(&w, "/w/f", S_IFREG, 100, 0, t + 1);		/* first, then again */
	stf(&w, "/w/f", S_IFREG, 5000, IOT_PS_AGAIN, t + 50);
	stf(&w, "/w/g", S_IFREG, 7, IOT_PS_AGAIN, t + 2);	/* earlier, but again */
	stf(&w, "/w/g", S_IFREG, 3, 0, t + 3);
	stf(&w, "/w/d", S_IFDIR, 0, 0, t + 4);		/* removed later */
	stf(&w, "/w/d", 0, 0, IOT_PS_AGAIN, t + 60);
	stf(&w, "/w/e", 0, 0, 0, t + 5);			/* made later, listed */
	stf(&w, "/w/e", S_IFREG, 9, IOT_PS_LISTED | IOT_PS_AGAIN, t);
	stf(&w, "/w/h", S_IFREG, 11, IOT_PS_LISTED, t + 6);	/* listed, taken early */
	stf(&w, "/w/h", 0, 0, IOT_PS_AGAIN, t + 70);		/* named after its unlink */
	ev(&w, 10, SYS_newfstatat, 0, "/w/f", NULL, 4, A(AT_FDCWD), A(0), A(0), A(0));
	ev(&w, 10, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);

	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_non_null(ps = rpl_path_state(&p, "/w/f"));
	assert_int_equal(ps->size, 100);
	assert_non_null(ps = rpl_path_state(&p, "/w/g"));
	assert_int_equal(ps->size, 3);
	assert_non_null(ps = rpl_path_state(&p, "/w/d"));
	assert_int_equal(ps->type, S_IFDIR);
	assert_non_null(ps = rpl_path_state(&p, "/w/e"));
	assert_int_equal(ps->type, 0);
	assert_non_null(ps = rpl_path_state(&p, "/w/h"));
	assert_int_equal(ps->size, 11);
	rpl_plan_free(&p);

	snprintf(root, sizeof(root), "%s/root-first", tmp);
	mkdir(root, 0755);
	o.root = root;
	assert_int_equal(rpl_run(&o, &res), 0);
	snprintf(f, sizeof(f), "%s/w/f", root);
	assert_int_equal(stat(f, &sb), 0);
	assert_int_equal(sb.st_size, 100);
	snprintf(f, sizeof(f), "%s/w/g", root);
	assert_int_equal(stat(f, &sb), 0);
	assert_int_equal(sb.st_size, 3);
	snprintf(f, sizeof(f), "%s/w/d", root);
	assert_int_equal(stat(f, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	snprintf(f, sizeof(f), "%s/w/e", root);
	assert_int_equal(stat(f, &sb), -1);
	snprintf(f, sizeof(f), "%s/w/h", root);
	assert_int_equal(stat(f, &sb), 0);
	assert_int_equal(sb.st_size, 11);
}

/*
 * A shell's loop of pipelines (`for i in ...; do echo x | cat; done`):
 * each round a pipe, a writer and a reader forked, the shell's closes of
 * its copies, the writer's and the reader's own closes, the reaps.  A
 * close of a copy of an end open elsewhere follows nothing (the shell's
 * close of the write end does not wait for the writer's write), a read
 * of end of file follows the writer's end; and finding that a copy is
 * open elsewhere costs the planner no look at other processes' tables:
 * the slots it reads grow with the ops, not with ops x processes (the
 * scan of every table read some 48 M slots here).
 */
#define LOOP_ROUNDS 1000

static void pipeline_loop(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;
	int i;

	(void)state;
	for (i = 0; i < LOOP_ROUNDS; i++) {
		int a = 1000 + 2 * i, b = a + 1;

		ev(&w, 100, SYS_pipe2, 0, NULL, NULL, 2, A(3 | (4LL << 32)), A(0));
		ev(&w, 100, SYS_clone, a, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
		ev(&w, a, SYS_dup2, 1, NULL, NULL, 2, A(4), A(1));
		ev(&w, a, SYS_close, 0, NULL, NULL, 1, A(4));
		ev(&w, a, SYS_close, 0, NULL, NULL, 1, A(3));
		ev(&w, a, SYS_write, 2, NULL, NULL, 3, A(1), A(0), A(2));
		ev(&w, 100, SYS_clone, b, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
		ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(3));
		ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(4));
		ev(&w, a, SYS_exit_group, 0, NULL, NULL, 1, A(0));
		ev(&w, b, SYS_dup2, 0, NULL, NULL, 2, A(3), A(0));
		ev(&w, b, SYS_close, 0, NULL, NULL, 1, A(3));
		ev(&w, b, SYS_close, 0, NULL, NULL, 1, A(4));
		ev(&w, b, SYS_read, 2, NULL, NULL, 3, A(0), A(0), A(4096));
		ev(&w, b, SYS_read, 0, NULL, NULL, 3, A(0), A(0), A(4096));
		ev(&w, b, SYS_exit_group, 0, NULL, NULL, 1, A(0));
		ev(&w, 100, SYS_wait4, a, NULL, NULL, 4, A(a), A(0), A(0), A(0));
		ev(&w, 100, SYS_wait4, b, NULL, NULL, 4, A(b), A(0), A(0), A(0));
	}
	ev(&w, 100, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_procs, 1 + 2 * LOOP_ROUNDS);
	for (i = 0; i < LOOP_ROUNDS; i += LOOP_ROUNDS - 1) {
		int a = 1000 + 2 * i, b = a + 1;
		uint32_t wr = nth(&p, a, SYS_write, 0);

		/* the shell's close of its write end: a copy, the writer's
		 * is open; the writer's exit closes a copy too, the
		 * reader's is open; the reader's close of its copy, the
		 * last one, follows the writer's end (and its write), and
		 * its read of end of file comes after that close */
		assert_false(depends(&p, nth(&p, 100, SYS_close, 2 * i + 1), wr));
		assert_false(depends(&p, nth(&p, a, SYS_exit_group, 0), nth(&p, 100, SYS_close, 2 * i + 1)));
		assert_true(depends(&p, nth(&p, b, SYS_close, 1), nth(&p, a, SYS_exit_group, 0)));
		assert_true(depends(&p, nth(&p, b, SYS_read, 0), wr));
	}
	assert_true(p.fd_slots_read <= 16 * p.n_ops);
	rpl_plan_free(&p);
}

/* Process 100 makes a pipe (3, 4) and starts 101, which writes 2 bytes
 * into it as its stdout, its own copies of 3 and 4 closed. */
static void pipe_writer(struct w *w)
{
	ev(w, 100, SYS_pipe2, 0, NULL, NULL, 2, A(3 | (4LL << 32)), A(0));
	ev(w, 100, SYS_clone, 101, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
	ev(w, 101, SYS_dup2, 1, NULL, NULL, 2, A(4), A(1));
	ev(w, 101, SYS_close, 0, NULL, NULL, 1, A(4));
	ev(w, 101, SYS_close, 0, NULL, NULL, 1, A(3));
	ev(w, 101, SYS_write, 2, NULL, NULL, 3, A(1), A(0), A(2));
}

/*
 * A process's end closes its descriptors, as the kernel does: a writer
 * that exits with its output still open (no close of it) leaves no
 * copy of its end behind.  (1) The shell reaps it, then closes its own
 * copy of the write end, the last one: that close is the end of file
 * its read sees, ordered after the writer's end, not a copy's close
 * that follows nothing (the writer's table, kept to the plan's end,
 * counted its copy open for good).  (2) A process that shared its
 * table with a child (CLONE_FILES) which has ended, exits with a write
 * end open: its exit closes it, and the reader's end of file follows
 * that exit (the child's reference, kept, made it close nothing).
 */
static void exit_closes_table(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;

	(void)state;
	/* (1) */
	pipe_writer(&w);
	ev(&w, 101, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	ev(&w, 100, SYS_wait4, 101, NULL, NULL, 4, A(101), A(0), A(0), A(0));
	ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(4));
	ev(&w, 100, SYS_read, 2, NULL, NULL, 3, A(3), A(0), A(4096));
	ev(&w, 100, SYS_read, 0, NULL, NULL, 3, A(3), A(0), A(4096));
	ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(3));
	/* (2) */
	ev(&w, 100, SYS_clone, 102, NULL, NULL, 5, A(0x400 | 17), A(0), A(0), A(0), A(0));
	ev(&w, 102, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	ev(&w, 100, SYS_wait4, 102, NULL, NULL, 4, A(102), A(0), A(0), A(0));
	ev(&w, 100, SYS_pipe2, 0, NULL, NULL, 2, A(5 | (6LL << 32)), A(0));
	ev(&w, 100, SYS_clone, 103, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
	ev(&w, 103, SYS_close, 0, NULL, NULL, 1, A(6));
	ev(&w, 100, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	ev(&w, 103, SYS_read, 0, NULL, NULL, 3, A(5), A(0), A(4096));
	ev(&w, 103, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_procs, 4);
	assert_true(depends(&p, nth(&p, 100, SYS_close, 0), nth(&p, 101, SYS_exit_group, 0)));
	assert_true(depends(&p, nth(&p, 103, SYS_read, 0), nth(&p, 100, SYS_exit_group, 0)));
	rpl_plan_free(&p);
}

/* A writer killed by a signal makes no exit call: its exit record ends
 * it, and its table closes with it as with an exit: the shell's close
 * of its copy after it is the last one, ordered after the writer's
 * write (the killed writer's table, kept, counted its copy open for
 * good: that close followed nothing). */
static void killed_writer(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct iot_process x = { .kind = IOT_PROC_EXIT, .pid = 101, .tid = 101,
				 .exit_status = 15 };
	struct w w = open_trace();
	struct rpl_plan p;

	(void)state;
	pipe_writer(&w);
	x.t_ns = w.t;
	w.t += 10 * US;
	assert_int_equal(iot_writer_process(w.w, &x), 0);
	ev(&w, 100, SYS_wait4, 101, NULL, NULL, 4, A(101), A(0), A(0), A(0));
	ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(4));
	ev(&w, 100, SYS_read, 2, NULL, NULL, 3, A(3), A(0), A(4096));
	ev(&w, 100, SYS_read, 0, NULL, NULL, 3, A(3), A(0), A(4096));
	ev(&w, 100, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_true(depends(&p, nth(&p, 100, SYS_close, 0), nth(&p, 101, SYS_write, 0)));
	rpl_plan_free(&p);
}

/* An event of thread @tid of process @pid (ev() makes them one). */
static void tev(struct w *w, int pid, int tid, int nr, int64_t ret, const char *path, int64_t a0,
		int64_t a1, int64_t a2)
{
	struct iot_event e = { .pid = pid, .tid = tid, .nr = nr, .ret = ret, .nargs = 3,
			       .args = { a0, a1, a2 }, .path = path,
			       .path_len = path ? (uint32_t)strlen(path) : 0 };

	e.t_enter = w->t;
	e.t_exit = w->t + 5 * US;
	w->t += 10 * US;
	if (!w->err)
		w->err = iot_writer_event(w->w, &e);
}

/* Process @pid, forked by 100, starts thread @pid + 100; that thread
 * opens @path as fd 5 and closes it; both end, and 100 reaps @pid. */
static void two_threads_fd5(struct w *w, int pid, const char *path)
{
	ev(w, 100, SYS_clone, pid, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
	tev(w, pid, pid, SYS_clone, pid + 100, NULL, 0x3d0f00, 0, 0);
	tev(w, pid, pid + 100, SYS_openat, 5, path, AT_FDCWD, 0, O_RDONLY);
	tev(w, pid, pid + 100, SYS_close, 0, NULL, 5, 0, 0);
	tev(w, pid, pid + 100, SYS_exit, 0, NULL, 0, 0, 0);
	tev(w, pid, pid, SYS_exit_group, 0, NULL, 0, 0, 0);
	ev(w, 100, SYS_wait4, pid, NULL, NULL, 4, A(pid), A(0), A(0), A(0));
}

/*
 * In a table its threads share, the calls on one descriptor number keep
 * their order (plan_fds.c key_slot()); a table made after another one
 * ended is another table, whatever its address: two processes one after
 * the other, each of two threads opening and closing its fd 5.  By the
 * table's address (where malloc put the second table: that of the first,
 * freed at its end), the second's open followed the first's close, and a
 * plan changed with the allocations made before it.
 */
static void slots_per_table(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	struct w w = open_trace();
	struct rpl_plan p;

	(void)state;
	two_threads_fd5(&w, 101, "/w/a");
	two_threads_fd5(&w, 102, "/w/b");
	close_trace(&w);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(p.n_procs, 3);
	assert_false(depends(&p, nth(&p, 202, SYS_openat, 0), nth(&p, 201, SYS_close, 0)));
	assert_false(depends(&p, nth(&p, 202, SYS_openat, 0), nth(&p, 201, SYS_openat, 0)));
	rpl_plan_free(&p);
}

/*
 * Opens of another process's descriptor (/proc/PID/fd/N, kept as
 * written): a child's of its parent's pipe, found in the parent's table
 * and opened there (its read follows the parent's write), and one of a
 * pid the trace does not have, which no replayed descriptor stands for:
 * skipped and counted as such, never opened as the path recorded.
 */
static void fd_link_of_other(void **state)
{
	struct rpl_opts o = { .trace = trace, .cmd = "test", .quiet = 1 };
	static struct rpl_result res;
	struct w w = open_trace();
	struct rpl_plan p;
	char root[400];

	(void)state;
	ev(&w, 100, SYS_pipe2, 0, NULL, NULL, 2, A(3 | (4LL << 32)), A(0));
	ev(&w, 100, SYS_write, 5, NULL, NULL, 3, A(4), A(0), A(5));
	ev(&w, 100, SYS_clone, 101, NULL, NULL, 5, A(17), A(0), A(0), A(0), A(0));
	ev(&w, 101, SYS_openat, 5, "/proc/100/fd/3", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY),
	   A(0));
	ev(&w, 101, SYS_read, 5, NULL, NULL, 3, A(5), A(0), A(100));
	ev(&w, 101, SYS_openat, 6, "/proc/4242/fd/0", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY),
	   A(0));
	ev(&w, 101, SYS_read, 7, NULL, NULL, 3, A(6), A(0), A(100));
	ev(&w, 101, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	ev(&w, 100, SYS_wait4, 101, NULL, NULL, 4, A(101), A(0), A(0), A(0));
	ev(&w, 100, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	close_trace(&w);
	assert_int_equal(rpl_plan_build(&p, &o), 0);
	assert_int_equal(rpl_op_fd_proc(&p.ops[nth(&p, 101, SYS_openat, 0)]), 0);
	assert_int_equal(rpl_op_fd_proc(&p.ops[nth(&p, 101, SYS_openat, 1)]), -1);
	assert_true(depends(&p, nth(&p, 101, SYS_read, 0), nth(&p, 100, SYS_write, 0)));
	rpl_plan_free(&p);
	snprintf(root, sizeof(root), "%s/root-fdlink", tmp);
	mkdir(root, 0755);
	o.root = root;
	o.timing = RPL_TIMING_AFAP;
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.fd_links, 1);
	assert_int_equal(res.skipped_by[RPL_SKIP_OTHERFD], 1);
	assert_int_equal(res.skipped_by[RPL_SKIP_PSEUDO], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_edges),
		cmocka_unit_test(plan_pipe_writers),
		cmocka_unit_test(replay_end_to_end),
		cmocka_unit_test(failed_mkdirs),
		cmocka_unit_test(looks_then_change),
		cmocka_unit_test(names_apart),
		cmocka_unit_test(writes_apart),
		cmocka_unit_test(think_then_wait),
		cmocka_unit_test(pipe_order),
		cmocka_unit_test(overlap_seen),
		cmocka_unit_test(overlap_truncated),
		cmocka_unit_test(overlap_renamed),
		cmocka_unit_test(number_taken_back),
		cmocka_unit_test(overlap_locks),
		cmocka_unit_test(refused_before_unlock),
		cmocka_unit_test(unlock_of_read_lock),
		cmocka_unit_test(read_refused_late),
		cmocka_unit_test(refused_by_lock_held),
		cmocka_unit_test(calls_returned_late),
		cmocka_unit_test(pipe_room),
		cmocka_unit_test(socketpair_both_ways),
		cmocka_unit_test(accept_before_connect),
		cmocka_unit_test(connect_waits_room),
		cmocka_unit_test(connect_room_in_flight),
		cmocka_unit_test(tid_in_two_processes),
		cmocka_unit_test(states_first),
		cmocka_unit_test(pipeline_loop),
		cmocka_unit_test(exit_closes_table),
		cmocka_unit_test(killed_writer),
		cmocka_unit_test(fd_link_of_other),
		cmocka_unit_test(slots_per_table),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
