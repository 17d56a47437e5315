/*
 * setup.c - what the recorder prepares before the program runs: the
 * seccomp filter, the calibrated cost of one ptrace stop, CPU pinning and
 * the trace header.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"
#include "engine.h"

#define CALIB_N 40	/* calls a round: 80 stops, ~0.5 ms */
#define MAX_FILTER 512

/*
 * The filter: x86_64 calls in the table stop the tracee (RET_TRACE); the
 * rest, and anonymous mmap, run at native speed.  32-bit (int 0x80) and
 * x32 calls are let through unrecorded: the table is x86_64's.  With the
 * fast path, calls made from its stub (@fast_ip, the address after its
 * `syscall` instruction) are already logged in-process: they run too.
 */
int rec_filter_arch(struct sock_filter *f)
{
	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					    offsetof(struct seccomp_data, arch));
	f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return 3;
}

int rec_seccomp_filter(struct sock_filter *f, size_t max, uint64_t fast_ip)
{
	const struct iot_syscall *tab;
	size_t n, i, k = 0;

	tab = iot_syscall_table(&n);
	if (2 * n + 20 > max)
		return -E2BIG;
	k += (size_t)rec_filter_arch(f);
	if (fast_ip) {
		/* the 64-bit pointer as two 32-bit words (x86_64: low first);
		 * a mismatch of either half skips to the nr test */
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, instruction_pointer));
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)fast_ip, 0, 3);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, instruction_pointer) + 4);
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)(fast_ip >> 32), 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	/* mmap: trace only file mappings (MAP_ANONYMOUS clear), and with the
	 * fast path also MAP_FIXED ones, which may land on its rings.
	 * Not mmap: skip the mmap test (4 instructions, 5 with MAP_FIXED). */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0,
					      fast_ip ? 5 : 4);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[3]));
	if (fast_ip)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						      MAP_FIXED, 2, 0);
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
					      MAP_ANONYMOUS, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	for (i = 0; i < n; i++) {
		if (tab[i].nr == SYS_mmap)
			continue;
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)tab[i].nr, 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return (int)k;
}

int rec_seccomp_install(uint64_t fast_ip)
{
	struct sock_filter f[MAX_FILTER];
	struct sock_fprog prog;
	int k = rec_seccomp_filter(f, MAX_FILTER, fast_ip);

	if (k < 0)
		return k;
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

static int cputime_precise(void);

/* What a stopped call costs the traced thread in CPU time (the kernel's
 * work for its two stops), from the last calibration; -1 if unknown. */
static int64_t stop_cpu_ns = -1;

int64_t rec_stop_cpu(void)
{
	return stop_cpu_ns;
}

/*
 * The calibration runs CALIB_ROUNDS rounds of CALIB_N calls, traced and
 * untraced, and keeps the median round of each: a single mean took in
 * whatever else the round met, and on a loaded machine, or just after
 * the page cache was dropped (validate's cold recordings), the untraced
 * loop's one page fault or interrupt outweighed 400 stops and the stop's
 * CPU cost came out 0.  A first untraced round warms the code up.
 */
#define CALIB_ROUNDS 9

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v[@n] (sorted in place); -1 if any is unknown. */
static int64_t median_of(int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] < 0)
			return -1;
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

/* One round of CALIB_N close(-1): its wall time into @wall[@k], the
 * calling thread's CPU time into @cpu[@k] (-1: unknown). */
static void calib_round(int64_t *wall, int64_t *cpu, int k)
{
	int64_t t0, c0 = iot_thread_cpu_ns(), c1;
	int i;

	t0 = iot_now_ns();
	for (i = 0; i < CALIB_N; i++)
		syscall(SYS_close, -1);
	wall[k] = iot_now_ns() - t0;
	c1 = iot_thread_cpu_ns();
	cpu[k] = c0 >= 0 && c1 >= c0 ? c1 - c0 : -1;
}

/* r[0]: -2 if the filter could not be installed; then the rounds' wall
 * times, then their CPU times. */
static void calib_child(int go, int res, int seccomp)
{
	int64_t r[1 + 2 * CALIB_ROUNDS] = { 0 };
	char b;
	int k;

	if (read(go, &b, 1) != 1)
		_exit(1);
	if (seccomp && rec_seccomp_install(0) < 0) {
		r[0] = -2;
		goto out;
	}
	for (k = 0; k < CALIB_ROUNDS; k++)
		calib_round(r + 1, r + 1 + CALIB_ROUNDS, k);
out:
	if (write(res, r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

/* Drive a traced child until it ends: with the filter, each call it
 * lets through stops at entry and exit, the same two stops a recorded
 * call costs; without, every call does.  @return : the calls stopped. */
static long calib_trace(pid_t pid, int seccomp, struct rusage *ru)
{
	long calls = 0;
	int status;

	for (;;) {
		struct __ptrace_syscall_info info;
		int sig = 0, req = seccomp ? PTRACE_CONT : PTRACE_SYSCALL;
		int ev;

		if (wait4(pid, &status, __WALL, ru) < 0 || !WIFSTOPPED(status))
			return calls;
		ev = status >> 16;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) || ev == PTRACE_EVENT_SECCOMP) {
			ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info);
			if (info.op != PTRACE_SYSCALL_INFO_EXIT) {
				calls++;
				req = PTRACE_SYSCALL;
			}
		} else if (ev == 0 && WSTOPSIG(status) != SIGTRAP) {
			sig = WSTOPSIG(status);
		}
		ptrace(req, pid, 0, sig);
	}
}

/* Seize @pid, stopping at every call unless @seccomp; 0 or -1. */
static int calib_seize(pid_t pid, int seccomp, unsigned opts)
{
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
		   PTRACE_O_TRACESECCOMP | opts) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (!seccomp) {
		/* without the filter, stop at every syscall */
		ptrace(PTRACE_INTERRUPT, pid, 0, 0);
		if (waitpid(pid, &status, __WALL) == pid && WIFSTOPPED(status))
			ptrace(PTRACE_SYSCALL, pid, 0, 0);
	}
	return 0;
}

int64_t rec_calibrate(int seccomp, int *seccomp_ok)
{
	int go[2] = { -1, -1 }, res[2] = { -1, -1 };
	int64_t r[1 + 2 * CALIB_ROUNDS] = { -1 }, wall[CALIB_ROUNDS], cpu[CALIB_ROUNDS];
	int64_t native = 0, native_cpu = -1, traced, traced_cpu;
	pid_t pid;
	int i;

	*seccomp_ok = 0;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0)
		goto out;
	/* what the same calls cost untraced, on this CPU */
	calib_round(wall, cpu, 0);
	for (i = 0; i < CALIB_ROUNDS; i++)
		calib_round(wall, cpu, i);
	native = median_of(wall, CALIB_ROUNDS);
	native_cpu = median_of(cpu, CALIB_ROUNDS);
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0)
		calib_child(go[0], res[1], seccomp);
	close(go[0]);
	close(res[1]);
	go[0] = res[1] = -1;
	if (calib_seize(pid, seccomp, 0) < 0)
		goto out;
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	calib_trace(pid, seccomp, NULL);
	while (waitpid(pid, NULL, __WALL) > 0)
		;
	if (read(res[0], r, sizeof(r)) != sizeof(r))
		r[0] = -1;
out:
	for (i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (res[i] >= 0)
			close(res[i]);
	}
	if (r[0] < 0)
		return r[0] == -2 ? 0 : -1;
	*seccomp_ok = seccomp;
	traced = median_of(r + 1, CALIB_ROUNDS);
	traced_cpu = median_of(r + 1 + CALIB_ROUNDS, CALIB_ROUNDS);
	stop_cpu_ns = -1;
	if (traced_cpu >= 0 && native_cpu >= 0 && cputime_precise())
		stop_cpu_ns = traced_cpu > native_cpu ? (traced_cpu - native_cpu) / CALIB_N : 0;
	if (traced <= native)
		return 0;
	return (traced - native) / (2 * CALIB_N);
}

/*
 * What a process's start costs it in CPU time when traced, beyond an
 * untraced start and the stops of its calls: the exec's event stop, the
 * tracer's hold on a new process, caches and TLB it finds used.  A script
 * of short processes pays it once each (configure: 432 of them), and
 * the replay's budget takes it off each program (replay/budget.c).
 * Measured on the smallest program at hand, PROC_ROUNDS starts untraced
 * and traced (with the fast path's library preloaded, if on) in turn;
 * medians of their CPU time (the exit's rusage: the scheduler's run time,
 * to the microsecond).  The stops of its calls, at the calibrated
 * stop_cpu_ns each, are the budget's already (not those of the loader's
 * work for the library, whose calls the trace does not hold); the
 * library's loading is in it, its start (pre_ns) is not: without the
 * recorder's shared memory it stops at once.
 */
#define PROC_ROUNDS 5

static int64_t proc_cpu_ns = -1;

int64_t rec_proc_cpu(void)
{
	return proc_cpu_ns;
}

static const char *const tiny_progs[] = { "/bin/true", "/usr/bin/true", NULL };

/* One start of @prog, traced or not: its CPU time in ns (-1: failed),
 * the calls it stopped at into @calls. */
static int64_t proc_round(const char *prog, int traced, int seccomp, const char *preload,
			  long *calls)
{
	int go[2];
	struct rusage ru;
	int status;
	int64_t ns = -1;
	pid_t pid;
	char b;

	*calls = 0;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char *const av[] = { (char *)prog, NULL };

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		close(go[0]);
		if (traced && seccomp && rec_seccomp_install(0) < 0)
			_exit(126);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		execv(prog, av);
		_exit(127);
	}
	close(go[0]);
	if (pid < 0 || (traced && calib_seize(pid, seccomp, PTRACE_O_TRACEEXEC) < 0)) {
		close(go[1]);
		return -1;
	}
	memset(&ru, 0, sizeof(ru));
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	if (traced) {
		*calls = calib_trace(pid, seccomp, &ru);
		status = 0;
	} else if (wait4(pid, &status, 0, &ru) != pid) {
		return -1;
	}
	if (status == 0)
		ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
		     ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	return ns;
}

void rec_calibrate_proc(int seccomp, const char *preload)
{
	int64_t plain[PROC_ROUNDS], traced[PROC_ROUNDS], mp, mt, excess;
	const char *prog = NULL;
	long n, calls = 0;
	int i;

	proc_cpu_ns = -1;
	for (i = 0; tiny_progs[i] && !prog; i++)
		if (access(tiny_progs[i], X_OK) == 0)
			prog = tiny_progs[i];
	if (!prog || stop_cpu_ns < 0)
		return;
	/* the program's own stopped calls, without the library's */
	if (preload && proc_round(prog, 1, seccomp, NULL, &calls) < 0)
		return;
	for (i = 0; i < PROC_ROUNDS; i++) {
		plain[i] = proc_round(prog, 0, seccomp, NULL, &n);
		traced[i] = proc_round(prog, 1, seccomp, preload, &n);
		if (!preload)
			calls = n;
	}
	mp = median_of(plain, PROC_ROUNDS);
	mt = median_of(traced, PROC_ROUNDS);
	if (mp < 0 || mt < 0)
		return;
	excess = mt - mp - calls * stop_cpu_ns;
	proc_cpu_ns = excess > 0 ? excess : 0;
}

int rec_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

/* Let @tid run on every CPU this recorder may use. */
int rec_unpin_task(pid_t tid)
{
	static cpu_set_t all;
	static int have;

	if (!have) {
		long n = sysconf(_SC_NPROCESSORS_ONLN), i;

		CPU_ZERO(&all);
		for (i = 0; i < n && i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		have = 1;
	}
	return sched_setaffinity(tid, sizeof(all), &all) < 0 ? -errno : 0;
}

/* /proc/PID/task/TID/@name into @buf, a string. @return : 0 or -errno. */
static int read_task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

static int read_ticks(pid_t pid, pid_t tid, int64_t *utime, int64_t *stime)
{
	char buf[1024], *p;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	int err = read_task_file(pid, tid, "stat", buf, sizeof(buf));

	if (err < 0)
		return err;
	p = strrchr(buf, ')');
	/* after "pid (comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -EINVAL;
	if (hz <= 0)
		hz = 100;
	*utime = (int64_t)(ut * (1000000000ULL / (unsigned long long)hz));
	*stime = (int64_t)(st * (1000000000ULL / (unsigned long long)hz));
	return 0;
}

/*
 * A task's CPU time to the nanosecond: the first field of its schedstat
 * (time on a CPU, user and system).  /proc/PID/stat counts in clock ticks
 * (10 ms), and most processes of a script or a build end within one:
 * 638 of the 660 of a configure script showed none at all, and the
 * replay's bound on think time (replay/budget.c) is this time.
 */
static int read_schedstat(pid_t pid, pid_t tid, int64_t *ns)
{
	char buf[128];
	unsigned long long v;
	int err = read_task_file(pid, tid, "schedstat", buf, sizeof(buf));

	if (err < 0)
		return err;
	if (sscanf(buf, "%llu", &v) != 1)
		return -EINVAL;
	*ns = (int64_t)v;
	return 0;
}

static int cputime_precise(void)
{
	int64_t ns;

	return read_schedstat(getpid(), (pid_t)syscall(SYS_gettid), &ns) == 0;
}

/* The task's user and system CPU time; where schedstat gives the sum to
 * the nanosecond, that sum, split as the clock ticks split it (all user
 * where it ran for no tick). */
int rec_read_cputime(pid_t pid, pid_t tid, int64_t *utime, int64_t *stime)
{
	int64_t total, ut, st;
	int err = read_ticks(pid, tid, &ut, &st);

	if (err < 0)
		return err;
	*utime = ut;
	*stime = st;
	if (read_schedstat(pid, tid, &total) < 0)
		return 0;
	*stime = ut + st > 0 ? (int64_t)((double)total * (double)st / (double)(ut + st)) : 0;
	*utime = total - *stime;
	return 0;
}
