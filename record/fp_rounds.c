/*
 * fp_rounds.c - the fast path's rings under the mixed backend (`record
 * --backend mixed`, record/bpf_drain.c): no ptrace stop drains them, so the
 * recorder drains in rounds, its BPF records and these merged by time
 * (record/README.md, "The mixed backend").  And the freeing of a thread's
 * slots, under either backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "fastpath/fp.h"
#include "rec.h"
#include "fp_int.h"

/* the slots of @tid claimed before @before, handed back */
void rec_fast_free_slots(struct rec_ctx *c, pid_t tid, uint64_t before)
{
	unsigned k;

	for (k = 0; k < FP_NSLOTS; k++) {
		struct fp_slot *s = fp_slot_at(c->fast->base, k);

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FP_SLOT_OWNED ||
		    __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) != tid || s->t_claim >= before)
			continue;
		/* whatever is left was reserved and never written */
		s->tid = 0;
		s->full = 0;
		s->t_claim = 0;
		__atomic_store_n(&s->tail, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->head, 0, __ATOMIC_RELAXED);
		/* zero pages again, and memory given back */
		madvise(fp_ring_of(s), FP_RING_BYTES, MADV_REMOVE);
		__atomic_store_n(&s->state, FP_SLOT_FREE, __ATOMIC_RELEASE);
	}
}

/* index of @tid in the round's ended threads, or -1 */
static int dead_at(const struct rec_fast *f, pid_t tid)
{
	size_t i;

	for (i = 0; i < f->ndead; i++)
		if (f->dead[i] == tid)
			return (int)i;
	return -1;
}

/*
 * Collect the records entered before @cut (and whatever the threads of
 * @dead, which ended, left in flight), in entry order, for
 * rec_fast_peek()/rec_fast_decode_next() to hand out between the BPF
 * records of the same round.  @return : how many
 */
size_t rec_fast_gather(struct rec_ctx *c, uint64_t cut, const pid_t *dead,
		       const int *status, const int64_t *left, size_t ndead)
{
	struct rec_fast *f = c->fast;
	unsigned k;

	if (!f)
		return 0;
	f->n_items = f->next = 0;
	f->dead = dead;
	f->dead_status = status;
	f->dead_left = left;
	f->ndead = ndead;
	for (k = 0; k < FP_NSLOTS; k++) {
		struct fp_slot *s = fp_slot_at(f->base, k);

		f->upto[k] = 0;
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FP_SLOT_OWNED)
			continue;
		f->upto[k] = rec_fast_collect(c, s, dead_at(f, __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE)) >= 0,
				     cut);
	}
	if (f->n_items > 1)
		qsort(f->items, f->n_items, sizeof(*f->items), rec_fast_cmp_item);
	return f->n_items;
}

int rec_fast_peek(const struct rec_ctx *c, uint64_t *t_enter)
{
	const struct rec_fast *f = c->fast;

	if (!f || f->next >= f->n_items)
		return 0;
	*t_enter = f->items[f->next].rec->t_enter;
	return 1;
}

/* The call thread @tid was leaving as it died, + 1 (@nr), and its result
 * (@rv), as the programs read them (iotape.bpf.c left_call()): for its
 * fast-path record, never finished (fp_drain.c), as tracer.c's
 * killed_leaving() gives them under ptrace; not a call the signal cut
 * short nor one not begun. */
static void left_call(struct rec_ctx *c, pid_t tid, int64_t nr, int64_t rv)
{
	struct rec_task *t = rec_task_get(c, tid);

	if (!t)
		return;
	t->left_nr = 0;
	if (nr <= 0 || rv == -ENOSYS || rec_cut_by_signal(rv))
		return;
	t->left_nr = (long)nr;
	t->left_rv = (long)rv;
}

void rec_fast_decode_next(struct rec_ctx *c)
{
	struct rec_fast *f = c->fast;
	struct fp_rec *r = f->items[f->next++].rec;
	int unfinished = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == FP_REC_ENTERED;
	int d = unfinished ? dead_at(f, r->tid) : -1;

	if (d >= 0 && f->dead_left)
		left_call(c, r->tid, f->dead_left[2 * d], f->dead_left[2 * d + 1]);
	rec_fast_decode_rec(c, r, unfinished, d >= 0 && f->dead_status ? f->dead_status[d] : 0);
}

/* the round's records handed back to the rings */
void rec_fast_gather_end(struct rec_ctx *c)
{
	struct rec_fast *f = c->fast;
	unsigned k;

	if (!f)
		return;
	for (k = 0; k < FP_NSLOTS; k++) {
		struct fp_slot *s = fp_slot_at(f->base, k);

		if (f->upto[k] > s->tail)
			rec_fast_consume(s, f->upto[k]);
	}
	f->n_items = f->next = f->ndead = 0;
	f->dead = NULL;
	f->dead_status = NULL;
}

/*
 * Free the slots thread @tid claimed before @t (its end, or its exec: the
 * new image may have claimed another under the same tid already), after
 * the round that decoded their records; with @proc, the process's
 * entries of the header too.
 */
void rec_fast_release_before(struct rec_ctx *c, pid_t tid, uint64_t t, int proc)
{
	struct fp_shm *h;
	unsigned k;

	if (!c->fast)
		return;
	h = c->fast->base;
	rec_fast_free_slots(c, tid, t);
	/* the process's entry (each image's replaces its predecessor's) */
	for (k = 0; proc && k < FP_NPROCS; k++)
		if (__atomic_load_n(&h->procs[k].pid, __ATOMIC_ACQUIRE) == tid) {
			h->procs[k].map = h->procs[k].state = 0;
			__atomic_store_n(&h->procs[k].pid, 0, __ATOMIC_RELEASE);
		}
}
