/*
 * budget_int.h - what budget.c (the CPU time that bounds think time) and
 * budget_calls.c (what each call used of it) share.  Nothing else
 * includes it.
 */
#ifndef RPL_BUDGET_INT_H
#define RPL_BUDGET_INT_H

#include <stdint.h>

#define CALL_MIN_SAMPLES 20
#define CALL_BLOCKED 16		/* medians: longer, it blocked */
#define CALL_NR_MAX 512
#define CALL_KEYS (2 * CALL_NR_MAX)	/* per syscall, failed or not */

struct rpl_op;
struct rpl_plan;

/* A call that waits for time or for another process: its duration is
 * not CPU time. */
int rpl_is_wait(const struct rpl_op *op);
/* what the stops of one call cost each thread, into @cost[thread] */
int rpl_run_cost(struct rpl_plan *p, int64_t *cost);
/* per kind of call, into @caps[CALL_KEYS * 3], what bounds its share;
 * into @held, what the stops hold of a stopped call's duration */
int rpl_call_caps(const struct rpl_plan *p, const uint8_t *waits, int64_t *caps, int64_t *held);
/* what @op's call used of the CPU, as the budget counts it */
int64_t rpl_call_cpu(const struct rpl_plan *p, const uint8_t *waits, const struct rpl_op *op,
		 const int64_t *caps, int64_t held);
/* ... at most its kind's 5th percentile, where its thread's calls would
 * use more CPU time than the thread did */
int64_t rpl_call_low(const struct rpl_plan *p, const uint8_t *waits, const struct rpl_op *op,
		 const int64_t *caps, int64_t cpu);

#endif
