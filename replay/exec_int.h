/*
 * exec_int.h - what exec.c (the threads started, watched and joined),
 * exec_thread.c (one thread's ops in turn) and exec_wait.c (its waits
 * for other threads) share; fork_fds.c waits with rpl_wait_flag() too.
 * Nothing else includes it.
 */
#ifndef RPL_EXEC_INT_H
#define RPL_EXEC_INT_H

#include <stdint.h>
#include <time.h>

struct rpl_dep;
struct rpl_op;
struct rpl_plan;
struct rpl_proc;
struct rpl_thread;

/* ---- exec_wait.c ---- */
/* Has a signal asked the replay to stop (rpl_stop_sig)? */
int rpl_stopping(void);
/* futex(2) on @w, private to the replayer */
long rpl_futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts);
/* bump plan.gen and wake the threads asleep on it */
void rpl_wake_all(struct rpl_plan *p);
/* ... and the threads waiting for an op of @t (its done_word) */
void rpl_wake_thread(struct rpl_plan *p, struct rpl_thread *t);
/* Has the op of dependency @d run? */
int rpl_dep_done(const struct rpl_plan *p, const struct rpl_dep *d);
/* *@flag32 set, its waiters (rpl_wait_flag()) woken: how many */
int rpl_set_flag(_Atomic int *flag32);
/* wait for thread @t's op at @pos, or (@t NULL) for *@flag32;
 * @return : 1 if given up to break a deadlock */
int rpl_wait_flag(struct rpl_plan *p, struct rpl_thread *t, uint32_t pos,
		  _Atomic int *flag32);
/* Have the ops @op follows all run? */
int rpl_deps_met(const struct rpl_plan *p, const struct rpl_op *op);
/* wait for the ops @op follows; @return : whether it had to wait */
int rpl_wait_deps(struct rpl_plan *p, struct rpl_op *op);
/* when dependency @d's op ended, if its thread has run no op since; else 0 */
int64_t rpl_waker_end(struct rpl_plan *p, const struct rpl_dep *d);
/* wait until @until, or until @d's thread has run its op after @d's;
 * @return : when it ended */
int64_t rpl_wait_lag(struct rpl_plan *p, const struct rpl_dep *d, int64_t until);

/* ---- exec_thread.c ---- */
/* a replay thread (@arg: its struct rpl_thread), from its start to its end */
void *rpl_thread_main(void *arg);
/* @pr got a table of its own, used by its one thread: no lock */
void rpl_table_made(struct rpl_proc *pr);

#endif
