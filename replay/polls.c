/*
 * polls.c - a thread that sleeps in a loop until other threads of its
 * process have ended: a monitor or progress thread, or a main thread that
 * checks now and then whether its workers are done (through memory: no
 * call says so).  It makes as many rounds as those threads ran long when
 * recorded, and every round that timed out is slept as recorded
 * (ops_wait.c), so the replay lasts at least as long as the recording
 * did, however soon its own threads end; and where they run longer here,
 * the loop's end and what follows it come before their end.
 *
 * fio (psync, 2 job threads, --thread) has its main thread sleep 10 ms
 * in clock_nanosleep until the jobs are done.  Recorded under ptrace at
 * load 6, its jobs took 1.44-1.49 s and the main thread slept 151 rounds;
 * replayed, the jobs ended 0.93-1.0 s after the start and the replay ran
 * on to 2.07 s, the rounds' end (native runs: the jobs' I/O 0.41-0.90 s,
 * the loop's end within 10 ms of the last job's).  A quiet recording's
 * replay still ran 0.09 s past its jobs' end.
 *
 * The trace tells such a loop by its end: a sleep that timed out after
 * which the thread made no other timed-out sleep within as long as that
 * sleep lasted (the loop stopped going round), where other threads of
 * the process ended during it or during the round before it (a loop
 * checks before or after its sleep: fio's main thread went round once
 * more after its last job's end), and at least one more such round of
 * the thread since the latest of those threads started (a loop, not one
 * sleep).  Then the loop's rounds (back from the last, each a sleep of
 * the thread's that timed out, the same call with the same timeout as
 * the last, which ended within as long as it lasted before the next
 * began, since that thread started) are marked with it
 * (RPL_OPF_WAITT): a replay
 * that reaches one once that thread has ended does not sleep it, as a
 * poll for a child's end (plan_threads.c); and the thread's next op
 * follows the end of every thread of the process that ended in those
 * last two rounds, as the loop's end did.  Each such dependency points
 * back in time (those ends came before the op entered), so it makes no
 * cycle.
 *
 * Sleeps that a signal or an event ended are not rounds (ops_wait.c
 * leaves them to the ordering); threads of other processes are not
 * looked at (their ends are told by wait4: plan_threads.c).
 * IOTAPE_REPLAY_POLLS=0 plans none (to measure what they do).
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rpl.h"

/* When thread @u ended, as recorded (the entry of its last op, its exit),
 * or -1: its end is not in the trace. */
static int64_t thread_end(const struct rpl_plan *p, const struct rpl_thread *u)
{
	if (!u->ended || !u->n_ops)
		return -1;
	return p->ops[u->ops[u->n_ops - 1]].ev.t_enter;
}

/* When thread @u started: its clone's end, or its first op's entry. */
static int64_t thread_start(const struct rpl_plan *p, const struct rpl_thread *u)
{
	if (u->spawn_op >= 0)
		return rpl_op_end(&p->ops[u->spawn_op]);
	return u->n_ops ? p->ops[u->ops[0]].ev.t_enter : INT64_MAX;
}

/* Each process's threads (rpl_proc_threads()): not every thread of the
 * trace looked through for each round of each loop. */
struct procs_threads {
	const uint32_t *off, *thr;
};

/* The thread of @t's process, not @t, that ended last within (@from,
 * @to], or -1. */
static int64_t ended_in(const struct rpl_plan *p, const struct procs_threads *pt, size_t t,
			int64_t from, int64_t to)
{
	uint32_t pr = p->threads[t].proc, i;
	int64_t best = -1, at = -1;

	for (i = pt->off[pr]; i < pt->off[pr + 1]; i++) {
		size_t u = pt->thr[i];
		int64_t x;

		if (u == t)
			continue;
		x = thread_end(p, &p->threads[u]);
		if (x > from && x <= to && x > at) {
			at = x;
			best = (int64_t)u;
		}
	}
	return best;
}

/* Whether thread @t sleeps a timed-out round again, at position @k + 1
 * or later, within @within after its round at @k ended. */
static int goes_round(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t k,
		      int64_t within)
{
	int64_t end = rpl_op_end(&p->ops[t->ops[k]]);
	uint32_t j;

	for (j = k + 1; j < t->n_ops; j++) {
		const struct rpl_op *op = &p->ops[t->ops[j]];

		if (iot_ns_sub(op->ev.t_enter, end) > within)
			return 0;
		if (rpl_wait_sleep_ns(&op->ev) >= 0)
			return 1;
	}
	return 0;
}

/* Thread @ti's loop that ended with its round at @k, polling for thread
 * @bi: its rounds since @bi started marked, its next op made to follow
 * the ends of the threads that ended in its last two rounds (from @from,
 * the entry of the one before the last). */
static int mark_loop(struct rpl_plan *p, const struct procs_threads *pt, size_t ti, uint32_t k,
		     uint32_t bi, int64_t from)
{
	const struct rpl_thread *t = &p->threads[ti];
	struct rpl_op *last = &p->ops[t->ops[k]];
	int64_t since = thread_start(p, &p->threads[bi]), next = last->ev.t_enter;
	uint32_t j, first = k, n = 1, i;
	int err = 0;

	/* its rounds: back from the last, the same call with the same
	 * timeout, while each ended within as long as it lasted before the
	 * next began, since @bi started */
	for (j = k; j-- > 0;) {
		const struct rpl_op *op = &p->ops[t->ops[j]];

		if (op->ev.t_enter < since)
			break;
		if (rpl_wait_sleep_ns(&op->ev) < 0 || rpl_op_wait_proc(op) >= 0)
			continue;
		if (op->ev.nr != last->ev.nr ||
		    rpl_wait_timeout_ns(&op->ev) != rpl_wait_timeout_ns(&last->ev) ||
		    iot_ns_sub(next, rpl_op_end(op)) > iot_ns_sub(rpl_op_end(op), op->ev.t_enter))
			break;
		first = j;
		next = op->ev.t_enter;
		n++;
	}
	if (n < 2)
		goto out;
	for (j = first; j <= k; j++) {
		struct rpl_op *op = &p->ops[t->ops[j]];

		if (rpl_wait_sleep_ns(&op->ev) >= 0 && rpl_op_wait_proc(op) < 0) {
			rpl_op_set_link(op, RPL_OPF_WAITT, bi);
			p->poll_rounds++;
		}
	}
	p->poll_loops++;
	if (k + 1 >= t->n_ops)
		goto out;
	for (i = pt->off[t->proc]; i < pt->off[t->proc + 1]; i++) {
		size_t u = pt->thr[i];
		const struct rpl_thread *b = &p->threads[u];
		int64_t x;

		if (u == ti || (x = thread_end(p, b)) < 0 ||
		    x <= from || x > rpl_op_end(last))
			continue;
		err = rpl_dep_append(p, &p->ops[t->ops[k + 1]], (uint32_t)u, b->n_ops - 1);
		if (err < 0)
			goto out;
	}
	err = 0;
out:
	return err;
}

int rpl_plan_polls(struct rpl_plan *p)
{
	const char *env = getenv("IOTAPE_REPLAY_POLLS");
	struct procs_threads pt;
	size_t ti;
	uint32_t k;
	int err = 0;

	/* IOTAPE_REPLAY_POLLS=0: none (to measure what they do) */
	if (env && strcmp(env, "0") == 0)
		return 0;
	if (rpl_proc_threads(p) < 0)
		return -ENOMEM;
	pt.off = p->proc_thr_off;
	pt.thr = p->proc_thr;
	for (ti = 0; ti < p->n_threads; ti++) {
		const struct rpl_thread *t = &p->threads[ti];
		int64_t prev = -1;	/* the entry of its round before */

		if (p->procs[t->proc].n_threads < 2)
			continue;
		for (k = 0; k < t->n_ops; k++) {
			const struct rpl_op *op = &p->ops[t->ops[k]];
			int64_t b, from = prev;

			if (rpl_wait_sleep_ns(&op->ev) < 0 || rpl_op_wait_proc(op) >= 0)
				continue;
			prev = op->ev.t_enter;
			if (from < 0 ||
			    goes_round(p, t, k, iot_ns_sub(rpl_op_end(op), op->ev.t_enter)) ||
			    (b = ended_in(p, &pt, ti, from, rpl_op_end(op))) < 0)
				continue;
			err = mark_loop(p, &pt, ti, k, (uint32_t)b, from);
			if (err < 0)
				goto out;
		}
	}
out:
	return err;
}
