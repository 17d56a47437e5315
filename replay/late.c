/*
 * late.c - how late the replayed calls started, counted as they run: a
 * histogram shared by the replay's threads, not a field per op sorted
 * after the run (8 bytes an op kept all the run, and 8 more an op for
 * the sort at its end).
 *
 * Buckets are log-linear: values below 2^LATE_SUB ns each have their
 * own; above, each power of two is cut into 2^LATE_SUB buckets, so a
 * percentile read back is within 1/2^(LATE_SUB+1) of a value that was
 * added (0.4 %: below what iot_fmt_ns() prints).  Only late calls are
 * added (none in --timing afap): the calls on time are the replayed
 * ones less those, counted by the tally.  The largest is kept exactly,
 * per thread (struct rpl_thread.late_max_ns).
 */
#include <errno.h>
#include <stdlib.h>

#include "rpl.h"

#define LATE_SUB 7
#define LATE_BUCKETS ((64 - LATE_SUB + 1) << LATE_SUB)

static uint32_t bucket_of(uint64_t v)
{
	int e;

	if (v < (1u << LATE_SUB))
		return (uint32_t)v;
	e = 63 - __builtin_clzll(v);	/* v's top bit: e >= LATE_SUB */
	return (uint32_t)((e - LATE_SUB + 1) << LATE_SUB) +
	       (uint32_t)((v >> (e - LATE_SUB)) & ((1u << LATE_SUB) - 1));
}

/* the middle of bucket @b's values */
static int64_t value_of(uint32_t b)
{
	uint32_t e = (b >> LATE_SUB) + LATE_SUB - 1, m = b & ((1u << LATE_SUB) - 1);
	uint64_t lo, w;

	if (b < (1u << LATE_SUB))
		return b;
	w = 1ull << (e - LATE_SUB);
	lo = (1ull << e) + m * w;
	return (int64_t)(lo + w / 2 > INT64_MAX ? INT64_MAX : lo + w / 2);
}

int rpl_late_init(struct rpl_plan *p)
{
	if (p->late)
		return 0;
	p->late = calloc(LATE_BUCKETS, sizeof(*p->late));
	return p->late ? 0 : -ENOMEM;
}

void rpl_late_add(struct rpl_plan *p, struct rpl_thread *t, int64_t ns)
{
	if (ns <= 0)
		return;
	atomic_fetch_add_explicit(&p->late[bucket_of((uint64_t)ns)], 1, memory_order_relaxed);
	if (ns > t->late_max_ns)
		t->late_max_ns = ns;
}

void rpl_late_result(const struct rpl_plan *p, uint64_t replayed, struct rpl_result *res)
{
	uint64_t n = 0, on_time, seen, want50, want99;
	int64_t max = 0;
	uint32_t b;
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].late_max_ns > max)
			max = p->threads[i].late_max_ns;
	for (b = 0; p->late && b < LATE_BUCKETS; b++)
		n += atomic_load_explicit(&p->late[b], memory_order_relaxed);
	on_time = replayed > n ? replayed - n : 0;
	if (!replayed)
		return;
	/* the values a sorted array of all of them held at n/2 and n*99/100 */
	want50 = replayed / 2;
	want99 = (replayed * 99) / 100 < replayed ? (replayed * 99) / 100 : replayed - 1;
	res->late_p50_ns = res->late_p99_ns = 0;
	seen = on_time;
	for (b = 1; p->late && b < LATE_BUCKETS && seen <= want99; b++) {
		uint64_t c = atomic_load_explicit(&p->late[b], memory_order_relaxed);

		if (!c)
			continue;
		if (seen <= want50 && want50 < seen + c)
			res->late_p50_ns = value_of(b) < max ? value_of(b) : max;
		if (want99 < seen + c)
			res->late_p99_ns = value_of(b) < max ? value_of(b) : max;
		seen += c;
	}
	res->late_max_ns = max;
}
