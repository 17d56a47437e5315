/*
 * aio_depth.c - how many async requests were in flight, recorded and
 * replayed, for the replay's summary: a replay that keeps fewer in
 * flight than the program did loads the filesystem under test less
 * (fio io_uring at iodepth 8 had 6.6-7.8 in flight natively, 2.7-5.9
 * in replays that waited for completions the program had not needed).
 *
 * Two figures, each recorded and replayed:
 * - the mean number in flight over each ring's (or libaio context's)
 *   life from its first submission to its last: a request is in flight
 *   from its submission to the moment its completion was seen (recorded:
 *   the recorder's completion record; replayed: the replay reaping it),
 *   summed over the rings and divided by their spans summed.  It is a
 *   count averaged over time, each side in its own clock: the recording's
 *   stops make its requests complete sooner relative to its calls, so
 *   the recorded figure is lower than the program's own.
 * - the mean number in flight when a wait for completions began: at each
 *   recorded io_uring_enter that waited (min_complete beyond what the
 *   program had left in its ring), in flight after its submissions, and
 *   at each wait of the replay's (the recorded ones, and those it makes
 *   for room before a submission).  A program that keeps N in flight
 *   waits with N; so should its replay (counted in uring.c).
 */
#include <stdlib.h>

#include "rpl.h"

struct span {
	int64_t r0, r1, p0, p1;	/* first and last submission, recorded and replayed */
};

/* The time [@s, @e] spent inside [@t0, @t1]; @e < @s: none. */
static double overlap(int64_t s, int64_t e, int64_t t0, int64_t t1)
{
	if (s < t0)
		s = t0;
	if (e > t1)
		e = t1;
	return e > s ? (double)(e - s) : 0;
}

static int replayed(const struct rpl_aio *x)
{
	return x->state == RPL_AIO_SUBMITTED || x->state == RPL_AIO_DONE;
}

void rpl_aio_depth(const struct rpl_plan *p, struct rpl_result *res)
{
	struct rpl_map m = { 0 };
	struct span *sp = NULL;
	uint32_t n = 0, cap = 0, k;
	size_t i;

	for (i = 0; i < p->n_aio; i++) {
		const struct rpl_aio *x = &p->aio[i];
		struct span *s;

		if (x->a.kind != IOT_AIO_SUBMIT)
			continue;
		if (!rpl_map_get(&m, rpl_aio_ring_key(&x->a), &k)) {
			if (n == cap) {
				uint32_t nc = cap ? 2 * cap : 16;
				struct span *v = realloc(sp, nc * sizeof(*v));

				if (!v)
					goto out;
				sp = v;
				cap = nc;
			}
			k = n++;
			if (rpl_map_put(&m, rpl_aio_ring_key(&x->a), k) < 0)
				goto out;
			sp[k] = (struct span){ x->a.t_ns, x->a.t_ns, INT64_MAX, INT64_MIN };
		}
		s = &sp[k];
		s->r0 = x->a.t_ns < s->r0 ? x->a.t_ns : s->r0;
		s->r1 = x->a.t_ns > s->r1 ? x->a.t_ns : s->r1;
		if (replayed(x)) {
			s->p0 = x->r_s_ns < s->p0 ? x->r_s_ns : s->p0;
			s->p1 = x->r_s_ns > s->p1 ? x->r_s_ns : s->p1;
		}
	}
	for (k = 0; k < n; k++) {
		res->aio_rec_span_ns += sp[k].r1 - sp[k].r0;
		if (sp[k].p1 > sp[k].p0)
			res->aio_rpl_span_ns += sp[k].p1 - sp[k].p0;
	}
	for (i = 0; i < p->n_aio; i++) {
		const struct rpl_aio *x = &p->aio[i], *q;

		if (x->a.kind == IOT_AIO_COMPLETE && x->req) {
			/* recorded: from its submission to this record */
			q = &p->aio[x->req - 1];
			if (rpl_map_get(&m, rpl_aio_ring_key(&q->a), &k))
				res->aio_rec_area += overlap(q->a.t_ns, x->a.t_ns, sp[k].r0, sp[k].r1);
			continue;
		}
		if (x->a.kind != IOT_AIO_SUBMIT || !rpl_map_get(&m, rpl_aio_ring_key(&x->a), &k))
			continue;
		if (x->rec_res == RPL_AIO_NORES)	/* never seen complete */
			res->aio_rec_area += overlap(x->a.t_ns, sp[k].r1, sp[k].r0, sp[k].r1);
		if (replayed(x))
			res->aio_rpl_area += overlap(x->r_s_ns, x->state == RPL_AIO_DONE ?
						     x->r_t_ns : sp[k].p1, sp[k].p0, sp[k].p1);
	}
out:
	res->aio_waits_rec = p->ring_waits[0];
	res->aio_waits_rec_depth = p->ring_wait_depth[0];
	res->aio_waits_rpl = p->ring_waits[1];
	res->aio_waits_rpl_depth = p->ring_wait_depth[1];
	res->aio_waits_below = p->ring_waits_below;
	rpl_map_free(&m);
	free(sp);
}

void rpl_aio_wait_seen(struct rpl_plan *p, int replay, uint64_t inflight)
{
	__atomic_fetch_add(&p->ring_waits[replay != 0], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->ring_wait_depth[replay != 0], inflight, __ATOMIC_RELAXED);
}
