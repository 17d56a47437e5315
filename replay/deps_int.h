/*
 * deps_int.h - what deps.c (resource order: the resources' last changes
 * and lookers, the pipes, the heap of ops pending until their effect
 * counted) and deps_seen.c (the pending ops an op's result shows came
 * first, pulled ahead of it) share.  Nothing else includes it; it comes
 * after rpl.h.
 */
#ifndef RPL_DEPS_INT_H
#define RPL_DEPS_INT_H

#include <stddef.h>
#include <stdint.h>

#define NO_OP UINT32_MAX

struct lookers;
struct pipe_st;
struct rpl_op;
struct rpl_plan;
struct rpl_seen;

/* An op kept until the plan's entry time reaches when its effect
 * counted. */
struct pend {
	int64_t t;
	int64_t at;			/* its offset in its file (seen.c) */
	uint32_t op;
	uint8_t nk;
	uint8_t data;			/* what it does to a file's data, mode, names (RPL_DATA_*) */
	uint16_t reads;			/* its result tells what came first (rpl_seen_looks()) */
	uint8_t frees;			/* a close, exec or exit that lets locks go */
	uint8_t late;			/* an exit counted past its entry (deps.c freed_at()) */
	uint64_t keys[RPL_MAXRES];
};

/* Per resource key, the ops of one kind kept since its last change: the
 * looks, or the names made or removed (RPL_KEY_NAME). */
struct kept {
	struct lookers *v;
	size_t n, cap;
};

/* What a resource key has: its last change and where its kept ops are
 * (NO_OP: none).  One map lookup a key for all three: they were three
 * maps, and their lookups (cache misses on long traces) the plan's
 * largest cost. */
struct res_st {
	uint32_t last, look, name;
};

/* A resource key and its state in one slot of an open-addressed table:
 * a look-up reads one cache line, where a map of the key to an index
 * read one and the array of states another (two cache misses a key on
 * long traces), and a new key probed twice. */
struct res_slot {
	uint32_t k[2];			/* the key, 4-aligned; 0: empty */
	struct res_st st;
};

struct res_tab {
	struct res_slot *s;
	size_t cap, n;
};

struct rpl_deps {
	struct rpl_map pipes;		/* key -> index in ps */
	struct res_tab res;
	struct res_st *files;		/* open files' (RPL_KEY_RES), by id */
	size_t n_files;
	struct kept look, name;
	struct pipe_st *ps;
	size_t n_ps, cap_ps;
	struct pend *heap;		/* min-heap by (t, op) */
	size_t n_heap, cap_heap;
	size_t n_looks[RPL_DATA_CREATE + 1];	/* ... of them looks (pend.reads), by kind */
	struct rpl_seen *seen;
	/* each thread's last op ordered (NO_OP: none), for the ops that
	 * take a whole tree (tree_op()) */
	uint32_t *last_of;
	size_t n_last;
	/* the record locks held by the ops ordered so far (deps_seen.c) */
	struct lk_held *held;
	size_t n_held, cap_held;
	int held_lost;			/* more than LK_HELD_MAX: not known */
};

/* ---- deps.c ---- */
/* the last change of @key (NO_OP: none), its state not made where it
 * has none */
uint32_t rpl_res_last(const struct rpl_deps *d, uint64_t key);
/* heap entry @i out of @d's heap, into *@out (0: the first) */
void rpl_heap_take(struct rpl_deps *d, size_t i, struct pend *out);
/* pending op @e ordered now: its dependencies, and the size of the file
 * it wrote (seen.c) */
int rpl_order_pend(struct rpl_plan *p, struct rpl_deps *d, const struct pend *e);

/* ---- deps_seen.c ---- */
/* ops looked at past an exit that lets a lock go for good (rpl_freed_at()) */
#define FREED_SCAN 4096
/* the end of its process's reap, or of the first op of the FREED_SCAN
 * after exit @oi (lock keys among @keys) that shows its locks were free
 * (INT64_MAX: none) */
int64_t rpl_freed_at(const struct rpl_plan *p, uint32_t oi, const uint64_t *keys);
/* Is pending op @h, another thread's than exit @e's, a read that met the
 * end of a pipe whose last write end @e closes? */
int rpl_eof_of(const struct rpl_plan *p, const struct pend *h, const struct pend *e);
/* the same among the ops pending: the least of their times and @e's */
int64_t rpl_freed_pending(const struct rpl_plan *p, const struct rpl_deps *d,
			  const struct pend *e);
/* before op @x is ordered: the pending ops its result shows came first,
 * ordered */
int rpl_pull_seen(struct rpl_plan *p, struct rpl_deps *d, const struct pend *x);
/* pending op @e was ordered: the record locks it took or let go */
int rpl_locks_ordered(const struct rpl_plan *p, struct rpl_deps *d, const struct pend *e);

#endif
