/*
 * hist.c - log-linear latency histograms (HDR style) and stat rows.
 *
 * Storing every duration would make memory grow with the trace; a bucket
 * array per key keeps it bounded and gives quantiles within 0.4%: below
 * 256 ns every value has its own bucket, above, each power of two is split
 * into 128 buckets and a quantile is reported as its bucket's middle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"

#define LIN (1u << ANA_HIST_LINEAR_BITS)
#define SUB (1u << ANA_HIST_SUB_BITS)

/* The middle of bucket @i, and its bounds. */
static double bucket_mid(uint32_t i, double *lo, double *hi)
{
	uint32_t e, m;
	double w, l;

	if (i < LIN) {
		*lo = *hi = i;
		return i;
	}
	e = (i - LIN) / SUB + ANA_HIST_LINEAR_BITS;
	m = (i - LIN) % SUB;
	w = (double)(1ull << (e - ANA_HIST_SUB_BITS));
	l = (double)(1ull << e) + m * w;
	*lo = l;
	*hi = l + w - 1;
	return l + (w - 1) / 2;
}

int ana_hist_grow(struct ana_hist *h, uint32_t i)
{
	/* grow in steps of an octave to keep reallocs rare */
	uint32_t nb = (i / SUB + 1) * SUB + SUB;
	uint32_t *b = realloc(h->b, nb * sizeof(*b));

	if (!b)
		return -ENOMEM;
	memset(b + h->nb, 0, (nb - h->nb) * sizeof(*b));
	h->b = b;
	h->nb = nb;
	return 0;
}

void ana_hist_add(struct ana_hist *h, int64_t v)
{
	ana_hist_add_at(h, v, ana_hist_bucket(v));
}

int64_t ana_hist_quantile(const struct ana_hist *h, double q)
{
	uint64_t rank, acc = 0;
	double lo, hi, mid;
	uint32_t i;

	if (h->n == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)(q * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < h->nb; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	if (i == h->nb)
		return h->max;
	mid = bucket_mid(i, &lo, &hi);
	/* the exact extremes beat a bucket middle */
	if (mid > (double)h->max)
		mid = (double)h->max;
	if (mid < (double)h->min)
		mid = (double)h->min;
	return (int64_t)(mid + 0.5);
}

int ana_hist_merge(struct ana_hist *dst, const struct ana_hist *src)
{
	uint32_t i;

	if (src->n == 0)
		return 0;
	if (src->nb > dst->nb) {
		uint32_t *b = realloc(dst->b, src->nb * sizeof(*b));

		if (!b)
			return -ENOMEM;
		memset(b + dst->nb, 0, (src->nb - dst->nb) * sizeof(*b));
		dst->b = b;
		dst->nb = src->nb;
	}
	for (i = 0; i < src->nb; i++)
		dst->b[i] += src->b[i];
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->n == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	return 0;
}

int ana_hist_cdf(const struct ana_hist *h, double *x, double *y, int max)
{
	uint64_t acc = 0;
	uint32_t i, used = 0;
	int n = 0, every, k = 0;
	double lo, hi;

	if (h->n == 0 || max < 2)
		return 0;
	for (i = 0; i < h->nb; i++)
		used += h->b[i] != 0;
	/* thin out to at most max points, always keeping the last bucket */
	every = (int)((used + (uint32_t)max - 2) / (uint32_t)(max - 1));
	if (every < 1)
		every = 1;
	for (i = 0; i < h->nb && n < max; i++) {
		if (!h->b[i])
			continue;
		acc += h->b[i];
		if (++k % every && acc != h->n)
			continue;
		bucket_mid(i, &lo, &hi);
		x[n] = hi > (double)h->max ? (double)h->max : hi;
		y[n] = (double)acc / (double)h->n;
		n++;
	}
	return n;
}

void ana_hist_free(struct ana_hist *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

void ana_stat_free(struct ana_stat *s)
{
	ana_hist_free(&s->lat);
}
