/*
 * exec_wait.c - a replay thread's waits for other threads: for the ops
 * it follows (resource order), for a process's end (wait4), for as long
 * as a woken op lags its waker's call, and for its scheduled start; and
 * the stop a signal asks for, which ends them all.  Apart from
 * exec_thread.c, whose ops wait here, as one protocol of its own:
 *
 * A dependency names an op by its thread and its position there (struct
 * rpl_dep): it is met once that thread's count of ops run has passed it,
 * which is read without touching the op.  A waiter puts itself, with the
 * position it waits for, on that thread's list (struct rpl_waiter, on its
 * stack, under the thread's wl_lock) and sleeps on a word of its own; the
 * lowest position waited for is kept in the thread (wait_pos), so that
 * only the completion of an op at or past it takes the lock, and wakes
 * the waiters it lets go, no other.  (With one word for all, every such
 * completion woke every sleeping thread, which went back to sleep: 400
 * threads each reading its pipe as another wrote them in turn replayed
 * in 3.7 s, 6.4 s of it the kernel's, for 0.1 s natively.)  A hostile trace
 * can make ops wait for each other in a circle; when every running thread
 * has waited on a dependency for RPL_DEADLOCK_NS, one wait is given up and
 * counted (an ordering violation follows), so a replay never hangs.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"
#include "exec_int.h"

#define RPL_DEADLOCK_NS 200000000LL
#define RPL_SPIN_NS 50000

_Atomic int rpl_stop_sig;

int rpl_stopping(void)
{
	return atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed) != 0;
}

long rpl_futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

/* Ask thread @t to wake its waiters (and the sleepers on plan.gen) when
 * its op at @pos has run: the lowest position asked for is kept. */
static void want_pos(struct rpl_thread *t, uint32_t pos)
{
	uint32_t cur = atomic_load(&t->wait_pos);

	while (pos < cur && !atomic_compare_exchange_weak(&t->wait_pos, &cur, pos))
		;
}

void rpl_wake_all(struct rpl_plan *p)
{
	atomic_fetch_add(&p->gen, 1);
	if (atomic_load(&p->waiters) && rpl_futex(&p->gen, FUTEX_WAKE, INT_MAX, NULL) > 0)
		rpl_woke(p);
}

/* A thread waiting for op @pos of another, on that thread's list. */
struct rpl_waiter {
	uint32_t pos;
	_Atomic uint32_t word;		/* 1: let go */
	struct rpl_waiter *next;
};

void rpl_wake_thread(struct rpl_plan *p, struct rpl_thread *t)
{
	uint32_t done = atomic_load(&t->n_done), low = UINT32_MAX;
	struct rpl_waiter *w;

	pthread_mutex_lock(&t->wl_lock);
	for (w = t->waiters; w; w = w->next) {
		if (w->pos < done) {
			if (!atomic_exchange(&w->word, 1) &&
			    rpl_futex(&w->word, FUTEX_WAKE, 1, NULL) > 0)
				rpl_woke(p);
		} else if (w->pos < low) {
			low = w->pos;
		}
	}
	/* the lowest still waited for (a waiter between its want_pos()
	 * and its look at the count sees the count) */
	want_pos(t, low);
	pthread_mutex_unlock(&t->wl_lock);
	rpl_wake_all(p);
}

int rpl_dep_done(const struct rpl_plan *p, const struct rpl_dep *d)
{
	return atomic_load_explicit(&p->threads[d->thread].n_done, memory_order_acquire) > d->pos;
}

int rpl_set_flag(_Atomic int *flag32)
{
	atomic_store(flag32, 1);
	return (int)rpl_futex((_Atomic uint32_t *)flag32, FUTEX_WAKE, INT_MAX, NULL);
}

/* Wait until thread @t has run its op at @pos, or (@t NULL) until
 * *@flag32 is set.  @return : 0, or 1 if the wait was given up to break
 * a deadlock. */
int rpl_wait_flag(struct rpl_plan *p, struct rpl_thread *t, uint32_t pos,
		     _Atomic int *flag32)
{
	const struct timespec tick = { 0, 20000000 };
	struct rpl_waiter me = { .pos = pos, .word = 0, .next = NULL };
	int64_t stuck_since = 0;
	int broke = 0;

#define FLAG_SET() (t ? atomic_load(&t->n_done) > pos : atomic_load(flag32) != 0)
	if (FLAG_SET())
		return 0;
	/* An op is waited for on the waiter's own word, its position left
	 * in its thread's list and asked for (wait_pos) before the count is
	 * read: a completion that misses it has already counted the op,
	 * which the loop then sees, and one that sees it lets go the waiters
	 * its count passed and asks again for the lowest of the others
	 * (rpl_wake_thread()).  A process's end (wait4) is waited for on its
	 * own word. */
	if (t) {
		pthread_mutex_lock(&t->wl_lock);
		me.next = t->waiters;
		t->waiters = &me;
		want_pos(t, pos);
		pthread_mutex_unlock(&t->wl_lock);
	}
	atomic_fetch_add(&p->depwait, 1);
	for (;;) {
		if (FLAG_SET())
			break;
		if (rpl_stopping()) {
			broke = 1;
			break;
		}
		if (atomic_load(&p->depwait) >= atomic_load(&p->active)) {
			int64_t now = iot_now_ns();

			if (!stuck_since)
				stuck_since = now;
			else if (now - stuck_since > RPL_DEADLOCK_NS) {
				atomic_fetch_add(&p->breaks, 1);
				broke = 1;
				break;
			}
		} else {
			stuck_since = 0;
		}
		if (t) {
			/* the tick: a stop, or a deadlock to break, is seen
			 * within it */
			if (!atomic_load(&me.word))
				rpl_futex(&me.word, FUTEX_WAIT, 0, &tick);
			atomic_store(&me.word, 0);
			want_pos(t, pos);
		} else
			rpl_futex((_Atomic uint32_t *)flag32, FUTEX_WAIT, 0, &tick);
	}
#undef FLAG_SET
	atomic_fetch_sub(&p->depwait, 1);
	if (t) {
		struct rpl_waiter **pw;

		pthread_mutex_lock(&t->wl_lock);
		for (pw = &t->waiters; *pw; pw = &(*pw)->next)
			if (*pw == &me) {
				*pw = me.next;
				break;
			}
		pthread_mutex_unlock(&t->wl_lock);
	}
	return broke;
}

void rpl_wait_proc(struct rpl_plan *p, uint32_t pi)
{
	rpl_wait_flag(p, NULL, 0, &p->procs[pi].finished);
}

/* Have the ops @op follows all run? */
int rpl_deps_met(const struct rpl_plan *p, const struct rpl_op *op)
{
	uint16_t i;

	for (i = 0; i < op->ndeps; i++)
		if (!rpl_dep_done(p, &p->deps[op->dep_off + i]))
			return 0;
	return 1;
}

/* @return : whether it had to wait */
int rpl_wait_deps(struct rpl_plan *p, struct rpl_op *op)
{
	uint16_t i;
	int waited = 0;

	for (i = 0; i < op->ndeps; i++) {
		const struct rpl_dep *d = &p->deps[op->dep_off + i];

		if (!rpl_dep_done(p, d)) {
			rpl_wait_flag(p, &p->threads[d->thread], d->pos, NULL);
			waited = 1;
		}
	}
	return waited;
}

/* When dependency @d's op ended here, if its thread has run no op since
 * (its gap after it is not over): else 0.  For a woken op's lag: the
 * op's thread writes the end before its count (rpl_thread_main()). */
int64_t rpl_waker_end(struct rpl_plan *p, const struct rpl_dep *d)
{
	struct rpl_thread *u = &p->threads[d->thread];
	uint32_t a = atomic_load_explicit(&u->needed_end_pos, memory_order_acquire);
	int64_t end = atomic_load_explicit(&u->needed_end_ns, memory_order_acquire);

	if (a != d->pos || atomic_load_explicit(&u->needed_end_pos, memory_order_acquire) != a ||
	    atomic_load(&u->n_done) != d->pos + 1)
		return 0;
	return end;
}

/* Wait until @until, or until the thread of dependency @d has run its op
 * after @d's (the waker's gap is over here, the wake-up in it too: it
 * came sooner than recorded).  @return : when it ended. */
int64_t rpl_wait_lag(struct rpl_plan *p, const struct rpl_dep *d, int64_t until)
{
	struct rpl_thread *u = &p->threads[d->thread];
	int64_t now = iot_now_ns();

	atomic_fetch_add(&p->waiters, 1);
	while (now < until && !rpl_stopping()) {
		uint32_t g = atomic_load(&p->gen);
		int64_t left;

		want_pos(u, d->pos + 1);
		if (atomic_load(&u->n_done) > d->pos + 1)
			break;
		left = until - now - RPL_SPIN_NS;
		if (left > 0) {
			struct timespec ts = { left / 1000000000, left % 1000000000 };

			rpl_futex(&p->gen, FUTEX_WAIT, g, &ts);
		} else {
			__builtin_ia32_pause();
		}
		now = iot_now_ns();
	}
	atomic_fetch_sub(&p->waiters, 1);
	return now;
}

int rpl_wait_until(int64_t t)
{
	int64_t now = iot_now_ns();

	if (t - now > RPL_SPIN_NS) {
		int64_t w = t - RPL_SPIN_NS;
		struct timespec ts = { w / 1000000000, w % 1000000000 };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (rpl_stopping())
				return 1;
	}
	while (iot_now_ns() < t)
		__builtin_ia32_pause();
	return 0;
}
