/*
 * cmd_record.c - iotape record: run (or attach to) a program under ptrace
 * and write what it does to the filesystem as a trace.
 *
 * The output is opened before the program starts, so an unwritable trace
 * never costs a run; an existing trace is replaced only once the program
 * runs (output.c).  The exit status is the program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "rec.h"

#define CMD "record"

static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };
#define N_HANDLED (sizeof(handled) / sizeof(handled[0]))
static struct sigaction saved[N_HANDLED];

/* The program gets the dispositions the recorder was started with (an
 * ignored SIGHUP under nohup stays ignored), except SIGINT and SIGTERM:
 * those are how a user stops a recording, and the recorder stops by
 * passing them on, so they must end the program even when a script
 * started the recorder in the background (which ignores SIGINT). */
static void restore_handlers(void)
{
	size_t i;

	for (i = 0; i < N_HANDLED; i++) {
		if (handled[i] == SIGINT || handled[i] == SIGTERM)
			signal(handled[i], SIG_DFL);
		else
			sigaction(handled[i], &saved[i], NULL);
	}
}

/* the stop signal that arrived while they were held, or 0; an ignored
 * one (a background job's SIGINT) does not count */
static int stop_pending(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction cur;
	sigset_t p;
	size_t i;

	if (sigpending(&p) < 0)
		return 0;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigismember(&p, stops[i]) && sigaction(stops[i], NULL, &cur) == 0 &&
		    cur.sa_handler != SIG_IGN)
			return stops[i];
	return 0;
}

static void on_signal(int sig)
{
	rec_request_stop(sig);
}

/* the signal that ended the recording, for the summary */
static volatile sig_atomic_t stop_sig;

static void on_forward(int sig, siginfo_t *si, void *uc)
{
	if (!stop_sig)
		stop_sig = sig;
	rec_request_stop(sig | (si && si->si_code == SI_KERNEL ? REC_SIG_FROM_TTY : 0));
}

#define REC_ZSTD_LEVEL	3

/* The child: wait until the tracer has seized it, install the filter,
 * exec.  Messages use the recorder's name: the program never started. */
static void child_run(struct rec_ctx *c, int go, int ready, char **cmd, int seccomp,
		      const sigset_t *mask)
{
	char b;
	int r;

	/* no descriptor the recorder opened, a thread's at the fork
	 * included, is the program's (inherit.c) */
	rec_fds_seal();
	restore_handlers();
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* as PTRACE_O_EXITKILL does for the ptrace backend */
	if (c->bpf) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* the stop before calls that change names (bpf_guard.c); the
		 * recorder takes the listener from here */
		r = rec_guard_install(c->fast != NULL);
		if (write(ready, &r, sizeof(r)) != sizeof(r))
			_exit(126);
		close(ready);
	}

	if (read(go, &b, 1) != 1)
		_exit(126);
	/* BPF follows it from here on: close-on-exec closes go, no call of
	 * the recorder's own is recorded */
	if (!c->bpf)
		close(go);
	rec_fast_env(c);
	if (seccomp && (r = rec_seccomp_install(rec_fast_ip(c))) < 0) {
		fprintf(stderr, "iotape: record: seccomp filter: %s; retry with --no-seccomp\n",
			strerror(-r));
		_exit(126);
	}
	execvp(cmd[0], cmd);
	r = errno;
	fprintf(stderr, "iotape: record: %s: %s\n", cmd[0],
		r == ENOENT ? "command not found" : strerror(r));
	_exit(r == ENOENT ? 127 : 126);
}

/* A program forked and waiting for the word to exec (launch_fork()),
 * until launch_go() or launch_abort(). */
struct launch {
	int go[2], ready[2];
	pid_t pid;			/* 0: not forked */
	int child_gfd, child_ready;	/* the child's guard listener and pipe end */
};

static void launch_close(struct launch *l)
{
	int *fds[] = { &l->go[0], &l->go[1], &l->ready[0], &l->ready[1] };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* the program killed before it ran */
static void launch_abort(struct launch *l)
{
	if (l->pid > 0) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
	}
	l->pid = 0;
	launch_close(l);
}

/* Fork the program; with bpf, take its guard's listener (bpf_guard.c).
 * @return : 0, or -errno with nothing left running */
static int launch_fork(struct rec_ctx *c, struct launch *l, int trace_fd, const sigset_t *mask)
{
	int err = 0, gfd = -1;
	pid_t pid;

	memset(l, 0, sizeof(*l));
	l->go[0] = l->go[1] = l->ready[0] = l->ready[1] = -1;
	l->child_gfd = l->child_ready = -1;
	if (pipe2(l->go, O_CLOEXEC) < 0)
		return -errno;
	if (c->bpf && pipe2(l->ready, O_CLOEXEC) < 0) {
		err = -errno;
		launch_close(l);
		return err;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		launch_close(l);
		return err;
	}
	rec_stamp("forked");
	if (pid == 0) {
		close(l->go[1]);
		close(trace_fd);
		if (l->ready[0] >= 0)
			close(l->ready[0]);
		child_run(c, l->go[0], l->ready[1], c->o->cmd, c->seccomp_on, mask);
	}
	l->pid = pid;
	if (c->bpf) {
		l->child_ready = l->ready[1];
		close(l->ready[1]);
		l->ready[1] = -1;
		if (read(l->ready[0], &l->child_gfd, sizeof(l->child_gfd)) == sizeof(l->child_gfd) &&
		    l->child_gfd >= 0 && (gfd = rec_guard_take(pid, l->child_gfd)) >= 0)
			rec_bpf_set_guard(c, gfd);
		else if (!c->o->quiet)
			cli_warn(CMD, "no stop before calls that change names (%s): the "
				 "states of the paths they change are taken after they ran",
				 strerror(l->child_gfd < 0 ? -l->child_gfd : gfd < 0 ? -gfd : EIO));
	}
	rec_stamp("guard");
	return 0;
}

/* Follow the forked program (bpf: the programs loaded, rec_bpf_wait();
 * ptrace: seized), write its start and let it exec.  @return : 0, or
 * -errno with the program killed */
static int launch_go(struct rec_ctx *c, struct launch *l, int trace_fd)
{
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
		PTRACE_O_EXITKILL | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEVFORKDONE;
	struct rec_task *t;
	struct iot_process p;
	uint32_t *lens = NULL, i, argc = 0;
	pid_t pid = l->pid;
	int err = 0;

	if (c->bpf && (err = rec_bpf_follow(c, pid)) < 0) {
		launch_abort(l);
		return err;
	}
	if (!c->bpf && ptrace(PTRACE_SEIZE, pid, 0, opts) < 0) {
		err = -errno;
		launch_abort(l);
		return err;
	}
	rec_stamp("followed");
	c->root = pid;
	t = rec_task_new(c, pid);
	if (!t || (err = rec_task_from_proc(t)) < 0) {
		launch_abort(l);	/* killed and reaped, not left a zombie */
		return t ? err : -ENOMEM;
	}
	/* the recorder's own descriptors are not the program's: those it
	 * opened (a thread's too, open at the fork and sealed by the child
	 * since), and those it closes in the child */
	for (i = 0; t->fds && i < (uint32_t)t->fds->n; i++)
		if (!rec_fd_inherited((int)i))
			rec_fd_close(t, (int)i);
	rec_fd_close(t, l->go[0]);
	rec_fd_close(t, l->go[1]);
	rec_fd_close(t, trace_fd);
	if (c->bpf) {
		rec_fd_close(t, l->ready[0]);
		rec_fd_close(t, l->child_ready);
		rec_fd_close(t, l->child_gfd);
	}
	t->ready = 1;
	t->attached = c->seccomp_on || c->bpf;
	if (!c->seccomp_on && !c->bpf) {
		t->before_exec = 1;
		ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	}
	while (c->o->cmd[argc])
		argc++;
	lens = calloc(argc + 1, sizeof(*lens));
	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_START;
	p.t_ns = iot_now_ns();
	p.pid = p.tid = pid;
	p.ppid = getpid();
	if (lens) {
		for (i = 0; i < argc; i++)
			lens[i] = (uint32_t)strlen(c->o->cmd[i]);
		p.argc = argc;
		p.argv = (const char *const *)c->o->cmd;
		p.argv_len = lens;
	}
	if (t->fs && t->fs->cwd) {
		p.cwd = t->fs->cwd;
		p.cwd_len = (uint32_t)strlen(t->fs->cwd);
	}
	p.exe = c->o->cmd[0];
	p.exe_len = (uint32_t)strlen(c->o->cmd[0]);
	rec_emit_process(c, &p);
	if (write(l->go[1], "g", 1) != 1)
		err = -errno;
	rec_stamp("go");
	free(lens);
	launch_close(l);
	return err;
}

static void install_handlers(int flush_ms)
{
	struct sigaction sa;
	struct itimerval it;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_forward;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid must return */
	for (i = 0; i < N_HANDLED; i++)
		if (handled[i] != SIGALRM)
			sigaction(handled[i], &sa, &saved[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, &saved[N_HANDLED - 1]);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = flush_ms / 1000;
	it.it_interval.tv_usec = (flush_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void attach_err(pid_t pid, int err)
{
	if (err == -ESRCH || err == -ENOENT)
		cli_err(CMD, "-p %d: no such process; check the pid with 'ps'", (int)pid);
	else if (err == -EPERM || err == -EACCES)
		cli_err(CMD, "-p %d: not allowed to trace it (%s); trace your own "
			"processes or run as root, and see "
			"/proc/sys/kernel/yama/ptrace_scope", (int)pid, strerror(-err));
	else
		cli_err(CMD, "-p %d: cannot attach: %s", (int)pid, strerror(-err));
}

/* Find out what would make attaching fail before a trace is written:
 * opening its memory takes the permission ptrace does (the same user or
 * CAP_SYS_PTRACE, and yama's ptrace_scope).  @return : 0, or -1 after
 * saying why not */
static int attach_check(pid_t pid)
{
	char p[64];
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		attach_err(pid, -ESRCH);
		return -1;
	}
	snprintf(p, sizeof(p), "/proc/%d/mem", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ESRCH) {
		/* there, but without memory */
		cli_err(CMD, "-p %d: a kernel thread or an exiting process; "
			"neither can be traced", (int)pid);
		return -1;
	}
	if (fd < 0) {
		attach_err(pid, errno == ENOENT ? -ESRCH : -errno);
		return -1;
	}
	close(fd);
	return 0;
}

/* A replay leaves /dev out (its nodes are no filesystem's files), and with
 * it /dev/shm, a tmpfs people also work in: a program run there is
 * recorded, but its files would not be replayed.  Said before it starts. */
static void cwd_under_dev(void)
{
	char *cwd = getcwd(NULL, 0);

	if (cwd && strncmp(cwd, "/dev/", 5) == 0)
		iot_warn("record", "the working directory %s is under /dev, which a replay leaves "
			 "out: what the program does there is recorded but will not be replayed; "
			 "run it in a directory elsewhere (a tmpfs mounted under /mnt, say) to "
			 "replay its files", cwd);
	free(cwd);
}

int cmd_record(int argc, char **argv)
{
	struct iot_writer_opts wo;
	struct iot_header h;
	struct rec_opts o;
	struct rec_ctx *c = NULL;
	struct rec_out ro;
	struct launch lc = { .go = { -1, -1 }, .ready = { -1, -1 } };
	sigset_t block, old;
	int64_t stop_cost;
	int fd = -1, trace_fd = -1, r, ret = IOT_EXIT_FAIL, seccomp_ok = 0, ran = 0, mixed = 0;
	char **hargv;
	char *attach_argv[3], pidbuf[32];
	const char *fast;

	rec_stamp("main");
	r = rec_parse_opts(argc, argv, &o);
	if (r)
		return r > 0 ? IOT_EXIT_OK : IOT_EXIT_USAGE;
	if (!o.quiet && !o.attach_pid)
		cwd_under_dev();
	if (o.attach_pid && attach_check(o.attach_pid) < 0)
		return IOT_EXIT_FAIL;
	/* what the program may inherit: noted before the recorder opens
	 * anything of its own (inherit.c) */
	if (!o.attach_pid)
		rec_fds_note();
	/* Held from here until the program runs (or the recording is
	 * given up): a ^C while the BPF programs load or the stops are
	 * calibrated must not kill the recorder with a half-made trace file.
	 * The writer thread inherits this mask too: the recorder's signals
	 * must interrupt the tracer's waitpid, never the writer's write. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	memset(&h, 0, sizeof(h));
	fd = rec_out_open(&ro, o.out);
	if (fd < 0) {
		cli_err(CMD, "%s: %s; choose a writable path with -o", o.out, strerror(-fd));
		rec_out_free(&ro);
		return IOT_EXIT_FAIL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || rec_tasks_init(c) < 0 || rec_seen_init(c) < 0) {
		cli_err(CMD, "out of memory");
		goto out;
	}
	c->o = &o;
	/* the tests' tiny sets: KiB, over --path-set-mb */
	o.path_set_bytes = getenv("IOTAPE_PATH_SET_KB") ?
		strtoull(getenv("IOTAPE_PATH_SET_KB"), NULL, 10) << 10 : 0;
	if (!o.path_set_bytes)
		o.path_set_bytes = (uint64_t)o.path_set_mb << 20;
	rec_pset_cap(&c->seen, o.path_set_bytes);
	rec_pset_cap(&c->entries, o.path_set_bytes);
	if (o.flush_ms <= 0)
		o.flush_ms = 250;
	rec_stamp("opened");
	/* auto needs the answer now (ptrace calibrates stops that bpf
	 * has not); bpf and mixed load while the recorder gets ready, and
	 * give up at the launch if the load failed */
	if (o.backend == REC_BACKEND_AUTO && !o.attach_pid) {
		const char *why;

		if (rec_bpf_setup(c, &why) < 0)
			c->bpf_why = why;
	} else if (o.backend == REC_BACKEND_BPF || o.backend == REC_BACKEND_MIXED) {
		if (rec_bpf_start(c) < 0) {
			cli_err(CMD, "out of memory");
			goto out;
		}
	}
	if (c->bpf) {
		/* nothing stops, nothing to pin: the program keeps every CPU */
		o.cpu_policy = REC_CPU_NONE;
		o.seccomp = 0;
		mixed = o.backend == REC_BACKEND_MIXED && o.fastpath;
		o.fastpath = 0;
		c->spread = 1;
	}
	if (o.cpu_policy != REC_CPU_NONE) {
		c->pinned_cpu = sched_getcpu();
		if (c->pinned_cpu < 0 || rec_pin_cpu(c->pinned_cpu) < 0)
			c->spread = 1;
	}
	if (o.attach_pid)
		o.seccomp = 0;	/* a filter cannot be added to a running process */
	stop_cost = c->bpf ? 0 : rec_calibrate(o.seccomp, &seccomp_ok);
	if (o.seccomp && !seccomp_ok) {
		cli_warn(CMD, "seccomp filter unavailable; stopping at every syscall (slower)");
		stop_cost = rec_calibrate(0, &seccomp_ok);
	}
	if (!o.seccomp && !o.attach_pid && !o.quiet && !c->bpf)
		cli_warn(CMD, "recording without seccomp: every syscall stops the program");
	c->seccomp_on = o.seccomp && seccomp_ok;
	if (stop_cost < 0)
		stop_cost = 0;
	c->stop_cost_ns = stop_cost;
	fast = "off";
	if ((o.fastpath && c->seccomp_on && !o.attach_pid) || mixed) {
		const char *why;

		if (rec_fast_setup(c, &why) == 0) {
			fast = "on";
		} else {
			cli_warn(CMD, "fast path off: %s; every call stops the program "
				 "(slower); --no-fastpath silences this", why);
			fast = "off (unavailable)";
		}
	}
	/* on the CPU the stops were calibrated on, with the library the
	 * programs will load */
	if (!c->bpf)
		rec_calibrate_proc(c->seccomp_on, rec_fast_lib(c));
	/* the writer thread (created below) compresses while the tracer
	 * waits: it must not share the tracer's CPU */
	if (!c->spread)
		rec_unpin_task(0);
	hargv = o.cmd;
	if (o.attach_pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", o.attach_pid);
		attach_argv[0] = (char *)"-p";
		attach_argv[1] = pidbuf;
		attach_argv[2] = NULL;
		hargv = attach_argv;
	}
	rec_fuse_baseline();
	rec_header_fill(&h, &o, c->seccomp_on, stop_cost, hargv, fast,
			c->bpf && c->fast ? "mixed" : c->bpf ? "bpf" : c->bpf_why ? "ptrace (bpf unavailable)" : "ptrace");
	rec_stamp("header");
	memset(&wo, 0, sizeof(wo));
	wo.flush_ms = o.flush_ms;
	wo.flush_events = o.flush_events > 0 ? (uint32_t)o.flush_events : 0;
	wo.background = 1;
	/* zstd -3, not the library's -5: the writer thread's CPU is taken
	 * from the program recorded.  The 49 frames of a 191,489-event bpf
	 * recording: 154 M instructions instead of 416 M (2,170 -> 800 an
	 * event), 1,635,346 bytes instead of 1,598,593 (+2.3%) */
	wo.level = REC_ZSTD_LEVEL;
	/* a stop asked for while the recorder was getting ready: no program
	 * is started for it */
	r = stop_pending();
	if (r) {
		cli_err(CMD, "interrupted by SIG%s before the program started; nothing "
			"recorded, no trace written", sigabbrev_np(r));
		ret = 128 + r;
		goto out;
	}
	/* bpf: the program is forked while the programs load, and the
	 * header's clocks (the trace's time zero) are read again once they
	 * are loaded, about where they were read when the load came first;
	 * the writer starts while they are attached */
	if (c->bpf) {
		r = launch_fork(c, &lc, fd, &old);
		if (r < 0) {
			cli_err(CMD, "%s: cannot start: %s", o.cmd[0], strerror(-r));
			goto out;
		}
		rec_bpf_wait_loaded(c);
		rec_header_clock(&h);
		rec_stamp("clock");
	}
	/* the writer's from here, closed by it if it fails */
	trace_fd = fd;
	fd = -1;
	r = iot_writer_fdopen(&c->w, trace_fd, &h, &wo);
	if (r < 0) {
		launch_abort(&lc);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		cli_err(CMD, "%s: %s; check the disk and the path", o.out, iot_strerror(r));
		goto out;
	}
	rec_stamp("writer");
	if (c->bpf) {
		const char *why;
		int64_t gap_ns;

		r = rec_bpf_wait(c, &why);
		rec_stamp("waited");
		if (r < 0) {
			launch_abort(&lc);
			cli_err(CMD, "--backend %s: %s; use --backend ptrace",
				o.backend == REC_BACKEND_MIXED ? "mixed" : "bpf", why);
			iot_writer_close(c->w, 0);
			c->w = NULL;
			goto out;
		}
		/* measured once the programs were attached, after the
		 * header was written: the index holds it (bpf_calib.c's
		 * rec_bpf_calib_start(), format/FORMAT.md) */
		gap_ns = rec_bpf_gap_ns(c);
		if (gap_ns >= 0) {
			char gap[32];

			snprintf(gap, sizeof(gap), "%lld", (long long)gap_ns);
			if (iot_writer_set_extra(c->w, "record.bpf_gap_ns", gap) < 0)
				cli_warn(CMD, "out of memory: the trace will not hold "
					 "the BPF programs' measured cost per gap; its "
					 "replay takes the least gap recorded instead");
		}
	}
	if (!c->spread)
		rec_pin_cpu(c->pinned_cpu);
	install_handlers(o.flush_ms);
	c->st.t_start = iot_now_ns();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		c->st.t_start_real = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	}
	if (o.attach_pid) {
		r = rec_attach(c, o.attach_pid);
		if (r < 0) {
			attach_err(o.attach_pid, r);
			iot_writer_close(c->w, 0);
			c->w = NULL;
			goto out;
		}
	} else {
		r = lc.pid ? 0 : launch_fork(c, &lc, trace_fd, &old);
		if (r == 0)
			r = launch_go(c, &lc, trace_fd);
		if (r < 0) {
			cli_err(CMD, "%s: cannot start: %s", o.cmd[0], strerror(-r));
			iot_writer_close(c->w, 0);
			c->w = NULL;
			goto out;
		}
	}
	ran = 1;
	r = rec_out_commit(&ro);
	if (r < 0) {
		cli_warn(CMD, "%s: cannot replace it: %s; the trace goes to %s",
			 o.out, strerror(-r), ro.tmp);
		o.out = ro.tmp;
	}
	/* a ^C during start-up was held until now: the program exists and
	 * gets it forwarded */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (c->bpf) {
		rec_bpf_loop(c);
		rec_bpf_unload_start(c);
	} else {
		rec_trace_loop(c);
	}
	c->st.t_end = iot_now_ns();
	rec_aio_end(c);
	rec_stamp("aio_end");
	/* Entries of the directories it listed but never named: a replayed
	 * listing must find them too. */
	{
		int64_t nl = o.listings ? rec_take_listed(c) : 0;

		r = nl < 0 ? (int)nl : 0;
		c->st.listed += nl > 0 ? (uint64_t)nl : 0;
	}
	if (r < 0)
		cli_err(CMD, "%s: the entries of the directories the program listed: %s; "
			"the trace is complete without them", o.out, iot_strerror(r));
	{
		struct itimerval it;

		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
	}
	rec_stamp("listed");
	r = iot_writer_close(c->w, c->st.dropped);
	rec_stamp("writer_closed");
	if (r < 0) {
		c->w = NULL;
		rec_write_failed(c, o.out, r);
		ret = IOT_EXIT_FAIL;
		goto out;
	}
	c->w = NULL;
	if (!o.quiet) {
		off_t sz = 0;
		int tfd = open(o.out, O_RDONLY | O_CLOEXEC);

		if (tfd >= 0) {
			sz = lseek(tfd, 0, SEEK_END);
			close(tfd);
		}
		rec_summary(c, (uint64_t)(sz > 0 ? sz : 0));
		rec_summary_end(c, stop_sig);
		rec_stamp("summary");
	} else
		rec_summary_quiet(c);
	if (o.attach_pid)
		ret = IOT_EXIT_OK;
	else if (WIFEXITED(c->st.root_status))
		ret = WEXITSTATUS(c->st.root_status);
	else if (WIFSIGNALED(c->st.root_status))
		ret = 128 + WTERMSIG(c->st.root_status);
out:
	if (fd >= 0)
		close(fd);
	/* nothing was recorded: no empty trace where there was none, and an
	 * older one is left as it was */
	if (!ran)
		rec_out_discard(&ro);
	rec_out_free(&ro);
	rec_header_free(&h);
	if (c) {
		rec_tasks_free(c);
		rec_seen_free(c);
		rec_fast_free(c);
		rec_aio_free(c);
		if (c->diag_fd > 0)
			close(c->diag_fd);
		free(c->conns);
		rec_fmap_free(c);
		rec_stamp("tables_freed");
		rec_bpf_free(c);
		free(c->data_buf);
		free(c);
	}
	rec_fds_free();
	rec_ns_free();
	rec_stamp("freed");
	rec_stamps_write();
	return ret;
}
