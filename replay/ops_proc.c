/*
 * ops_proc.c - replay handlers for processes: clone/fork start the
 * child's op list (a pthread of the replayer: no real fork is needed),
 * execve closes close-on-exec descriptors and starts a small program
 * natively for the process start (spawn.c), wait4 waits for the child's
 * last op, exit ends the list.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

static int64_t h_clone(struct rpl_ctx *c, struct rpl_op *op)
{
	int err;

	if (rpl_op_child(op) < 0)
		return op->ev.ret;	/* the child did nothing we recorded */
	err = rpl_thread_start(c->p, op->link);
	return err < 0 ? err : op->ev.ret;
}

/* A failed exec (a PATH search miss) costs a lookup; a successful one
 * closes the close-on-exec descriptors and costs a process start. */
static int64_t h_execve(struct rpl_ctx *c, struct rpl_op *op)
{
	const char *p;
	long r;
	int fd;

	if (op->ev.ret == 0 || (op->ev.flags & IOT_EV_UNFINISHED)) {
		rpl_plock_closing_fds(c->pr, 0, ULONG_MAX, 1);
		rpl_fdtab_exec(c->pr->tab);
		rpl_mpages_exec(c);
		if (op->ev.ret == 0)
			rpl_creds_exec(c);
		/* The recorded result is what counts: a start that fails
		 * here (no memory, no such program) changes no file. */
		if (op->ev.ret == 0 && c->p->o->starts &&
		    RPL_TIMED(c, rpl_start_process(c->p)) < 0)
			atomic_fetch_add(&c->p->start_fails, 1);
		return 0;
	}
	p = rpl_op_path(c, op, op->ev.path);
	if (!p)
		return RPL_SKIPPED;
	fd = rpl_resolve(c->p->root_fd, p, O_PATH, 0);
	if (fd < 0)
		return fd;
	r = syscall(SYS_faccessat2, fd, "", X_OK, AT_EMPTY_PATH);
	r = r < 0 ? -errno : 0;
	/* a directory is searchable, not executable: EACCES (recollindex
	 * execs "/" at its start: 8-10 a replay) */
	if (r == 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
			r = -EACCES;
	}
	close(fd);
	/* Found and executable, it failed for what is not the path's: the
	 * arguments too long (GNU parallel execs /bin/sh with longer and
	 * longer ones to find the limit: 1 mismatch a run), a file no
	 * loader takes, no memory.  The kernel opened the file first. */
	if (r == 0 && (op->ev.ret == -E2BIG || op->ev.ret == -ENOEXEC || op->ev.ret == -ENOMEM))
		r = op->ev.ret;
	return r;
}

/* A reap waits for the child's end, and then for as long as its end
 * took after its last call when recorded (plan_threads.c, reap_times()):
 * the exit's own work, which the replay's thread end does not do. */
static int64_t h_wait4(struct rpl_ctx *c, struct rpl_op *op)
{
	const struct rpl_proc *pr;
	int64_t ns, until;

	if (rpl_op_wait_proc(op) < 0)
		return op->ev.ret;
	rpl_wait_proc(c->p, op->link);
	pr = &c->p->procs[op->link];
	ns = pr->exit_ns;
	if (!ns || c->p->o->timing == RPL_TIMING_AFAP)
		return op->ev.ret;
	until = atomic_load(&pr->gone_ns) + rpl_timed_ns(c->p->o, ns);
	ns = until - iot_now_ns();
	if (ns > 0) {
		rpl_wait_until(until);
		atomic_fetch_add(&c->p->exits_ns, (uint64_t)ns);
	}
	atomic_fetch_add(&c->p->exits, 1);
	return op->ev.ret;
}

/* A process's descriptors close as it ends.  Its last thread's last op
 * closes them here rather than when the thread is done: a reader of its
 * pipe that saw end of file is ordered after this op (plan_fds.c), and must
 * find the write end closed, not get EAGAIN. */
static int64_t h_exit(struct rpl_ctx *c, struct rpl_op *op)
{
	const struct rpl_thread *t = c->t;

	/* the lock: see thread_done() */
	pthread_mutex_lock(&c->p->spawn_lock);
	/* (a process whose descriptors linger: at its end, exec_thread.c) */
	if ((op->ev.nr == SYS_exit_group || c->pr->n_threads == 1) && t->n_ops &&
	    !c->pr->linger[0] &&
	    &c->p->ops[t->ops[t->n_ops - 1]] == op && atomic_load(&c->pr->live) == 1 &&
	    c->pr->tab) {
		rpl_plock_drop(c->pr);
		rpl_fdtab_unref(c->pr->tab);
		c->pr->tab = NULL;
	}
	pthread_mutex_unlock(&c->p->spawn_lock);
	return op->ev.ret;
}

void rpl_ops_proc(rpl_handler *h)
{
	h[SYS_clone] = h_clone;
	h[SYS_clone3] = h_clone;
	h[SYS_fork] = h_clone;
	h[SYS_vfork] = h_clone;
	h[SYS_execve] = h_execve;
	h[SYS_execveat] = h_execve;
	h[SYS_wait4] = h_wait4;
	h[SYS_exit] = h_exit;
	h[SYS_exit_group] = h_exit;
}
