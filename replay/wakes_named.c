/*
 * wakes_named.c - wakers the recorder named: the bpf backend sees who
 * woke a task (iot_event.waker for a call that slept, gap_waker for a
 * sleep between calls), and the woken op follows that thread's last call
 * before the wake-up.  A waker with no op of its own (a thread that
 * computes without a call) gives its CPU time to the gaps it woke.  The
 * rules that guess a waker from the times alone: wakes.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rpl.h"
#include "wakes_int.h"

/*
 * A call that slept and was woken by another thread the recorder followed
 * (iot_event.waker, seen by the bpf backend, which keeps it for calls that
 * wait for other tasks: a poll woken by its peer's send on a socket, a
 * lock released, a signal).  The trace holds no send
 * or recv, so without it a client and a server (pgbench and PostgreSQL's
 * backends, over a Unix socket) each ran at its own pace in the replay:
 * the server's work of one phase came in the next, the client's polls
 * returned at once.  The call returned because of something its waker
 * did after the waker's last call that ended before it did: it follows
 * that call, as resource order's ops follow theirs (deps.c).  The call's
 * order time is its end (its entry for a pipe write), and the call it
 * follows ended before that: the dependency points to an earlier time.
 * Unless that call acts from its entry (RPL_OPF_ORDER_ENTER: a write
 * into a pipe, a close of a shared table's number, an exec that closes
 * pipes): it woke the thread from inside, and it follows the call
 * before it.  Its end need not come before the woken call's here: a
 * write of 65,516 bytes into a pipe fitted at once when recorded, the
 * pipe's pages laid out otherwise by how the two sides' calls met in
 * the kernel, and blocked here until the reader read; the reader was
 * woken by the poller, whose epoll_wait (woken by the writer) followed
 * that write's end: a cycle, which the pipe's wait broke after 2 s with
 * a short write (git's pkt-lines into git-annex's filter process, whose
 * runtime reads a non-blocking pipe when its poller thread wakes it;
 * replay_wake_pipe_write.sh).  What the woken thread then reads of the
 * pipe waits for the write in the pipe's own order.  A thread is told
 * by its tid; of the threads with the
 * waker's tid (a tid used again after its thread ended), the last that
 * began before the call ended.
 */

static int tid_at_cmp(const void *a, const void *b)
{
	const struct tid_at *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The thread of tid @tid that began last before @at (-1: none). */
static int64_t thread_of(const struct tid_at *ta, size_t n, int32_t tid, int64_t at)
{
	size_t lo = 0, hi = n;
	int64_t found = -1;

	while (lo < hi) {	/* the first entry of @tid */
		size_t mid = lo + (hi - lo) / 2;

		if (ta[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && ta[lo].tid == tid && ta[lo].start < at; lo++)
		found = ta[lo].thread;
	return found;
}

/* The plan's threads by tid and start, for thread_of() (NULL: -ENOMEM). */
struct tid_at *rpl_wake_tid_table(const struct rpl_plan *p)
{
	size_t ti, n = p->n_threads;
	struct tid_at *ta = malloc((n ? n : 1) * sizeof(*ta));

	if (!ta)
		return NULL;
	for (ti = 0; ti < n; ti++) {
		const struct rpl_thread *t = &p->threads[ti];

		ta[ti].tid = t->tid;
		ta[ti].thread = (uint32_t)ti;
		ta[ti].start = rpl_wake_thread_start(p, t);
	}
	qsort(ta, n, sizeof(*ta), tid_at_cmp);
	return ta;
}

int rpl_wake_calls(struct rpl_plan *p, const struct tid_at *ta)
{
	size_t ti, n = p->n_threads;
	int err = 0;

	if (!p->waker || !n)
		return 0;
	for (ti = 0; ti < n; ti++) {
		const struct rpl_thread *t = &p->threads[ti];
		uint32_t k;

		for (k = 0; k < t->n_ops; k++) {
			struct rpl_op *op = &p->ops[t->ops[k]];
			uint32_t w = rpl_op_col(p->waker, p->n_waker, op);
			int64_t at, u, j;

			if (!w || (int32_t)w == t->tid)
				continue;
			at = rpl_op_order_time(op);
			u = thread_of(ta, n, (int32_t)w, at);
			if (u < 0 || (size_t)u == ti ||
			    (j = rpl_wake_last_ended(p, &p->threads[u], at)) < 0)
				continue;
			/* a call that acts from its entry (a write into a
			 * pipe, a close, RPL_OPF_ORDER_ENTER) wakes from
			 * inside: its effect is ordered by its own keys, and
			 * its end may wait for the woken thread (below) */
			if ((p->ops[p->threads[u].ops[j]].rflags & RPL_OPF_ORDER_ENTER) && j-- == 0)
				continue;
			err = rpl_dep_append(p, op, (uint32_t)u, (uint32_t)j);
			if (err < 0)
				return err;
			p->call_wakes += (uint64_t)err;
			err = 0;
		}
	}
	return 0;
}

/*
 * The waker of @op's gap as the trace names it (iot_event.gap_waker: the
 * bpf backend saw which followed thread woke its thread, @ti, from a
 * voluntary sleep in the gap, and that it did so from a call that wakes
 * others), woken at @w: that thread's last call that ended before @w
 * (*@by, *@by_pos; its end returned), else -1.  Also where that call
 * ended before the gap began (the waker computed since, or woke it
 * from a call the trace does not hold): the replay's order of the two
 * threads holds only through that dependency.  Of any process: the
 * workers of a server forked without an exec wait for each other's locks
 * in the memory they share: PostgreSQL's backends, none the other's
 * parent or child (a pgbench run: 173 of the 174 waits the bpf backend
 * saw in gaps name their waker, where the rules above matched 2; of the
 * 172 whose waker made a call before, 158 the replay ordered already,
 * the waker's last call a write or sync of the WAL file the woken one
 * writes next, deps.c).
 */
int64_t rpl_wake_gap_waker(const struct rpl_plan *p, const struct tid_at *ta, size_t ti,
			   const struct rpl_op *op, int64_t w, uint32_t *by, uint32_t *by_pos)
{
	uint32_t gw = rpl_op_col(p->gap_waker, p->n_gap_waker, op);
	int64_t u, j, end;

	if (!gw || (int32_t)gw == p->threads[ti].tid)
		return -1;
	u = thread_of(ta, p->n_threads, (int32_t)gw, w);
	if (u < 0 || (size_t)u == ti || (j = rpl_wake_last_ended(p, &p->threads[u], w)) < 0)
		return -1;
	end = rpl_op_end(&p->ops[p->threads[u].ops[j]]);
	*by = (uint32_t)u;
	*by_pos = (uint32_t)j;
	return end;
}

/*
 * A thread that computes without a call: the trace names it as the waker
 * of another's gap (bpf: gap_waker), but it has no op, so the replay
 * makes no thread of it (plan_threads.c) and its computing is not
 * replayed.  xz -T2 compressing one block: its main thread reads its
 * input, then sleeps 53 ms on a condition variable while its worker
 * compresses (57 ms of CPU, not one call: the process's exit_group
 * ends it); the main thread's budget (its own CPU time, ~6 ms) cut that
 * gap to 4 ms, and the replay's compress phase took 6.7 ms of 63.
 *
 * Such a gap keeps, on top of its think time, the part of it its thread
 * slept (waited_ns), up to what the waker's EXIT record says it used of
 * the CPU (user and system time, less the recorder's rec_ns), each
 * waker's time given once (to the gaps it woke, thread by thread, in
 * order), and never more than the gap.  It is spun as CPU time by the
 * woken thread (spin.c), as the waker computed while it slept: the
 * replay competes for the CPUs as the program did.  What the waker
 * computed while the woken thread ran too is not replayed.
 */


static int idle_cmp(const void *a, const void *b)
{
	const struct idle *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The followed threads without an op, with their CPU time by their EXIT
 * records, sorted by tid, into *@out (*@n of them; NULL: none).
 * @return : 0 or -ENOMEM. */
int rpl_wake_idle_table(const struct rpl_plan *p, const struct tid_at *ta, struct idle **out,
			size_t *n)
{
	struct idle *id = NULL;
	size_t i, m = 0, cap = 0, j;
	int err = 0;

	*n = 0;
	for (i = 0; i < p->n_precs; i++) {
		const struct iot_process *pr = &p->precs[i];
		int64_t cpu;

		if (pr->kind != IOT_PROC_EXIT || pr->tid <= 0 || pr->utime_ns < 0 ||
		    thread_of(ta, p->n_threads, pr->tid, INT64_MAX) >= 0)
			continue;
		/* (a trace's times may be any int64: saturated, not
		 * overflowed) */
		cpu = iot_ns_add(pr->utime_ns, pr->stime_ns > 0 ? pr->stime_ns : 0);
		cpu = iot_ns_sub(cpu, pr->rec_ns > 0 ? pr->rec_ns : 0);
		if (cpu <= 0)
			continue;
		RPL_GROW(id, m, cap);
		id[m++] = (struct idle){ pr->tid, cpu };
	}
	if (m) {
		qsort(id, m, sizeof(*id), idle_cmp);
		/* a tid's records made one (a tid reused by threads
		 * without ops) */
		for (i = 1, j = 0; i < m; i++) {
			if (id[i].tid == id[j].tid)
				id[j].left = iot_ns_add(id[j].left, id[i].left);
			else
				id[++j] = id[i];
		}
		*n = j + 1;
	}
out:
	if (err < 0) {
		free(id);
		id = NULL;
	}
	*out = id;
	return err;
}

/* What @op's gap keeps of its waker's computing where the trace names as
 * its waker a thread without an op (@id, @n): the sleep in the gap, up
 * to what is left of that thread's CPU time (which it takes), else 0. */
int64_t rpl_wake_idle_keep(const struct rpl_plan *p, struct idle *id, size_t n,
			   const struct rpl_op *op)
{
	uint32_t gw = rpl_op_col(p->gap_waker, p->n_gap_waker, op);
	struct idle key = { (int32_t)gw, 0 }, *f;
	int64_t slept;

	if (!gw || !n || !p->waited_ns ||
	    !(f = bsearch(&key, id, n, sizeof(*id), idle_cmp)) || f->left <= 0)
		return 0;
	slept = (int64_t)rpl_op_col(p->waited_ns, p->n_waited, op);
	if (slept <= 0)
		return 0;
	if (slept > f->left)
		slept = f->left;
	f->left -= slept;
	return slept;
}

/* Give each of thread @t's gaps in @ig (@n) what it keeps (rpl_wake_idle_keep()),
 * after the budget and the wakes' rebudget(): never more than the gap. */
void rpl_wake_idle_give(struct rpl_plan *p, const struct rpl_thread *t,
			const struct idle_gap *ig, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct rpl_op *op = &p->ops[t->ops[ig[i].k]];
		int64_t add = ig[i].keep;

		if (ig[i].gap <= op->think_ns)
			continue;
		if (add > ig[i].gap - op->think_ns)
			add = ig[i].gap - op->think_ns;
		if (add <= 0)
			continue;
		op->think_ns += add;
		p->think_ns += add;
		p->think_cut_ns -= add;
		p->idle_wakes++;
		p->idle_kept_ns += add;
	}
}
