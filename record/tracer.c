/*
 * tracer.c - the stop loop: one waitpid() per ptrace stop, dispatched to
 * the syscall decoders, the fork/exec/exit bookkeeping, or signal
 * re-injection (the program must see every signal it would see untraced).
 * Where the tracer and its tracees run is cpu.c's business.
 *
 * With the seccomp filter a recorded call stops twice: at the seccomp
 * event (entry; the tracee is then resumed with PTRACE_SYSCALL) and at
 * syscall-exit (resumed with PTRACE_CONT, so unrecorded calls never stop).
 * Without it every syscall stops at entry and exit (PTRACE_SYSCALL).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "rec.h"

static volatile sig_atomic_t pending_sig;
static volatile sig_atomic_t ticked;

void rec_request_stop(int sig)
{
	if (sig == SIGALRM)
		ticked = 1;
	else
		pending_sig = sig;
}

int rec_take_request(int *tick)
{
	int sig = pending_sig;

	pending_sig = 0;
	*tick = ticked;
	ticked = 0;
	return sig;
}

static void resume(struct rec_ctx *c, struct rec_task *t, int sig)
{
	int req = (!c->seccomp_on || t->want_exit) ? PTRACE_SYSCALL : PTRACE_CONT;

	if (c->detaching) {
		rec_emit_unfinished(c, t, iot_now_ns());
		ptrace(PTRACE_DETACH, t->tid, 0, sig);
		rec_task_del(c, t);
		return;
	}
	if (ptrace(req, t->tid, 0, sig) < 0 && errno == ESRCH)
		return;	/* killed meanwhile: its death is reported by waitpid */
}

static void on_syscall(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	struct __ptrace_syscall_info info;
	long n;

	n = ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info);
	if (n <= 0)
		return;
	if (info.op == PTRACE_SYSCALL_INFO_SECCOMP || info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		const uint64_t *a = info.op == PTRACE_SYSCALL_INFO_SECCOMP ?
			(const uint64_t *)info.seccomp.args : (const uint64_t *)info.entry.args;
		int nr = (int)(info.op == PTRACE_SYSCALL_INFO_SECCOMP ?
			       info.seccomp.nr : info.entry.nr);

		t->vfork_child = 0;
		rec_run_entry(t);

		if (info.arch != AUDIT_ARCH_X86_64) {
			t->want_exit = 0;
			return;
		}
		/* the fast path's calls so far come before this one */
		rec_fast_drain(c);
		if (rec_fast_is_flush(c, nr, a)) {
			t->want_exit = 0;
			return;
		}
		if (t->in_syscall)
			rec_emit_unfinished(c, t, now);
		if (t->before_exec) {
			if (nr != SYS_execve)
				return;
			t->before_exec = 0;
		}
		t->want_exit = rec_decode_entry(c, t, nr, a, now);
		rec_slept_entry(c, t, now);
		rec_cpu_watch_stop(c, t, now);
	} else if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
		/* read before the event is written: its run_ns */
		rec_slept_exit(c, t);
		if (t->in_syscall)
			rec_decode_exit(c, t, info.exit.rval, now);
		t->want_exit = 0;
	}
}

static void on_clone(struct rec_ctx *c, struct rec_task *t, int ev, int64_t now)
{
	unsigned long msg = 0;
	struct rec_task *ch;
	uint64_t flags = t->clone_flags;

	if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg) < 0 || msg == 0)
		return;
	rec_fast_drain(c);
	if (ev == PTRACE_EVENT_VFORK) {
		t->vfork_child = (pid_t)msg;
		flags |= CLONE_VM | CLONE_VFORK;
		/* before the child first runs: it shares our rings' TLS */
		rec_fast_hold(c, t, 1);
	}
	else if (ev == PTRACE_EVENT_FORK)
		flags &= ~(uint64_t)(CLONE_THREAD | CLONE_FILES | CLONE_FS | CLONE_VM);
	ch = rec_emit_fork(c, t, (pid_t)msg, flags, now);
	if (ch && ch->stopped_early) {
		ch->stopped_early = 0;
		ch->attached = 1;
		resume(c, ch, 0);
	}
}

/* exec from a non-leader thread: the thread takes the leader's tid, and
 * the leader is gone without a death report of its own.  Called before
 * the stop is dispatched, so that @pid finds the exec'ing thread. */
static pid_t exec_rename(struct rec_ctx *c, pid_t pid, int64_t now)
{
	unsigned long old = 0;
	struct rec_task *ot, *leader;

	if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &old) < 0 || !old || (pid_t)old == pid)
		return 0;
	rec_fast_drain(c);
	ot = rec_task_get(c, (pid_t)old);
	if (!ot)
		return 0;
	leader = rec_task_get(c, pid);
	if (leader)
		rec_emit_exit(c, leader, now, 0, 0, 0, 0);
	c->by_tid[old] = NULL;
	c->by_tid[pid] = ot;
	ot->tid = pid;
	return (pid_t)old;
}

static void on_exec(struct rec_ctx *c, struct rec_task *t, pid_t old, int64_t now)
{
	struct iot_process p;
	char link[64], exe[REC_PATH_MAX];
	uint32_t *lens = NULL, i;
	ssize_t n;

	/* the old image's ring: drained and freed (the new one claims anew) */
	rec_fast_release(c, t->tid, 0);
	if (old)
		rec_fast_release(c, old, 0);
	rec_fast_proc_gone(c, t->pid);
	rec_aio_proc_gone(c, t);
	rec_fmap_proc_gone(c, t);
	rec_fd_exec(t);
	rec_mm_exec(t);
	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_EXEC;
	p.t_ns = now;
	p.pid = t->pid;
	p.tid = t->tid;
	p.old_tid = old;
	if (t->argc) {
		lens = malloc(sizeof(*lens) * t->argc);
		for (i = 0; lens && i < t->argc; i++)
			lens[i] = (uint32_t)strlen(t->argv[i]);
		if (lens) {
			p.argc = t->argc;
			p.argv = (const char *const *)t->argv;
			p.argv_len = lens;
		}
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", t->tid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		p.exe = exe;
		p.exe_len = (uint32_t)n;
	}
	if (t->fs && t->fs->cwd) {
		p.cwd = t->fs->cwd;
		p.cwd_len = (uint32_t)strlen(t->fs->cwd);
	}
	rec_emit_process(c, &p);
	free(lens);
	rec_cpu_watch_exec(c, t);
	resume(c, t, 0);
}

static void on_death(struct rec_ctx *c, pid_t pid, int status,
		     const struct rusage *ru, int64_t now)
{
	struct rec_task *t = rec_task_get(c, pid);

	if (pid == c->root) {
		c->st.root_status = status;
		c->st.root_done = 1;
	}
	if (!t) {
		rec_fast_release(c, pid, status);
		return;
	}
	rec_fast_release(c, t->tid, status);
	rec_fast_hold(c, t, 0);
	if (t->tid == t->pid) {
		rec_fast_proc_gone(c, t->pid);
		rec_aio_proc_gone(c, t);
		rec_fmap_proc_gone(c, t);
	}
	/* Its end as the kernel did it (the memory, the files, the parent's
	 * wake-up) from when the tracer let it go at its exit event, as the
	 * bpf backend's record of it begins there (sched_process_exit): the
	 * tracer's work at that event and its wake-up for the death are not
	 * in the interval to the parent's reaping (replay/plan_threads.c's
	 * reap_times(); header record.exit_at) */
	if (t->exited_event)
		rec_emit_exit(c, t, t->let_go_ns ? t->let_go_ns : now, status, t->utime_ns,
			      t->stime_ns, 0);
	else
		rec_emit_exit(c, t, now, status,
			      ru->ru_utime.tv_sec * 1000000000LL + ru->ru_utime.tv_usec * 1000LL,
			      ru->ru_stime.tv_sec * 1000000000LL + ru->ru_stime.tv_usec * 1000LL, 0);
}

/* Whether the two bytes before @ip are a syscall instruction (0f 05):
 * @ip is where a call returns to.  -1: not readable. */
static int after_syscall(pid_t tid, unsigned long ip)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, tid, ip - 2, 0);
	if (w == -1 && errno)
		return -1;
	return (w & 0xffff) == 0x050f;
}

/*
 * What a call left in rax, where the thread's registers at its death
 * are not the call's return.  A signal with a handler taken at the same
 * return as the fatal one (R's children are sent SIGUSR1 and SIGTERM at
 * once by their parent) had its frame set up first: the registers are
 * the handler's entry (rip the handler, rax 0), and the call's are saved
 * in the frame at the stack pointer (the return address the handler
 * returns through, then the ucontext).  Believed only where the saved
 * rip is just past a syscall instruction: a call the kernel restarts
 * after the handler left its rip at the instruction itself.
 * @return : 0 and *@rv, or -1: not known
 */
static int frame_rv(pid_t tid, const struct user_regs_struct *r, long *rv)
{
	unsigned long uc = r->rsp + sizeof(unsigned long);
	long ip, ax;

	errno = 0;
	ip = ptrace(PTRACE_PEEKDATA, tid,
		    uc + offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]), 0);
	ax = ptrace(PTRACE_PEEKDATA, tid,
		    uc + offsetof(ucontext_t, uc_mcontext.gregs[REG_RAX]), 0);
	if (errno || after_syscall(tid, (unsigned long)ip) != 1)
		return -1;
	*rv = ax;
	return 0;
}

/*
 * Killed on its way out of a call (a fatal signal pending at its exit
 * skips the syscall-exit stop, and the fast path's library never gets
 * to write the result down): the call had done its work, and its result
 * is in the registers.  A child that writes to its parent, which kills
 * it on reading that, lost its write, and the parent's read found
 * nothing in the replay.  Not a call the signal cut short (-ERESTART*,
 * EINTR: the program never saw it end) nor one not begun (-ENOSYS).
 * Into t->left_nr, left_rv, for the fast path's record of the call
 * (fp_drain.c); a call in flight at a stop is ended here.
 */
static void killed_leaving(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	struct user_regs_struct r;
	long rv;

	t->left_nr = 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0)
		return;
	rv = (long)r.rax;
	if ((long)r.orig_rax < 0)
		return;
	/* a handler's frame between the call and the death: rax is not its
	 * result (the write of 8 bytes its reader read was recorded = 0) */
	if (after_syscall(t->tid, r.rip) != 1 && frame_rv(t->tid, &r, &rv) < 0)
		return;
	if (rv == -ENOSYS || rec_cut_by_signal(rv))
		return;
	t->left_nr = (long)r.orig_rax + 1;
	t->left_rv = rv;
	if (t->in_syscall && t->sc && t->ev.nr == (long)r.orig_rax) {
		rec_slept_exit(c, t);
		rec_decode_exit(c, t, rv, now);
	}
}

/*
 * A signal delivered as a call returns: its handler runs before the fast
 * path's library writes the call's result down, and a handler that never
 * returns (one that exits: fdm's delivery children on their parent's
 * SIGTERM) leaves the call's record in flight though the call was done
 * (a close whose end of file the parent read: skipped, the replay's
 * parent read found the socket still open).  At the signal-delivery-stop
 * the registers are still the call's (its number, its result, rip past
 * the stub's syscall instruction): into t->sig_nr, sig_rv, sig_ns, for
 * that record at the thread's end (fp_drain.c).  Every such stop sets
 * them anew; a call the signal cut short, or no call, leaves none.
 */
static void signalled_leaving(struct rec_ctx *c, struct rec_task *t,
			      int64_t now)
{
	struct user_regs_struct r;
	long rv;

	t->sig_nr = 0;
	if (!c->fast || ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0)
		return;
	rv = (long)r.rax;
	/* rip just past the library's syscall instruction: a fast-path call
	 * returning, not one the ptrace stops saw end, nor the program's */
	if ((long)r.orig_rax < 0 || r.rip != rec_fast_ip(c) || rv == -ENOSYS ||
	    rec_cut_by_signal(rv))
		return;
	t->sig_nr = (long)r.orig_rax + 1;
	t->sig_rv = rv;
	t->sig_ns = now;
}

static void on_event_exit(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	int64_t ut = 0, stt = 0;
	unsigned long msg = 0;

	if (rec_read_cputime(t->pid, t->tid, &ut, &stt) == 0) {
		t->utime_ns = ut;
		t->stime_ns = stt;
		t->exited_event = 1;
	}
	/* the event's message is the exit status: SIGPIPE tells a write's result */
	if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg) < 0)
		msg = 0;
	killed_leaving(c, t, now);
	rec_fast_release(c, t->tid, (int)msg);
	rec_fast_hold(c, t, 0);
	if (t->tid == t->pid)
		rec_fmap_exec_entry(c, t);
	rec_emit_unfinished(c, t, now);
	t->want_exit = 0;
	resume(c, t, 0);
	t->let_go_ns = iot_now_ns();
}

static void start_detach(struct rec_ctx *c)
{
	int i = 0, left = c->ntasks;
	struct rec_task *t;

	c->detaching = 1;
	while ((t = rec_task_next(c, &i, &left))) {
		if (t->stopped_early) {
			ptrace(PTRACE_DETACH, t->tid, 0, 0);
			rec_task_del(c, t);
		} else {
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
		}
	}
}

static void on_tick(struct rec_ctx *c)
{
	int sig = pending_sig;

	if (sig) {
		pending_sig = 0;
		if (c->o->attach_pid) {
			if (!c->detaching)
				start_detach(c);
		} else if (c->root > 0 && !(sig & REC_SIG_FROM_TTY)) {
			kill(c->root, sig);
		}
	}
	if (ticked) {
		ticked = 0;
		rec_cpu_rebalance(c);
		rec_fast_drain(c);
		if (iot_writer_events(c->w) != c->events_at_flush) {
			c->events_at_flush = iot_writer_events(c->w);
			iot_writer_flush(c->w, 0);
		}
	}
}

static void on_stop(struct rec_ctx *c, struct rec_task *t, int status, pid_t old,
		    int64_t now)
{
	int sig = WSTOPSIG(status), ev = status >> 16;

	c->st.stops++;
	if (!t->attached) {
		/* its first stop: the new child's (or the interrupt's) */
		t->attached = 1;
		if (!t->ready) {
			t->stopped_early = 1;
			return;
		}
		resume(c, t, 0);
		return;
	}
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall(c, t, now);
		resume(c, t, 0);
		return;
	}
	/* a stop of another kind between two calls is not their gap's sleep */
	if (ev != PTRACE_EVENT_SECCOMP)
		t->ss_ok = t->run_ok = 0;
	switch (ev) {
	case 0:
		signalled_leaving(c, t, now);
		resume(c, t, sig);	/* signal-delivery-stop: deliver it */
		return;
	case PTRACE_EVENT_SECCOMP:
		on_syscall(c, t, now);
		resume(c, t, 0);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_clone(c, t, ev, now);
		resume(c, t, 0);
		return;
	case PTRACE_EVENT_EXEC:
		on_exec(c, t, old, now);
		return;
	case PTRACE_EVENT_EXIT:
		on_event_exit(c, t, now);
		return;
	case PTRACE_EVENT_VFORK_DONE:
		rec_fast_hold(c, t, 0);
		resume(c, t, 0);
		return;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			/* group-stop: stay stopped until SIGCONT, as untraced */
			if (c->detaching)
				resume(c, t, 0);
			else
				ptrace(PTRACE_LISTEN, t->tid, 0, 0);
			return;
		}
		resume(c, t, 0);
		return;
	default:
		resume(c, t, 0);
		return;
	}
}

int rec_trace_loop(struct rec_ctx *c)
{
	while (c->ntasks > 0) {
		struct rusage ru;
		struct rec_task *t;
		int status;
		int64_t now;
		pid_t pid, old;

		if (pending_sig || ticked)
			on_tick(c);
		pid = wait4(-1, &status, __WALL, &ru);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		now = iot_now_ns();
		/* the stopped process's page-ins so far (slept.c) */
		c->stop_majflt = ru.ru_majflt;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			on_death(c, pid, status, &ru, now);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		old = 0;
		if ((status >> 16) == PTRACE_EVENT_EXEC)
			old = exec_rename(c, pid, now);
		t = rec_task_get(c, pid);
		if (!t) {
			/* a new child that stopped before its parent's
			 * fork event: hold it until we know its parent */
			t = rec_task_new(c, pid);
			if (!t)
				continue;
			t->attached = 1;
			t->stopped_early = 1;
			continue;
		}
		t->last_stop_ns = now;
		on_stop(c, t, status, old, now);
	}
	rec_fast_drain(c);
	return 0;
}

/* Attach to every thread of @pid (PTRACE_SEIZE + PTRACE_INTERRUPT, then
 * PTRACE_SYSCALL at the first stop).  Threads born while this runs are
 * found by the second pass. */
int rec_attach(struct rec_ctx *c, pid_t pid)
{
	struct rec_task *leader = NULL;
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
		PTRACE_O_TRACEVFORKDONE;
	char dir[64];
	int pass, found, err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	for (pass = 0; pass < 2; pass++) {
		struct dirent *de;
		DIR *d = opendir(dir);

		if (!d)
			return -errno;
		found = 0;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			struct rec_task *t;

			if (tid <= 0 || rec_task_get(c, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, opts) < 0) {
				err = -errno;
				continue;
			}
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			t = rec_task_new(c, tid);
			if (!t)
				continue;
			found++;
			if (!leader) {
				leader = t;
				rec_task_from_proc(t);
				t->pid = pid;
			} else {
				rec_task_inherit(t, leader, CLONE_THREAD | CLONE_FILES |
						 CLONE_FS | CLONE_VM);
			}
			t->pid = pid;
			t->ready = 1;
		}
		closedir(d);
		if (!found)
			break;
	}
	return c->ntasks > 0 ? 0 : (err ? err : -ESRCH);
}
