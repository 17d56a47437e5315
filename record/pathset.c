/*
 * pathset.c - the sets of paths the recorder has met: paths whose state
 * was taken, directories the workload listed.
 *
 * The recorder asks for every path a call names, and for a new one it
 * must know which of its ancestors are new as well (their states go
 * first, root to leaf).  Asking the set about each ancestor in turn, each
 * hashed from the start, cost O(depth x length) per call: a third of the
 * recorder's time on find(1) of a deep tree, growing with the tree.  So
 * one pass of iot_hash_prefixes() hashes the path and all its "/"-prefixes
 * at once, and the ancestors are looked up from the leaf upwards only to
 * the first one already there with all of its own ancestors (flag
 * REC_PSET_CLOSED): for a walk of a tree, the parent.  A call then costs
 * one pass over its bytes and three lookups, whatever the depth and the
 * number of paths met.  Entries not closed (names only listed) are
 * walked through, so what is taken is exactly what the ancestor-by-
 * ancestor walk took.
 *
 * Strings live in blocks that never move: rec_listed keeps pointers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "rec.h"

#define SEED 0x7265632d70736574ULL	/* any constant: the set's own */
#define BLOCK (256u << 10)
#define WALK_STACK 1024			/* prefixes a walk holds on the stack */

struct rec_pset_blk {
	struct rec_pset_blk *next;
	char s[];
};

int rec_pset_init(struct rec_pathset *s)
{
	memset(s, 0, sizeof(*s));
	s->cap = 4096;
	s->e = calloc(s->cap, sizeof(*s->e));
	return s->e ? 0 : -ENOMEM;
}

void rec_pset_free(struct rec_pathset *s)
{
	struct rec_pset_blk *b, *next;

	for (b = s->blk; b; b = next) {
		next = b->next;
		free(b);
	}
	free(s->e);
	memset(s, 0, sizeof(*s));
}

static char *store(struct rec_pathset *s, const char *p, uint32_t n)
{
	char *r;

	if (n + 1 > s->left) {
		size_t sz = n + 1 > BLOCK ? n + 1 : BLOCK;
		struct rec_pset_blk *b = malloc(sizeof(*b) + sz);

		if (!b)
			return NULL;
		b->next = s->blk;
		s->blk = b;
		s->mem = b->s;
		s->left = sz;
	}
	r = s->mem;
	memcpy(r, p, n);
	r[n] = 0;
	s->mem += n + 1;
	s->left -= n + 1;
	return r;
}

static int grow(struct rec_pathset *s)
{
	uint64_t cap = s->cap * 2, i, j;
	struct rec_pset_ent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->e[i].s)
			continue;
		for (j = s->e[i].h & (cap - 1); e[j].s; j = (j + 1) & (cap - 1))
			;
		e[j] = s->e[i];
	}
	free(s->e);
	s->e = e;
	s->cap = cap;
	return 0;
}

/* The slot of @p (@n bytes, hash @h): the entry's, or the empty one
 * where it would go. */
static struct rec_pset_ent *slot(struct rec_pathset *s, const char *p, uint32_t n, uint64_t h)
{
	uint64_t j = h & (s->cap - 1);

	s->lookups++;
	for (;; j = (j + 1) & (s->cap - 1)) {
		struct rec_pset_ent *e = &s->e[j];

		s->probes++;
		if (!e->s || (e->h == h && e->len == n && memcmp(e->s, p, n) == 0))
			return e;
	}
}

uint64_t rec_pset_hash(struct rec_pathset *s, const char *p, uint32_t n)
{
	s->hashed += n;
	return iot_hash(p, n, SEED);
}

int rec_pset_add(struct rec_pathset *s, const char *p, uint32_t n, uint64_t h,
		 uint32_t flags, const char **kept)
{
	struct rec_pset_ent *e;

	if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
		return -ENOMEM;
	e = slot(s, p, n, h);
	if (e->s) {
		e->flags |= flags;
		return 0;
	}
	e->s = store(s, p, n);
	if (!e->s)
		return -ENOMEM;
	e->h = h;
	e->len = n;
	e->flags = flags;
	s->n++;
	if (kept)
		*kept = e->s;
	return 1;
}

/* The first prefix of the @k in @len/@h that is not there with all its
 * own ancestors: every one before it is. */
static size_t first_open(struct rec_pathset *s, const char *p, const uint32_t *len,
			 const uint64_t *h, size_t k)
{
	while (k > 0) {
		const struct rec_pset_ent *e = slot(s, p, len[k - 1], h[k - 1]);

		if (e->s && (e->flags & REC_PSET_CLOSED))
			break;
		k--;
	}
	return k;
}

int rec_pset_add_path(struct rec_pathset *s, const char *p, uint32_t n, rec_pset_anc_fn *anc,
		      void *arg)
{
	uint32_t len_stack[WALK_STACK], *len = len_stack;
	uint64_t h_stack[WALK_STACK], *h = h_stack, full;
	size_t k, i, first;
	int r;

	s->hashed += n;
	full = iot_hash_prefixes(p, n, SEED, len, h, WALK_STACK, &k);
	if (k == WALK_STACK) {
		/* a path deeper than the stack holds: again, on the heap */
		len = malloc((n / 2 + 1) * sizeof(*len));
		h = malloc((n / 2 + 1) * sizeof(*h));
		r = -ENOMEM;
		if (!len || !h)
			goto out;
		s->hashed += n;
		full = iot_hash_prefixes(p, n, SEED, len, h, n / 2 + 1, &k);
	}
	r = rec_pset_add(s, p, n, full, 0, NULL);
	if (r <= 0)
		goto out;
	/* ancestors first, root to leaf, so replay can create them in
	 * order; an ancestor's callback may add paths (a symlink's target)
	 * and finds this one there already, not yet closed */
	first = first_open(s, p, len, h, k);
	for (i = first; i < k; i++) {
		r = rec_pset_add(s, p, len[i], h[i], REC_PSET_CLOSED, NULL);
		if (r == 1)
			r = anc(arg, len[i], (uint32_t)(k - i));
		if (r < 0)
			goto out;
	}
	r = rec_pset_add(s, p, n, full, REC_PSET_CLOSED, NULL);
	if (r == 0)
		r = 1;
out:
	if (len != len_stack) {
		free(len);
		free(h);
	}
	return r;
}
