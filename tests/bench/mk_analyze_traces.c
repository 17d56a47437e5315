/*
 * mk_analyze_traces.c - deterministic traces and profiles for the
 * analyzer's golden tests and bench, written with the writer API.
 *
 *   mk_analyze_traces DIR             the golden set (see tests/data/analyze/)
 *   mk_analyze_traces --bench FILE N  a synthetic trace of about N events
 *   mk_analyze_traces --procs FILE N  a shell loop of N short processes
 *   mk_analyze_traces --commands FILE N  a shell running N top-level commands
 *
 * The golden workload is the Mozilla-tree script of the classic benchmark
 * (cp -a, sync, cp -a, cp -a, sync, du, rm -rf, tar c, sync) on a small
 * tree; profiles replay it with per-class latency factors per filesystem.
 * Every number comes from a fixed-seed generator, so files are identical
 * from run to run.
 */
#include <asm/unistd_64.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"

struct gen {
	struct iot_writer *w;
	int64_t now;
	uint64_t rng;
	double scale[8];	/* per analyzer class: metadata, read, write, dir, sync, xattr, proc, other */
	double noise;		/* relative run-to-run noise */
	double cpu;		/* CPU time factor */
	uint32_t flag_every;	/* profiles with errors: flag every Nth call */
	uint32_t n;
	int rc;
};

static uint64_t rnd(struct gen *g)
{
	g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
	return g->rng >> 33;
}

static int cls_of(int nr)
{
	switch (nr) {
	case __NR_read: case __NR_getdents64:
		return nr == __NR_read ? 1 : 3;
	case __NR_write: case __NR_copy_file_range:
		return 2;
	case __NR_mkdir: case __NR_unlinkat: case __NR_mkdirat:
		return 3;
	case __NR_sync: case __NR_fsync:
		return 4;
	case __NR_fsetxattr:
		return 5;
	case __NR_clone: case __NR_wait4: case __NR_execve: case __NR_exit_group:
		return 6;
	case __NR_ioctl: case __NR_lseek:
		return 7;
	default:
		return 0;
	}
}

/* One call: @base ns of latency, scaled for the target and jittered. */
static void call(struct gen *g, int pid, int nr, int64_t ret, int64_t base, const char *path,
		 const char *path2, int64_t a0, int64_t a1, int64_t a2)
{
	struct iot_event ev = { 0 };
	double j = 1 + ((double)(rnd(g) % 2001) / 1000.0 - 1) * g->noise;
	int64_t d = (int64_t)((double)base * g->scale[cls_of(nr)] * j);

	if (g->rc)
		return;
	g->now += 200 + (int64_t)(rnd(g) % 800);	/* think time */
	ev.t_enter = g->now;
	ev.t_exit = g->now + d;
	ev.pid = ev.tid = pid;
	ev.nr = nr;
	ev.ret = ret;
	ev.nargs = 3;
	ev.args[0] = a0;
	ev.args[1] = a1;
	ev.args[2] = a2;
	if (path) {
		ev.path = path;
		ev.path_len = (uint32_t)strlen(path);
	}
	if (path2) {
		ev.path2 = path2;
		ev.path2_len = (uint32_t)strlen(path2);
	}
	if (nr == __NR_exit_group)
		ev.flags = IOT_EV_UNFINISHED, ev.t_exit = ev.t_enter;
	g->n++;
	if (g->flag_every && g->n % g->flag_every == 0)
		ev.flags |= g->n % (2 * g->flag_every) ? IOT_EV_REPLAY_MISMATCH : IOT_EV_REPLAY_SKIPPED;
	g->now = ev.t_exit;
	if (g->w)
		g->rc = iot_writer_event(g->w, &ev);
}

static void proc(struct gen *g, int kind, int pid, int ppid, const char *const *argv,
		 uint32_t argc, int64_t cpu)
{
	struct iot_process p = { 0 };

	if (g->rc)
		return;
	p.kind = (uint32_t)kind;
	p.t_ns = g->now;
	p.pid = p.tid = pid;
	p.ppid = ppid;
	p.argc = argc;
	p.argv = argv;
	p.utime_ns = (int64_t)((double)cpu * g->cpu * 0.7);
	p.stime_ns = (int64_t)((double)cpu * g->cpu * 0.3);
	if (g->w)
		g->rc = iot_writer_process(g->w, &p);
}

#define NDIR 3
#define NFILE 4
static const char *const names[NFILE] = { "a.c", "Makefile", "caf\xe9.txt", "x,y \"q\".h" };

static void tree_path(char *b, size_t n, const char *root, int d, int f)
{
	if (f < 0)
		snprintf(b, n, "%s/dir%d", root, d);
	else
		snprintf(b, n, "%s/dir%d/%s", root, d, names[f]);
}

static void cp_tree(struct gen *g, int pid, const char *src, const char *dst)
{
	char s[256], t[256];
	int d, f;

	call(g, pid, __NR_mkdir, 0, 9000, dst, NULL, 0, 0755, 0);
	for (d = 0; d < NDIR; d++) {
		tree_path(t, sizeof(t), dst, d, -1);
		call(g, pid, __NR_mkdir, 0, 9000, t, NULL, 0, 0755, 0);
		for (f = 0; f < NFILE; f++) {
			tree_path(s, sizeof(s), src, d, f);
			tree_path(t, sizeof(t), dst, d, f);
			call(g, pid, __NR_newfstatat, 0, 1500, s, NULL, -100, 0, 0x100);
			call(g, pid, __NR_openat, 3, 4000, s, NULL, -100, 0, O_RDONLY);
			call(g, pid, __NR_openat, 4, 12000, t, NULL, -100, 0,
			     O_WRONLY | O_CREAT | O_EXCL);
			call(g, pid, __NR_ioctl, -95, 800, NULL, NULL, 4, 0x40049409, 3);
			call(g, pid, __NR_copy_file_range, 8192 * (f + 1), 30000 * (f + 1), NULL,
			     NULL, 3, -1, 4);
			call(g, pid, __NR_copy_file_range, 0, 1000, NULL, NULL, 3, -1, 4);
			call(g, pid, __NR_fsetxattr, 0, 3000, NULL, "system.posix_acl_access", 4,
			     0, 0);
			call(g, pid, __NR_utimensat, 0, 2500, t, NULL, 4, 0, 0);
			call(g, pid, __NR_close, 0, 900, NULL, NULL, 4, 0, 0);
			call(g, pid, __NR_close, 0, 500, NULL, NULL, 3, 0, 0);
		}
	}
}

static void walk_tree(struct gen *g, int pid, const char *root, int rm, int tar)
{
	char s[256];
	int d, f, k;

	call(g, pid, __NR_openat, 3, 3000, root, NULL, -100, 0, O_RDONLY | O_DIRECTORY);
	call(g, pid, __NR_getdents64, 120, 6000, NULL, NULL, 3, 0, 32768);
	for (d = 0; d < NDIR; d++) {
		tree_path(s, sizeof(s), root, d, -1);
		call(g, pid, __NR_openat, 4, 3000, s, NULL, 3, 0, O_RDONLY | O_DIRECTORY);
		call(g, pid, __NR_getdents64, 200, 7000, NULL, NULL, 4, 0, 32768);
		call(g, pid, __NR_getdents64, 0, 1000, NULL, NULL, 4, 0, 32768);
		for (f = 0; f < NFILE; f++) {
			tree_path(s, sizeof(s), root, d, f);
			call(g, pid, __NR_newfstatat, 0, 1800, s, NULL, 4, 0, 0x100);
			if (rm)
				call(g, pid, __NR_unlinkat, 0, 15000, s, NULL, 4, 0, 0);
			if (tar) {
				call(g, pid, __NR_openat, 5, 4000, s, NULL, 4, 0, O_RDONLY);
				for (k = 0; k <= f; k++)
					call(g, pid, __NR_read, 10240, 20000, NULL, NULL, 5, 0, 10240);
				call(g, pid, __NR_read, 0, 800, NULL, NULL, 5, 0, 10240);
				call(g, pid, __NR_write, 10240 * (f + 1), 25000, NULL, NULL, 1, 0,
				     10240 * (f + 1));
				call(g, pid, __NR_close, 0, 600, NULL, NULL, 5, 0, 0);
			}
		}
		call(g, pid, __NR_close, 0, 600, NULL, NULL, 4, 0, 0);
		if (rm) {
			tree_path(s, sizeof(s), root, d, -1);
			call(g, pid, __NR_unlinkat, 0, 20000, s, NULL, 3, 0, 0x200);
		}
	}
	/* a path that is not there: an error row */
	call(g, pid, __NR_newfstatat, -2, 1200, "/mnt/test/missing", NULL, -100, 0, 0);
	call(g, pid, __NR_close, 0, 600, NULL, NULL, 3, 0, 0);
}

/* The shell runs one command: fork, exec, work, exit, wait. */
static void command(struct gen *g, int root, int pid, const char *const *argv, uint32_t argc)
{
	int64_t t0;

	call(g, root, __NR_clone, pid, 60000, NULL, NULL, 0x1200011, 0, 0);
	proc(g, IOT_PROC_FORK, pid, root, NULL, 0, 0);
	t0 = g->now;
	char exe[64];
	int pct = 30;

	snprintf(exe, sizeof(exe), "/bin/%s", argv[0]);
	call(g, pid, __NR_execve, 0, 150000, exe, NULL, 0, 0, 0);
	proc(g, IOT_PROC_EXEC, pid, root, argv, argc, 0);
	if (strcmp(argv[0], "sync") == 0) {
		call(g, pid, __NR_sync, 0, 4000000, NULL, NULL, 0, 0, 0);
		pct = 2;
	} else if (strcmp(argv[0], "cp") == 0) {
		cp_tree(g, pid, argv[2], argv[3]);
		pct = 34;
	} else if (strcmp(argv[0], "du") == 0) {
		walk_tree(g, pid, argv[1], 0, 0);
		pct = 42;
	} else if (strcmp(argv[0], "rm") == 0) {
		walk_tree(g, pid, argv[2], 1, 0);
		pct = 52;
	} else if (strcmp(argv[0], "tar") == 0) {
		walk_tree(g, pid, argv[2], 0, 1);
		pct = 25;
	}
	call(g, pid, __NR_exit_group, 0, 0, NULL, NULL, 0, 0, 0);
	proc(g, IOT_PROC_EXIT, pid, root, NULL, 0, (g->now - t0) * pct / 100);
	call(g, root, __NR_wait4, pid, g->now - t0, NULL, NULL, pid, 0, 0);
}

static const char *const sh_argv[] = { "sh", "moz.sh" };

static void mozilla(struct gen *g)
{
	static const char *const c1[] = { "cp", "-a", "/home/test/mozilla", "/mnt/test/mozilla" };
	static const char *const c2[] = { "sync" };
	static const char *const c3[] = { "cp", "-a", "mozilla", "mozilla-2" };
	static const char *const c4[] = { "cp", "-a", "mozilla", "mozilla-3" };
	static const char *const c6[] = { "du", "mozilla" };
	static const char *const c7[] = { "rm", "-rf", "mozilla" };
	static const char *const c8[] = { "tar", "c", "mozilla-2" };
	const int root = 1000;

	proc(g, IOT_PROC_START, root, 1, sh_argv, 2, 0);
	call(g, root, __NR_openat, 3, 5000, "/home/test/moz.sh", NULL, -100, 0, O_RDONLY);
	call(g, root, __NR_read, 420, 3000, NULL, NULL, 3, 0, 8192);
	command(g, root, 1001, c1, 4);
	command(g, root, 1002, c2, 1);
	call(g, root, __NR_chdir, 0, 2000, "/mnt/test", NULL, 0, 0, 0);
	command(g, root, 1003, c3, 4);
	command(g, root, 1004, c4, 4);
	command(g, root, 1005, c2, 1);
	command(g, root, 1006, c6, 2);
	command(g, root, 1007, c7, 3);
	command(g, root, 1008, c8, 3);
	command(g, root, 1009, c2, 1);
	call(g, root, __NR_exit_group, 0, 0, NULL, NULL, 0, 0, 0);
	proc(g, IOT_PROC_EXIT, root, 1, NULL, 0, 200000);
}

/* A build with phase marks: the program itself names its phases. */
static void marked(struct gen *g)
{
	static const char *const argv[] = { "make", "all" };
	static const char *const ph[] = { "configure", "compile", "link" };
	int i, k;

	proc(g, IOT_PROC_START, 500, 1, argv, 2, 0);
	for (i = 0; i < 3; i++) {
		struct iot_process p = { .kind = IOT_PROC_PHASE, .t_ns = g->now + 100,
					 .pid = 500, .tid = 500, .argc = 1, .argv = &ph[i] };
		char path[64];

		snprintf(path, sizeof(path), "/dev/null/iotape-phase/%s", ph[i]);
		call(g, 500, __NR_openat, -20, 1000, path, NULL, -100, 0, 0);
		p.t_ns = g->now;
		if (!g->rc && g->w)
			g->rc = iot_writer_process(g->w, &p);
		for (k = 0; k < 5 * (i + 1); k++) {
			call(g, 500, __NR_openat, 3, 3000, "/src/x.c", NULL, -100, 0, 0);
			call(g, 500, __NR_read, 4096, 5000 * (i + 1), NULL, NULL, 3, 0, 4096);
			call(g, 500, __NR_close, 0, 500, NULL, NULL, 3, 0, 0);
		}
	}
	proc(g, IOT_PROC_EXIT, 500, 1, NULL, 0, 900000);
}

struct target {
	const char *file, *label, *fstype, *opts, *mkfs;
	double scale[8];
	double cpu;
	uint64_t df;
};

static uint32_t flush_events = 64;

static void gen_init(struct gen *g, const struct target *tg, int run, uint32_t flag_every)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->now = 1000000000000ll;
	g->rng = 42 + (uint64_t)run;
	g->cpu = tg ? tg->cpu : 1;
	g->noise = tg && run ? 0.03 : 0;
	g->flag_every = flag_every;
	for (i = 0; i < 8; i++)
		g->scale[i] = tg ? tg->scale[i] : 1;
}

static int write_file(const char *dir, const char *file, const struct target *tg, int run,
		      void (*fn)(struct gen *), const char *const *argv, uint32_t argc,
		      uint32_t flag_every)
{
	struct iot_writer_opts o = { .flush_events = flush_events };
	struct iot_header h = { 0 };
	struct iot_kv kv[4];
	char path[1024], el[32], df[32], mm[16], sk[16];
	struct gen g;
	int rc;

	/* a dry run first: a profile's header holds its elapsed time and
	 * replay problems, and the header is written before the events */
	gen_init(&g, tg, run, flag_every);
	if (fn)
		fn(&g);
	snprintf(el, sizeof(el), "%lld", (long long)(g.now - 1000000000000ll));
	snprintf(df, sizeof(df), "%llu", tg ? (unsigned long long)tg->df : 0ull);
	snprintf(mm, sizeof(mm), "%u", flag_every ? g.n / flag_every / 2 : 0);
	snprintf(sk, sizeof(sk), "%u", flag_every ? (g.n / flag_every + 1) / 2 : 0);
	kv[0] = (struct iot_kv){ "replay.elapsed_ns", el };
	kv[1] = (struct iot_kv){ "replay.df_used_bytes", df };
	kv[2] = (struct iot_kv){ "replay.mismatches", mm };
	kv[3] = (struct iot_kv){ "replay.skipped", sk };
	gen_init(&g, tg, run, flag_every);
	snprintf(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "", file);
	h.kind = tg ? IOT_KIND_PROFILE : IOT_KIND_TRACE;
	h.tool_version = "0.1.0";
	h.host = "testhost";
	h.kernel = "6.1.0";
	h.arch = "x86_64";
	h.argc = argc;
	h.argv = argv;
	h.cwd = "/home/test";
	h.clock_id = 1;
	h.realtime_ns = 1700000000000000000ll;
	h.monotonic_ns = g.now;
	h.start_ns = g.now;
	h.recorder = tg ? "replay" : "ptrace+seccomp";
	if (tg) {
		h.target_fstype = tg->fstype;
		h.target_label = tg->label;
		h.target_mount_options = tg->opts;
		h.target_mkfs = tg->mkfs;
		h.target_mountpoint = "/mnt/iotape";
		h.n_extra = 4;
		h.extra = kv;
	}
	rc = iot_writer_open(&g.w, path, &h, &o);
	if (rc < 0) {
		fprintf(stderr, "mk_analyze_traces: %s: %s\n", path, iot_strerror(rc));
		return 1;
	}
	if (fn)
		fn(&g);
	rc = g.rc ? g.rc : iot_writer_close(g.w, 0);
	if (g.rc)
		iot_writer_abort(g.w);
	if (rc < 0) {
		fprintf(stderr, "mk_analyze_traces: %s: %s\n", path, iot_strerror(rc));
		return 1;
	}
	return 0;
}

/* ---- the bench trace: many processes, the usual call mix ---- */

static uint64_t bench_n;

static void bench(struct gen *g)
{
	static const char *const cc[] = { "cc1", "as", "ld", "make", "sh", "cp", "tar", "rm" };
	static const char *const argv0[] = { "make", "-j2" };
	char path[128];
	int pid = 2000, i;

	proc(g, IOT_PROC_START, 1999, 1, argv0, 2, 0);
	while ((uint64_t)g->n < bench_n && !g->rc) {
		const char *const av[] = { cc[pid % 8], "-o", "x" };

		call(g, 1999, __NR_clone, pid, 50000, NULL, NULL, 0, 0, 0);
		proc(g, IOT_PROC_FORK, pid, 1999, NULL, 0, 0);
		proc(g, IOT_PROC_EXEC, pid, 1999, av, 3, 0);
		for (i = 0; i < 1000; i++) {
			snprintf(path, sizeof(path), "/src/dir%d/file%d.c", i % 50, (int)(rnd(g) % 5000));
			switch (rnd(g) % 8) {
			case 0: call(g, pid, __NR_openat, 3, 3000 + rnd(g) % 9000, path, NULL, -100, 0, 0); break;
			case 1: call(g, pid, __NR_newfstatat, 0, 1000 + rnd(g) % 3000, path, NULL, -100, 0, 0); break;
			case 2: case 3: call(g, pid, __NR_read, 4096, 1500 + rnd(g) % 30000, NULL, NULL, 3, 0, 4096); break;
			case 4: call(g, pid, __NR_write, 4096, 3000 + rnd(g) % 60000, NULL, NULL, 4, 0, 4096); break;
			case 5: call(g, pid, __NR_close, 0, 500 + rnd(g) % 1000, NULL, NULL, 3, 0, 0); break;
			case 6: call(g, pid, __NR_getdents64, 512, 5000 + rnd(g) % 20000, NULL, NULL, 3, 0, 0); break;
			default: call(g, pid, __NR_unlinkat, rnd(g) % 7 ? 0 : -2, 8000 + rnd(g) % 50000, path, NULL, 3, 0, 0); break;
			}
		}
		proc(g, IOT_PROC_EXIT, pid, 1999, NULL, 0, 3000000);
		call(g, 1999, __NR_wait4, pid, 100000, NULL, NULL, pid, 0, 0);
		pid++;
	}
}

/* ---- many short processes: what a trace of a shell loop holds ---- */

static uint64_t procs_n;

/* A shell runs a subshell (its one top-level command) that runs N short
 * commands one after the other: each is forked, closes a descriptor
 * before its exec (counted under the command it execs), execs one of
 * four commands, makes two calls and exits.  Pids are never reused. */
static void procs(struct gen *g)
{
	static const char *const sh[] = { "sh", "loop.sh" };
	static const char *const cmds[][2] = { { "/bin/true", "x" }, { "/usr/bin/cc1", "x" },
					       { "/usr/bin/as", "x" }, { "/usr/bin/ld", "x" } };
	uint64_t i;
	int pid;

	proc(g, IOT_PROC_START, 100, 1, sh, 2, 0);
	call(g, 100, __NR_clone, 101, 50000, NULL, NULL, 0, 0, 0);
	proc(g, IOT_PROC_FORK, 101, 100, NULL, 0, 0);
	for (i = 0; i < procs_n && !g->rc; i++) {
		pid = 1000 + (int)i;
		call(g, 101, __NR_clone, pid, 40000, NULL, NULL, 0, 0, 0);
		proc(g, IOT_PROC_FORK, pid, 101, NULL, 0, 0);
		call(g, pid, __NR_close, 0, 800, NULL, NULL, 3, 0, 0);
		proc(g, IOT_PROC_EXEC, pid, 101, cmds[i % 4], 2, 0);
		call(g, pid, __NR_openat, 3, 3000, "/etc/ld.so.cache", NULL, -100, 0, 0);
		call(g, pid, __NR_read, 832, 2000, NULL, NULL, 3, 0, 832);
		proc(g, IOT_PROC_EXIT, pid, 101, NULL, 0, 500000);
		call(g, 101, __NR_wait4, pid, 60000, NULL, NULL, pid, 0, 0);
	}
	proc(g, IOT_PROC_EXIT, 101, 100, NULL, 0, 1000000);
	call(g, 100, __NR_wait4, 101, 60000, NULL, NULL, 101, 0, 0);
	proc(g, IOT_PROC_EXIT, 100, 1, NULL, 0, 1000000);
}

/* ---- many top-level commands: a script of N lines ---- */

static uint64_t commands_n;

/* The shell itself forks each of N commands one after the other (each a
 * phase): even ones run cc1 or as, odd ones a tool of their own name
 * (N / 2 commands); each opens and reads a file, and every 2000th (from
 * the 8th) syncs for 5 ms too: the longest.  Pids are never reused. */
static void commands(struct gen *g)
{
	static const char *const sh[] = { "sh", "build.sh" };
	char name[64], arg[64];
	uint64_t i;
	int pid;

	proc(g, IOT_PROC_START, 100, 1, sh, 2, 0);
	for (i = 0; i < commands_n && !g->rc; i++) {
		const char *const av[] = { name, arg };

		pid = 1000 + (int)i;
		if (i % 2)
			snprintf(name, sizeof(name), "/opt/tools/tool%llu", (unsigned long long)i);
		else
			snprintf(name, sizeof(name), "/usr/bin/%s", i % 4 ? "as" : "cc1");
		snprintf(arg, sizeof(arg), "file%llu.c", (unsigned long long)i);
		call(g, 100, __NR_clone, pid, 40000, NULL, NULL, 0, 0, 0);
		proc(g, IOT_PROC_FORK, pid, 100, NULL, 0, 0);
		proc(g, IOT_PROC_EXEC, pid, 100, av, 2, 0);
		call(g, pid, __NR_openat, 3, 3000, "/etc/ld.so.cache", NULL, -100, 0, 0);
		call(g, pid, __NR_read, 832, 2000, NULL, NULL, 3, 0, 832);
		if (i % 2000 == 7)
			call(g, pid, __NR_sync, 0, 5000000, NULL, NULL, 0, 0, 0);
		proc(g, IOT_PROC_EXIT, pid, 100, NULL, 0, 500000);
		call(g, 100, __NR_wait4, pid, 60000, NULL, NULL, pid, 0, 0);
	}
	proc(g, IOT_PROC_EXIT, 100, 1, NULL, 0, 1000000);
}

static const struct target targets[] = {
	{ "moz-ext4.iotape", "ext4", "ext4", "rw,relatime", "mkfs.ext4 -F -q",
	  { 1, 1, 1, 1, 1, 1, 1, 1 }, 1.0, 3407872 },
	{ "moz-xfs.%d.iotape", "xfs", "xfs", "rw,relatime,attr2", "mkfs.xfs -f -q",
	  { 1.6, 0.9, 1.3, 2.2, 0.4, 1.8, 1.0, 1.0 }, 1.2, 3670016 },
	{ "moz-btrfs-errors.iotape", "btrfs", "btrfs", "rw,relatime,space_cache=v2",
	  "mkfs.btrfs -f -q", { 1.2, 1.1, 0.7, 1.1, 2.5, 1.0, 1.0, 1.0 }, 1.5, 4194304 },
};

int main(int argc, char **argv)
{
	static const char *const other[] = { "sh", "other.sh" };
	char name[64];
	int rc = 0, run;

	if (argc == 4 && strcmp(argv[1], "--bench") == 0) {
		bench_n = strtoull(argv[3], NULL, 10);
		return write_file(argv[2][0] == '/' ? "" : ".", argv[2], NULL, 0, bench, NULL, 0, 0);
	}
	if (argc == 4 && strcmp(argv[1], "--procs") == 0) {
		procs_n = strtoull(argv[3], NULL, 10);
		flush_events = 8192;
		return write_file(argv[2][0] == '/' ? "" : ".", argv[2], NULL, 0, procs, NULL, 0, 0);
	}
	if (argc == 4 && strcmp(argv[1], "--commands") == 0) {
		commands_n = strtoull(argv[3], NULL, 10);
		flush_events = 8192;
		return write_file(argv[2][0] == '/' ? "" : ".", argv[2], NULL, 0, commands, NULL, 0,
				  0);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: mk_analyze_traces DIR | --bench FILE N | --procs FILE N | "
			"--commands FILE N\n");
		return 2;
	}
	rc |= write_file(argv[1], "moz.iotape", NULL, 0, mozilla, sh_argv, 2, 0);
	rc |= write_file(argv[1], "moz-ext4.iotape", &targets[0], 0, mozilla, sh_argv, 2, 0);
	for (run = 1; run <= 3; run++) {
		snprintf(name, sizeof(name), "moz-xfs.%d.iotape", run);
		rc |= write_file(argv[1], name, &targets[1], run, mozilla, sh_argv, 2, 0);
	}
	rc |= write_file(argv[1], "moz-btrfs-errors.iotape", &targets[2], 0, mozilla, sh_argv, 2,
			 97);
	rc |= write_file(argv[1], "marks.iotape", NULL, 0, marked, NULL, 0, 0);
	rc |= write_file(argv[1], "empty.iotape", NULL, 0, NULL, other, 2, 0);
	rc |= write_file(argv[1], "other.iotape", NULL, 0, marked, other, 2, 0);
	return rc;
}
