/*
 * think.h - what think.c (the think time of each op) and budget.c,
 * budget_calls.c (the CPU time that bounds it) share; profile.c asks it
 * where a bpf gap's cost came from.  Nothing else includes it.
 */
#ifndef RPL_THINK_H
#define RPL_THINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "rpl.h"

/* The smallest n / k + 1 of n values in a max-heap of that many (think.c):
 * their top is the value at index n / k in sorted order. */
struct rpl_smallest {
	int64_t *h;
	size_t n, cap;
};

/*! rpl_smallest_add() : keep @x in @s if it is among the smallest. */
void rpl_smallest_add(struct rpl_smallest *s, int64_t x);

/*! rpl_smallest_top() : the largest value kept (0: none). */
int64_t rpl_smallest_top(const struct rpl_smallest *s);

/*! rpl_select_u32() : the value at index @k of @a[@n] in sorted order;
 *  @a reordered (think.c). */
uint32_t rpl_select_u32(uint32_t *a, size_t n, size_t k);

/* Per thread, what think.c made of its gaps, for the budget's lines
 * under IOTAPE_REPLAY_BUDGET (think_dbg_line()): the recorded gaps, their
 * median, what the floors (@holds of it: the bpf guard's holds) and the
 * stops' cost took off them, and how
 * many the floors took whole. */
struct rpl_think_dbg {
	double raw, floors, holds, stops;
	int64_t p50;
	uint32_t n, zeroed;
};

/*! rpl_header_ns() : the header key @key of @p's trace as a count of ns
 *  (budget.c): -1 where it is missing, empty, not a whole number, negative
 *  or above @max. */
int64_t rpl_header_ns(const struct rpl_plan *p, const char *key, int64_t max);

/*! rpl_bpf_gap_measured() : what the recorder measured its BPF programs
 *  add to each gap between two calls (header record.bpf_gap_ns, think.c),
 *  in ns; -1 where the trace does not say (then the least floor).  The
 *  profile's header says which (profile.c). */
int64_t rpl_bpf_gap_measured(const struct rpl_plan *p);

/*! rpl_think_budget() : scale each thread's think times down to fit the
 *  CPU time it used outside its calls, less @rec_cpu[thread] (NULL: 0),
 *  the recorder's CPU time think.c took off its gaps, and sum them into
 *  p->think_ns and p->think_cut_ns (budget.c); with @dbg (per thread),
 *  a line per thread says how each was planned.  @return : 0 or -ENOMEM. */
int rpl_think_budget(struct rpl_plan *p, const double *rec_cpu, const struct rpl_think_dbg *dbg);

/* The tracer stopped the process around this call. */
static inline int rpl_op_stopped(const struct rpl_op *op)
{
	return !(op->ev.flags & (IOT_EV_FASTPATH | IOT_EV_BPF));
}

/* A program started: a successful exec. */
static inline int rpl_op_is_exec(const struct rpl_op *op)
{
	return (op->ev.nr == SYS_execve || op->ev.nr == SYS_execveat) && op->ev.ret == 0;
}

/* The in-process logging's work before @op's call (pre_ns; 0: unknown). */
static inline uint32_t rpl_op_pre(const struct rpl_plan *p, const struct rpl_op *op)
{
	return rpl_op_col(p->pre_ns, p->n_pre, op);
}

#endif
