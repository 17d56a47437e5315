/*
 * ops_wait.c - replay of the calls that block until a timeout or an event
 * (nanosleep, clock_nanosleep, poll, ppoll, select, pselect6, epoll_wait,
 * epoll_pwait, epoll_pwait2: the WAIT rows of format/syscalls.def).
 *
 * Before they were recorded, the time a process slept was in the gap
 * between two recorded calls, where budget.c's CPU budget cut it away
 * (sh -c 'sleep 0.3; true': 0.313 s recorded, 0.012 s replayed).  Now:
 *
 * - a call that ended by its timeout (a sleep that returned 0, a poll,
 *   select or epoll_wait that returned 0) sleeps its recorded duration,
 *   from when it really starts, closed-loop like every op: never longer
 *   than its timeout (a relative one), since a duration measured at
 *   ptrace stops also holds the tracer's latency;
 * - a call that returned because something happened (ret > 0, or a
 *   signal: EINTR) is not slept as a fixed duration: what it waited for
 *   is another op the plan orders it after, or outside the trace.
 *
 * - a sleep of a poll for a child's end (a wait4 WNOHANG of the same
 *   thread found the child running, before the wait4 that reaped it:
 *   plan_threads.c) is not slept once the replay's child has ended: the
 *   recording made as many rounds as its child ran, slowed by the
 *   recorder;
 * - a round of a thread's loop of sleeps that ended as another thread of
 *   its process ended (polls.c) is not slept once that thread has ended
 *   here, for the same reason.
 *
 * --timing afap sleeps none, --timing scale scales them as think times.
 * The summary says how many slept, for how long in all, how many were
 * left to the ordering and how many polls for an ended child were cut.
 * Their durations are op times, not gaps, so budget.c's budget never
 * counts them.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <time.h>

#include "rpl.h"

/* The timeout the call was given, in ns, or -1: none, or not relative. */
static int64_t timeout_ns(const struct iot_syscall *sc, const struct rpl_ev *ev)
{
	int i;

	if (ev->nr == SYS_clock_nanosleep && (ev->args[1] & TIMER_ABSTIME))
		return -1;
	if ((i = iot_syscall_arg(sc, IOT_ARG_TIMESPEC)) >= 0 ||
	    (i = iot_syscall_arg(sc, IOT_ARG_TIMEVAL)) >= 0)
		return ev->args[i] >= 0 ? ev->args[i] : -1;
	if ((i = iot_syscall_arg(sc, IOT_ARG_MSEC)) >= 0)
		return (int32_t)ev->args[i] >= 0 ? (int64_t)(int32_t)ev->args[i] * 1000000 : -1;
	return -1;
}

int64_t rpl_wait_timeout_ns(const struct rpl_ev *ev)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(ev->nr);

	return sc && sc->cls == IOT_CLASS_WAIT ? timeout_ns(sc, ev) : -1;
}

int64_t rpl_wait_sleep_ns(const struct rpl_ev *ev)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(ev->nr);
	int64_t d, to;

	if (!sc || sc->cls != IOT_CLASS_WAIT ||
	    (ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS)))
		return -1;
	/* 0 is "slept to the end" for the sleeps, "nothing came" for the
	 * others; anything else returned for an event or a signal */
	if (ev->ret != 0)
		return -1;
	d = ev->t_exit - ev->t_enter;
	if (d < 0)
		d = 0;
	to = timeout_ns(sc, ev);
	return to >= 0 && to < d ? to : d;
}

int64_t rpl_sleep_until(int64_t t)
{
	struct timespec ts;

	ts.tv_sec = t / 1000000000;
	ts.tv_nsec = t % 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed))
			return -EINTR;
	return 0;
}

static int64_t h_wait(struct rpl_ctx *c, struct rpl_op *op)
{
	int64_t ns = rpl_wait_sleep_ns(&op->ev);

	if (ns < 0) {
		atomic_fetch_add(&c->p->waits_left, 1);
		return op->ev.ret;
	}
	ns = rpl_timed_ns(c->p->o, ns);
	/* a round of a poll for a child that has ended here (plan_threads.c) */
	if (rpl_op_wait_proc(op) >= 0 && ns > 0 &&
	    atomic_load(&c->p->procs[op->link].finished)) {
		atomic_fetch_add(&c->p->waits_polled, 1);
		atomic_fetch_add(&c->p->waits_polled_ns, (uint64_t)ns);
		return op->ev.ret;
	}
	/* a round of a loop polling for a thread that has ended here (polls.c) */
	if (rpl_op_wait_thread(op) >= 0 && ns > 0 &&
	    atomic_load(&c->p->threads[op->link].n_done) >= c->p->threads[op->link].n_ops) {
		atomic_fetch_add(&c->p->polls_cut, 1);
		atomic_fetch_add(&c->p->polls_cut_ns, (uint64_t)ns);
		return op->ev.ret;
	}
	atomic_fetch_add(&c->p->waits_slept, 1);
	atomic_fetch_add(&c->p->waits_ns, (uint64_t)ns);
	if (ns > 0)
		RPL_TIMED(c, rpl_sleep_until(iot_now_ns() + ns));
	return op->ev.ret;
}

void rpl_ops_wait(rpl_handler *h)
{
	h[SYS_nanosleep] = h_wait;
	h[SYS_clock_nanosleep] = h_wait;
	h[SYS_poll] = h_wait;
	h[SYS_ppoll] = h_wait;
	h[SYS_select] = h_wait;
	h[SYS_pselect6] = h_wait;
	h[SYS_epoll_wait] = h_wait;
	h[SYS_epoll_pwait] = h_wait;
	h[SYS_epoll_pwait2] = h_wait;
}
