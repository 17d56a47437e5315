/*
 * fork_fds.c - a forked child's copy of its parent's descriptor table
 * holds what the recorded fork copied, not what the parent's table holds
 * when the replay's fork comes.
 *
 * The parent's other threads go on while one of them forks, and the
 * replay keeps their calls in resource order, not in the order they had
 * against the fork: the copy here can hold more or less than the
 * recorded one.  A pipe end in the copy that the recorded child never
 * had keeps the pipe open until the child's exec or end, and a read of
 * the pipe that saw end of file when recorded waits for it; where the
 * plan orders that exec after the read (the child holds a copy of the
 * read end too, and its exec closes it last), the read waits 2 s for the
 * end that never comes and meets EAGAIN.  Two ways there, both of a
 * program that spawns children from several threads, each child with a
 * close-on-exec pipe that tells its parent whether the exec went through
 * (Go's os/exec, a build tool's worker pool):
 *
 * - an entry made by an op of another thread that began after the
 *   recorded fork, which ran before the fork here: dropped from the copy
 *   (rpl_fdtab_drop_after(), by the entry's made_ns);
 * - an entry that a close (dup2 over it, close_range) of another thread
 *   closed before the recorded fork copied the table, and which the
 *   replay has not closed yet: dropped from the copy too
 *   (rpl_fork_closes(), rpl_fdtab_drop_closed()).  The go command (bpf,
 *   its compile -V=full children): a thread closed its status pipe's
 *   write end and read the pipe while another thread forked; here the
 *   fork came first, its child kept the write end until its exec, which
 *   the plan put after the read, and the reads waited 2 s for the exec
 *   (two mismatches, a replay of 0.5 s taking 2.4 s, in most replays on
 *   a busy machine).
 *
 * When the recorded copy came is known between two bounds: the clone's
 * entry and the FORK record, which the recorders write after the copy
 * (bpf: sched_process_fork; ptrace: the parent's fork event,
 * rpl_thread.copied_ns).  A close that began between them may have come
 * first or not; it counts as first.  Under ptrace the clone's entry
 * stop comes long before the copy, and a close that entered after it
 * often came first: counted from the entry, the replay's child kept the
 * end, and 1-2 reads a replay of tests/progs/spawn_status recorded with
 * ptrace still waited 2 s.  Counted first wrongly, the child lacks a
 * descriptor of another thread's that it had, which only a child that
 * uses one misses; an end it never had holds a pipe open.  Entries made
 * in that window are dropped alike (rpl_fdtab_drop_after() counts from
 * the clone's entry).
 *
 * What the copy did not get is what the other threads made before the
 * recorded fork and the replay had not made yet: the go command (a
 * killed, then resumed `go build -a -p 2`, both backends) made a pipe in
 * one thread 1 ms before another thread's vfork of `compile -V=full`,
 * whose child made the pipe's write end its stdout; replayed, the fork
 * came first, the child's copy lacked the end, its dup3 and write were
 * not replayed, and the reader met end of file where 25 bytes were
 * recorded (1 replay in 3 on tmpfs).  So before the copy the fork waits
 * for each other thread's calls that made a descriptor the child names
 * before its exec and returned before the recorded clone began
 * (rpl_fork_wait_makers()): in the recording they came first, and
 * nothing of theirs waits for the fork.
 *
 * The other way round, a close of another thread that began after the
 * recorded clone had returned closed the parent's entry only: the child
 * had its copy.  Go's os/exec with a pipe for a child's stdin (`sort f |
 * uniq -c` joined by an io.Pipe, 120 goroutines, bpf): one thread
 * vforked uniq, the goroutine went on in another thread and closed the
 * read end 18 ms later; replayed, the close came before the child's
 * copy, uniq's dup3 of it onto stdin was not replayed and the parent's
 * writes met EPIPE (9-22 mismatches a replay).  So a close waits until
 * each child that the process's other threads forked (not sharing the
 * table) before it has its copy (rpl_fork_wait_copies(), on the child's
 * rpl_proc.copied: not its first op, which may wait for what the
 * parent does after the close).
 */
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

#include "rpl.h"
#include "exec_int.h"

/* At most this many ops of each other thread are looked at: one far
 * behind in the replay is rare, and a long look at each fork costs more
 * than the copies it could spare. */
#define RPL_FORK_LOOK 4096

/* The end of the look at thread @u's ops from its @i-th on */
static uint32_t look_end(const struct rpl_thread *u, uint32_t i)
{
	return u->n_ops - i > RPL_FORK_LOOK ? i + RPL_FORK_LOOK : u->n_ops;
}

/* The descriptors op @op closes in its table, [*@lo, *@hi].  @return :
 * 1 if it closes some, else 0. */
static int op_closes(const struct rpl_op *op, int64_t *lo, int64_t *hi)
{
	const struct iot_syscall *sc;

	switch (op->ev.nr) {
	case SYS_close_range:
		/* a mark only; or the thread's own table, unshared first */
		if (op->ev.ret < 0 || (op->ev.args[2] & (CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE)))
			return 0;
		*lo = (int64_t)(uint32_t)op->ev.args[0];
		*hi = (int64_t)(uint32_t)op->ev.args[1];
		return 1;
	case SYS_dup2: case SYS_dup3:
		if (op->ev.ret < 0 || op->ev.args[0] == op->ev.args[1])
			return 0;
		*lo = *hi = op->ev.args[1];
		return 1;
	}
	sc = iot_syscall_by_nr(op->ev.nr);
	if (!sc || !(sc->flags & IOT_SCF_CLOSE) || !sc->nargs || sc->arg[0] != IOT_ARG_FD ||
	    op->ev.ret == -EBADF)
		return 0;
	*lo = *hi = op->ev.args[0];
	return 1;
}

/* The descriptors a forked child's ops name before its exec: at most
 * RPL_FORK_USES of them, in its first RPL_FORK_USES_OPS ops */
#define RPL_FORK_USES 16
#define RPL_FORK_USES_OPS 64

static int child_uses(const struct rpl_plan *p, const struct rpl_thread *t, int64_t *fds)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < t->n_ops && i < RPL_FORK_USES_OPS && n < RPL_FORK_USES; i++) {
		const struct rpl_op *op = &p->ops[t->ops[i]];
		const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);

		if ((op->ev.nr == SYS_execve || op->ev.nr == SYS_execveat) && op->ev.ret == 0)
			break;
		if (sc && sc->nargs && (sc->arg[0] == IOT_ARG_FD || sc->arg[0] == IOT_ARG_DIRFD) &&
		    op->ev.args[0] >= 0)
			fds[n++] = op->ev.args[0];
	}
	return n;
}

/* Did @op make one of the @n descriptors @fds (and is it replayed)? */
static int makes_fd(const struct rpl_op *op, const int64_t *fds, int n)
{
	const struct iot_syscall *sc;
	int64_t a = -1, b = -1;
	int k;

	if (op->skip)
		return 0;
	sc = iot_syscall_by_nr(op->ev.nr);
	if (op->ev.nr == SYS_pipe || op->ev.nr == SYS_pipe2 || op->ev.nr == SYS_socketpair) {
		if (op->ev.ret != 0 || !sc)
			return 0;
		for (k = 0; k < sc->nargs; k++)
			if (sc->arg[k] == IOT_ARG_FDPAIR) {
				a = (int64_t)(uint32_t)op->ev.args[k];
				b = (int64_t)(uint32_t)((uint64_t)op->ev.args[k] >> 32);
			}
	} else if (sc && (sc->flags & IOT_SCF_RETFD) && op->ev.ret >= 0) {
		a = op->ev.ret;
	}
	for (k = 0; k < n; k++)
		if (fds[k] >= 0 && (fds[k] == a || fds[k] == b))
			return 1;
	return 0;
}

void rpl_fork_wait_makers(struct rpl_plan *p, const struct rpl_thread *t)
{
	const struct rpl_thread *by;
	int64_t clone_ns, uses[RPL_FORK_USES];
	uint32_t k, from, to;
	int n_uses;

	if (t->spawn_op < 0 || !p->proc_thr_off)
		return;
	by = &p->threads[p->ops[t->spawn_op].thread];
	if (p->procs[by->proc].n_threads < 2)
		return;
	/* only what the child names: a child that just execs needs none,
	 * and a fork held back for the others' descriptors came after a
	 * close it had come before */
	if (!(n_uses = child_uses(p, t, uses)))
		return;
	clone_ns = p->ops[t->spawn_op].ev.t_enter;
	from = p->proc_thr_off[by->proc];
	to = p->proc_thr_off[by->proc + 1];
	for (k = from; k < to; k++) {
		struct rpl_thread *u = &p->threads[p->proc_thr[k]];
		uint32_t i = atomic_load_explicit(&u->n_done, memory_order_acquire);
		uint32_t end = look_end(u, i);
		int64_t last = -1;

		if (u == by)
			continue;
		for (; i < end; i++) {
			const struct rpl_op *op = &p->ops[u->ops[i]];

			if (op->ev.t_enter >= clone_ns)
				break;
			if (rpl_op_end(op) < clone_ns && makes_fd(op, uses, n_uses))
				last = i;
		}
		if (last >= 0)
			rpl_wait_flag(p, u, (uint32_t)last, NULL);
	}
}

void rpl_fork_closes(struct rpl_plan *p, const struct rpl_thread *t, struct rpl_fork_closes *fc)
{
	const struct rpl_thread *by;
	int64_t fork_ns;
	uint32_t k, from, to;

	fc->n = 0;
	if (t->spawn_op < 0 || !p->proc_thr_off)
		return;
	by = &p->threads[p->ops[t->spawn_op].thread];
	if (p->procs[by->proc].n_threads < 2)
		return;
	fork_ns = t->copied_ns ? t->copied_ns : p->ops[t->spawn_op].ev.t_enter;
	from = p->proc_thr_off[by->proc];
	to = p->proc_thr_off[by->proc + 1];
	for (k = from; k < to; k++) {
		const struct rpl_thread *u = &p->threads[p->proc_thr[k]];
		/* what it has run is in the parent's table already; an op
		 * under way counts as not run (its close may follow the copy) */
		uint32_t i = atomic_load_explicit(&u->n_done, memory_order_acquire);
		uint32_t end = look_end(u, i);

		if (u == by)
			continue;
		for (; i < end; i++) {
			const struct rpl_op *op = &p->ops[u->ops[i]];
			int64_t lo, hi;

			if (op->ev.t_enter >= fork_ns)
				break;
			if (!op_closes(op, &lo, &hi))
				continue;
			if (fc->n == RPL_FORK_CLOSES)
				return;
			fc->v[fc->n].lo = lo;
			fc->v[fc->n].hi = hi;
			fc->v[fc->n++].t_ns = op->ev.t_enter;
		}
	}
}

void rpl_fork_wait_copies(struct rpl_plan *p, const struct rpl_thread *t, const struct rpl_op *op)
{
	int64_t lo, hi;
	uint32_t k, from, to;

	if (p->procs[t->proc].n_threads < 2 || !p->proc_thr_off || !op_closes(op, &lo, &hi))
		return;
	from = p->proc_thr_off[t->proc];
	to = p->proc_thr_off[t->proc + 1];
	for (k = from; k < to; k++) {
		struct rpl_thread *u = &p->threads[p->proc_thr[k]];
		uint32_t i = atomic_load_explicit(&u->n_done, memory_order_acquire);
		uint32_t end = look_end(u, i);

		if (u == t)
			continue;
		/* its ops done are behind it; one under way counts as not */
		if (i > 0)
			i--;
		for (; i < end; i++) {
			const struct rpl_op *c = &p->ops[u->ops[i]];
			int32_t ci = rpl_op_child(c);
			struct rpl_thread *ch;

			if (c->ev.t_enter >= op->ev.t_enter)
				break;
			if (ci < 0 || rpl_op_end(c) >= op->ev.t_enter)
				continue;
			ch = &p->threads[ci];
			/* a thread, or a process sharing the table: no copy */
			if (ch->proc == t->proc || p->procs[ch->proc].share_files || !ch->n_ops ||
			    atomic_load(&p->procs[ch->proc].copied))
				continue;
			rpl_wait_flag(p, NULL, 0, &p->procs[ch->proc].copied);
		}
	}
}
