/*
 * wakes_int.h - private to wakes.c and wakes_named.c: who woke a thread.
 */
#ifndef IOTAPE_WAKES_INT_H
#define IOTAPE_WAKES_INT_H

#include "rpl.h"

/* a thread by its tid and start (rpl_wake_tid_table()) */
struct tid_at {
	int32_t tid;
	uint32_t thread;
	int64_t start;
};

/* a followed thread without an op, and its CPU time not yet given */
struct idle {
	int32_t tid;
	int64_t left;		/* ns of its CPU time not yet given to a gap */
};

/* a gap that keeps a sleep so (rpl_wake_idle_keep()), until the budget
 * is done */
struct idle_gap {
	uint32_t k;		/* its op's position in its thread */
	int64_t keep;		/* what it keeps of the sleep */
	int64_t gap;		/* its length as recorded */
};

/* wakes.c */
/* The position in thread @u of its last op that ended before @e (-1:
 * none). */
int64_t rpl_wake_last_ended(const struct rpl_plan *p, const struct rpl_thread *u, int64_t e);
/* When thread @t began (INT64_MAX: no op). */
int64_t rpl_wake_thread_start(const struct rpl_plan *p, const struct rpl_thread *t);

/* wakes_named.c: wakers the recorder named (bpf) */
/* The plan's threads by tid and start (NULL: -ENOMEM). */
struct tid_at *rpl_wake_tid_table(const struct rpl_plan *p);
/* Calls woken by a call of another followed thread follow it.
 * @return : 0 or -ENOMEM */
int rpl_wake_calls(struct rpl_plan *p, const struct tid_at *ta);
/* The end of the call of the thread named as the waker of @op's gap,
 * woken at @w (*@by, *@by_pos), else -1. */
int64_t rpl_wake_gap_waker(const struct rpl_plan *p, const struct tid_at *ta, size_t ti,
			   const struct rpl_op *op, int64_t w, uint32_t *by, uint32_t *by_pos);
/* The followed threads without an op, with their CPU time.
 * @return : 0 or -ENOMEM */
int rpl_wake_idle_table(const struct rpl_plan *p, const struct tid_at *ta, struct idle **out,
			size_t *n);
/* What @op's gap keeps of its sleep, taken from its waker's CPU time. */
int64_t rpl_wake_idle_keep(const struct rpl_plan *p, struct idle *id, size_t n,
			   const struct rpl_op *op);
/* Give each of thread @t's gaps in @ig what it keeps. */
void rpl_wake_idle_give(struct rpl_plan *p, const struct rpl_thread *t,
			const struct idle_gap *ig, size_t n);

#endif
