/*
 * validate_run.c - the runs of 'iotape validate': the recording, the native
 * runs and the replays, each on a filesystem made for it.
 *
 * The loop filesystems are bench's (bench_setup()/bench_teardown() in
 * bench_fs.c), and a replay *is* 'iotape bench' of one configuration, run
 * as a child of this binary: what validate measures is exactly what a user
 * who trusts a bench gets.  Every program runs in a process group of its
 * own, so a signal to validate reaches all of a workload's processes
 * (forwarded here, not from the terminal), and whatever of it is still
 * alive when its first process exits is killed: nothing may hold the
 * filesystem when it is unmounted.
 *
 * Native phases: the workload marks the start of each phase as it does for
 * the recording (a path under /dev/null/iotape-phase/NAME) and, when
 * $IOTAPE_PHASE_LOG is set - native runs only - writes the line "NAME" to
 * it, a FIFO whose lines are stamped as they come (validate_marks.c).  The
 * native run cannot see its own phase marks: untraced, they are failed
 * lookups that leave no record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../analyze/ana.h"
#include "engine.h"
#include "iotape.h"
#include "validate_run.h"

#define CMD "validate"

static volatile sig_atomic_t stop_sig;
static volatile pid_t child_pgid;

static void on_signal(int sig)
{
	stop_sig = sig;
	if (child_pgid > 0)
		kill(-child_pgid, sig);
}

void val_signals(void)
{
	bench_catch_signals(on_signal);
}

int val_stopped(void)
{
	return stop_sig;
}

double val_real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int val_proc_io(pid_t pid, double io[ANA_VAL_IO_N])
{
	static const char *const key[ANA_VAL_IO_N] = { "syscr:", "syscw:", "rchar:", "wchar:" };
	char line[128], path[64];
	int i, got = 0;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/io");
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < ANA_VAL_IO_N; i++)
			if (strncmp(line, key[i], strlen(key[i])) == 0) {
				io[i] = strtod(line + strlen(key[i]), NULL);
				got |= 1 << i;
			}
	fclose(f);
	return got == (1 << ANA_VAL_IO_N) - 1 ? 0 : -1;
}

pid_t val_running(void)
{
	return child_pgid;
}

/* Add to @io the counts of @pid and of its live descendants: each
 * process's own, with those of the children it reaped (a live child's
 * are its own, not yet its parent's).  @budget: processes left to read,
 * so that a fork storm cannot hold the caller.  @return : whether @pid's
 * were read. */
static int tree_io(pid_t pid, double io[ANA_VAL_IO_N], int depth, int *budget)
{
	double one[ANA_VAL_IO_N];
	char path[64], buf[4096];
	struct dirent *d;
	DIR *dir;
	int k;

	if (--*budget < 0 || depth > 64 || val_proc_io(pid, one) < 0)
		return 0;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		io[k] += one[k];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return 1;
	while ((d = readdir(dir))) {
		char *p, *end;
		ssize_t n;
		int fd;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, d->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		for (p = buf;; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			if (c > 0)
				tree_io((pid_t)c, io, depth + 1, budget);
		}
	}
	closedir(dir);
	return 1;
}

int val_tree_io(pid_t pid, double io[ANA_VAL_IO_N])
{
	int k, budget = 4096;

	for (k = 0; k < ANA_VAL_IO_N; k++)
		io[k] = 0;
	return tree_io(pid, io, 0, &budget) ? 0 : -1;	/* none read: @pid is gone */
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Run @argv in @cwd in a process group of its own, with $IOTAPE_PHASE_LOG
 * set to @log (NULL: unset) and standard output to /dev/null if @mute;
 * @self: argv[0] is this binary; the CPU time it and the children it
 * waited for used, and that of the processes it left to end on their own
 * (this process is their subreaper: cmd_validate()), into *@cpu (seconds;
 * may be NULL); their read and write calls and bytes into @io (may be
 * NULL; NAN where not counted): all of them end as this process's
 * children or their children, and a process's counts go to its parent's
 * when it is reaped.  @return : its status as a shell gives it (128+N
 * for signal N), or -errno. */
static int spawn(char **argv, const char *cwd, const char *log, int mute, int self,
		 double *cpu, double *user, double *io)
{
	double io0[ANA_VAL_IO_N], io1[ANA_VAL_IO_N];
	int io_ok = 0, i;
	struct rusage ru;
	char exe[PATH_MAX];
	int status, fd;
	ssize_t n;
	pid_t pid;

	if (self) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0)
			return -errno;
		exe[n] = 0;
		argv[0] = exe;
	}
	fflush(NULL);
	if (io) {
		for (i = 0; i < ANA_VAL_IO_N; i++)
			io[i] = NAN;
		io_ok = val_proc_io(0, io0) == 0;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		setpgid(0, 0);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		if (log)
			setenv("IOTAPE_PHASE_LOG", log, 1);
		else
			unsetenv("IOTAPE_PHASE_LOG");
		if (mute && (fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* both sides set the group: a signal may come before the child ran */
	setpgid(pid, pid);
	child_pgid = pid;
	if (stop_sig)
		kill(-pid, stop_sig);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			child_pgid = 0;
			return -errno;
		}
	if (cpu) {
		*user = tv_s(&ru.ru_utime);
		*cpu = *user + tv_s(&ru.ru_stime);
	}
	/* What it left running (a server started as a daemon: orphaned, it
	 * came to this process, the subreaper) is its work too, as a
	 * recording follows every process to its end and a replay replays
	 * them: waited for, its CPU time counted. */
	while (!stop_sig) {
		int st;
		struct rusage ro;

		if (wait4(-1, &st, 0, &ro) < 0) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: none left */
		}
		if (cpu) {
			*user += tv_s(&ro.ru_utime);
			*cpu += tv_s(&ro.ru_utime) + tv_s(&ro.ru_stime);
		}
	}
	child_pgid = 0;
	kill(-pid, SIGKILL);	/* what it left running would keep the mount busy */
	if (io_ok && val_proc_io(0, io1) == 0)
		for (i = 0; i < ANA_VAL_IO_N; i++)
			io[i] = io1[i] - io0[i];
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void val_workdir(const struct bench_live *l, const char *record_on, char *dir, size_t len)
{
	snprintf(dir, len, "%s/mnt-%s/work", l->workdir, record_on);
}

/* The starting state in @dir: --setup, or an empty directory. */
static int start_state(const struct val_opts *o, const struct bench_live *l, const char *dir)
{
	int rc;

	/* a --setup that fails is the user's to mend, not a failure of ours */
	if (o->setup)
		return (rc = bench_run_setup(l, o->setup, dir)) == -EIO ? -ECANCELED : rc;
	rc = bench_mkdir_p(dir);
	if (rc < 0)
		iot_err(CMD, "cannot create %s: %s", dir, strerror(-rc));
	return rc;
}

static void config_of(struct bench_config *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fs = bench_find_fs(name);
}

int val_record(const struct val_opts *o, struct bench_live *l, const char *trace,
	       const char *workdir, uint64_t *used, struct val_times *t)
{
	char *av[8 + 256];
	struct bench_opts bo;
	struct bench_config c;
	struct statvfs sv;
	char desc[1024];
	int rc, rc2, ac = 0, i;

	memset(t, 0, sizeof(*t));
	memset(&bo, 0, sizeof(bo));
	bo.image_size = o->record_size;
	config_of(&c, o->record_on);
	rc = bench_setup(l, &bo, &c, desc, sizeof(desc));
	if (rc < 0 || stop_sig)
		goto out;
	rc = start_state(o, l, workdir);
	if (rc < 0 || stop_sig)
		goto out;
	sync();
	if (o->cold)
		bench_drop_caches();
	av[ac++] = NULL;
	av[ac++] = (char *)"record";
	av[ac++] = (char *)"-q";
	if (o->backend) {
		av[ac++] = (char *)"--backend";
		av[ac++] = (char *)o->backend;
	}
	av[ac++] = (char *)"-o";
	av[ac++] = (char *)trace;
	av[ac++] = (char *)"--";
	for (i = 0; o->cmd[i] && ac < (int)(sizeof(av) / sizeof(av[0])) - 1; i++)
		av[ac++] = o->cmd[i];
	av[ac] = NULL;
	rc = spawn(av, workdir, NULL, 0, 1, NULL, NULL, NULL);
	if (rc < 0) {
		iot_err(CMD, "cannot run 'iotape record': %s", strerror(-rc));
		goto out;
	}
	t->status = rc;
	rc = 0;
	if (statvfs(l->mnt, &sv) == 0)
		*used = (uint64_t)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
out:
	rc2 = bench_teardown(l, &bo);
	return rc < 0 ? rc : rc2;
}

int val_native(const struct val_opts *o, struct bench_live *l, const struct bench_config *c,
	       const char *workdir, const char *log, struct val_times *t)
{
	struct bench_opts bo;
	char desc[1024], dir[2 * PATH_MAX];
	struct val_marks *marks;
	double t0, t1, len;
	int rc, rc2, i;

	memset(t, 0, sizeof(*t));
	memset(&bo, 0, sizeof(bo));
	bo.image_size = o->image_size;
	rc = bench_setup(l, &bo, c, desc, sizeof(desc));
	if (rc < 0 || stop_sig)
		goto out;
	/* the replay works at ROOT/WORKDIR: so does the native run */
	snprintf(dir, sizeof(dir), "%s%s", l->root, workdir);
	rc = start_state(o, l, dir);
	if (rc < 0 || stop_sig)
		goto out;
	sync();
	if (o->cold)
		bench_drop_caches();
	rc = val_marks_open(&marks, log, t);
	if (rc < 0) {
		iot_err(CMD, "cannot make the phase marks' FIFO %s: %s", log, strerror(-rc));
		goto out;
	}
	t->cpu = t->cpu_user = NAN;
	t0 = val_real_now();
	rc = spawn(o->cmd, dir, log, 0, 0, &t->cpu, &t->cpu_user, t->io);
	t1 = val_real_now();
	val_marks_close(marks, t0);
	/* each mark: the workload's write of its line, this process's read
	 * of it (one at most) */
	for (i = 0, len = 0; i < t->n; i++) {
		len += (double)strlen(t->name[i]) + 1;
		if (!isnan(t->io[0])) {
			t->io[ANA_VAL_IO_READS] = fmax(0, t->io[ANA_VAL_IO_READS] - 1);
			t->io[ANA_VAL_IO_WRITES] = fmax(0, t->io[ANA_VAL_IO_WRITES] - 1);
			t->io[ANA_VAL_IO_RBYTES] = fmax(0, t->io[ANA_VAL_IO_RBYTES] - len);
			t->io[ANA_VAL_IO_WBYTES] = fmax(0, t->io[ANA_VAL_IO_WBYTES] - len);
		}
		/* the command's processes' count at the mark (val_tree_io()),
		 * the mark's write among them (not its read) */
		if (!isnan(t->mark_io[i][0])) {
			t->mark_io[i][ANA_VAL_IO_WRITES] = fmax(0, t->mark_io[i][ANA_VAL_IO_WRITES] -
							      (i + 1));
			t->mark_io[i][ANA_VAL_IO_WBYTES] = fmax(0, t->mark_io[i][ANA_VAL_IO_WBYTES] - len);
		}
	}
	if (rc < 0) {
		iot_err(CMD, "cannot run %s: %s", o->cmd[0], strerror(-rc));
		goto out;
	}
	t->status = rc;
	t->total = t1 - t0;
	rc = 0;
out:
	rc2 = bench_teardown(l, &bo);
	return rc < 0 ? rc : rc2;
}

int val_replay(const struct val_opts *o, const char *fs, const char *trace,
	       const char *profdir, const char *timing)
{
	char size[32];
	char *av[24];
	int ac = 0, rc;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)o->image_size);
	av[ac++] = NULL;
	av[ac++] = (char *)"bench";
	av[ac++] = (char *)trace;
	av[ac++] = (char *)"--fs";
	av[ac++] = (char *)fs;
	av[ac++] = (char *)"--image-size";
	av[ac++] = size;
	av[ac++] = (char *)"--scratch";
	av[ac++] = (char *)o->scratch;
	av[ac++] = (char *)"-o";
	av[ac++] = (char *)profdir;
	av[ac++] = (char *)"-q";
	if (!o->cold)
		av[ac++] = (char *)"--no-drop-caches";
	if (timing) {
		av[ac++] = (char *)"--timing";
		av[ac++] = (char *)timing;
	}
	if (o->setup) {
		av[ac++] = (char *)"--setup";
		av[ac++] = (char *)o->setup;
	}
	av[ac] = NULL;
	/* bench prints the profile's report: the table here replaces it */
	rc = spawn(av, NULL, NULL, 1, 1, NULL, NULL, NULL);
	if (rc < 0)
		iot_err(CMD, "cannot run 'iotape bench': %s", strerror(-rc));
	return rc;
}

int val_replay_times(const char *fs, const char *profdir, struct val_times *t)
{
	char prof[PATH_MAX + 64];
	int rc;

	snprintf(prof, sizeof(prof), "%s/%s.1.iotape", profdir, fs);
	rc = val_trace_times(prof, t, 0);
	if (rc < 0)
		iot_err(CMD, "%s: cannot read the replay's profile %s", fs, prof);
	return rc;
}

/* What the kernel counts in syscr and rchar (the read family: what
 * vfs_read(), vfs_readv() and the copies count), syscw and wchar (the
 * write family). */
static const char *const io_reads[] = { "read", "pread64", "readv", "preadv", "preadv2",
					"sendfile", "copy_file_range", NULL };
static const char *const io_writes[] = { "write", "pwrite64", "writev", "pwritev", "pwritev2",
					 "sendfile", "copy_file_range", NULL };

static int named(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* @a's execs into @t */
static void trace_execs(const struct ana_trace *a, struct val_times *t)
{
	size_t nr;

	t->execs = 0;
	for (nr = 0; nr < ANA_MAX_NR; nr++) {
		const struct ana_stat *st = &a->sys[nr];
		const char *name = a->sc[nr] ? a->sc[nr]->name : NULL;

		if (name && (!strcmp(name, "execve") || !strcmp(name, "execveat")))
			t->execs += (double)(st->count - st->errors);
	}
}

/* the bucket of a call that began at @t: how many of the @n marks @m
 * (ascending) began at or before it */
static int bucket_of(const int64_t *m, int n, int64_t t)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (m[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* @a's reads and writes into t->io, and at each mark into t->mark_io:
 * those of the calls that began before it (the marks at @m, monotonic
 * ns), read from @path again.  The kernel counts a call that reached the
 * file (a read that would block included, an EBADF or EXDEV not): here,
 * one that succeeded; a copy (copy_file_range, sendfile) that moved
 * something (at its source's end it returns 0 uncounted). */
static int trace_mark_io(const char *path, const struct ana_trace *a, const int64_t *m,
			 struct val_times *t)
{
	double (*b)[ANA_VAL_IO_N] = calloc((size_t)t->n + 1, sizeof(*b));
	uint8_t fam[ANA_MAX_NR];
	struct iot_reader *r;
	struct iot_item it;
	int i, k, n, rc;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < ANA_MAX_NR; i++) {
		const char *name = a->sc[i] ? a->sc[i]->name : NULL;

		fam[i] = name ? (uint8_t)(named(io_reads, name) | named(io_writes, name) << 1 |
					  (!strcmp(name, "sendfile") ||
					   !strcmp(name, "copy_file_range")) << 2) : 0;
	}
	rc = iot_reader_open(&r, path);
	if (rc < 0) {
		free(b);
		return rc;
	}
	while ((n = iot_reader_next(r, &it)) > 0) {
		const struct iot_event *ev = &it.u.ev;
		double bytes;

		if (it.kind != IOT_ITEM_EVENT || ev->nr < 0 || ev->nr >= ANA_MAX_NR ||
		    !fam[ev->nr] || ev->ret < 0 || (ev->flags & IOT_EV_UNFINISHED) ||
		    ((fam[ev->nr] & 4) && ev->ret == 0))
			continue;
		i = bucket_of(m, t->n, ev->t_enter);
		bytes = (double)ev->ret;
		if (fam[ev->nr] & 1) {
			b[i][ANA_VAL_IO_READS]++;
			b[i][ANA_VAL_IO_RBYTES] += bytes;
		}
		if (fam[ev->nr] & 2) {
			b[i][ANA_VAL_IO_WRITES]++;
			b[i][ANA_VAL_IO_WBYTES] += bytes;
		}
	}
	iot_reader_close(r);
	for (k = 0; k < ANA_VAL_IO_N; k++)
		t->io[k] = 0;
	for (i = 0; i <= t->n; i++)
		for (k = 0; k < ANA_VAL_IO_N; k++) {
			if (i < t->n)
				t->mark_io[i][k] = b[i][k] + (i ? t->mark_io[i - 1][k] : 0);
			t->io[k] += b[i][k];
		}
	free(b);
	return n < 0 ? n : 0;
}

int val_trace_times(const char *path, struct val_times *t, int io)
{
	int64_t m[VAL_MAX_PHASES];
	struct ana_trace a;
	double origin;
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	t->cpu = t->cpu_user = NAN;
	for (i = 0; i < ANA_VAL_IO_N; i++)
		t->io[i] = NAN;
	memset(&a, 0, sizeof(a));
	rc = ana_load(&a, path);
	if (rc < 0)
		return rc;
	if (a.has_cpu) {
		t->cpu = (double)a.cpu_ns / 1e9;
		t->cpu_user = (double)a.utime_ns / 1e9;
	}
	/* the run starts real_ns before its last event: the last phase then
	 * ends with it, and the time before the first mark is the rest */
	t->total = (double)a.real_ns / 1e9;
	t->bpf = a.kernel_timed;
	t->mismatches = a.has_hdr_mismatches ? a.hdr_mismatches : a.ev_mismatches;
	t->skipped = a.has_hdr_skipped ? a.hdr_skipped : a.ev_skipped;
	t->skipped_mmap = a.hdr_skipped_mmap;
	trace_execs(&a, t);
	origin = (double)a.t_last / 1e9 - t->total;
	/* phase marks only: top-level commands are not timed natively */
	for (i = 0; a.marks && i + 1 < a.n_phases && t->n < VAL_MAX_PHASES; i++) {
		snprintf(t->name[t->n], sizeof(t->name[t->n]), "%.63s", a.phases[i].name);
		m[t->n] = a.phases[i].start;
		t->start[t->n++] = (double)a.phases[i].start / 1e9 - origin;
	}
	/* its reads and writes: unknown (NAN) if not asked for (a replay's
	 * profile) or if the trace cannot be read again, as it just was */
	if (!io || trace_mark_io(path, &a, m, t) < 0) {
		t->io[0] = NAN;
		for (i = 0; i < (size_t)t->n; i++)
			t->mark_io[i][0] = NAN;
	}
	ana_trace_free(&a);
	return 0;
}

int val_trace_cwd(const char *path, char *dir, size_t len)
{
	const struct iot_header *h;
	struct iot_reader *r;
	int rc;

	rc = iot_reader_open(&r, path);
	if (rc < 0)
		return rc;
	h = iot_reader_header(r);
	snprintf(dir, len, "%s", h && h->cwd ? h->cwd : "/");
	iot_reader_close(r);
	return 0;
}
