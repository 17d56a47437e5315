/*
 * pathset.c - the sets of paths the recorder has met: paths whose state
 * was taken, directories the workload listed.
 *
 * The recorder asks for every path a call names, and for a new one it
 * must know which of its ancestors are new as well (their states go
 * first, root to leaf).  Asking the set about each ancestor in turn, each
 * hashed from the start, cost O(depth x length) per call: a third of the
 * recorder's time on find(1) of a deep tree, growing with the tree.  So
 * one pass of iot_hash_prefixes() per seed hashes the path and all its
 * "/"-prefixes at once, and the ancestors are looked up from the leaf
 * upwards only to the first one already there with all of its own
 * ancestors (flag REC_PSET_CLOSED): for a walk of a tree, the parent.  A
 * call then costs two passes over its bytes and three lookups, whatever
 * the depth and the number of paths met.  Entries not closed (names only
 * listed) are walked through, so what is taken is exactly what the
 * ancestor-by-ancestor walk took.
 *
 * An entry is a key of two 64-bit hashes of independent seeds, not the
 * path: the trace holds the path once its state is written, and a
 * program that names 50 M paths made the strings (~60 bytes each) the
 * recorder's largest cost.  A slot is 16 bytes, at most half the slots
 * are used (probes stay ~1.5): 32-64 bytes a path.  Two paths with the
 * same key would lose the second one's state; with 126 bits of key
 * (two bits mark the slot) the chance that any two of N paths share one
 * is about N^2 / 2^127: 1.5e-23 for 50 M paths.  The hash is not a
 * cryptographic one: names crafted against it could collide.
 *
 * A set may have a cap (rec_pset_cap()): a shard at its largest table
 * fills to 3/4, then each new key takes the place of one not met since
 * it was last looked at for forgetting (REC_PSET_REF, set at every add and
 * lookup that meets the entry; forget()).  A forgotten path is new again: its
 * state is taken again the next time a call names it, never missing, and
 * readers keep a path's first state (replay: rpl_plan_sort_ps()).  What
 * lives on is what a program keeps coming back to: its directories, the
 * files of its working set.  Before, a full set kept the paths met first
 * and took no more, so each path met after that had its state written at
 * every call that named it, for the rest of the run.
 *
 * The keys forgotten go into a Bloom filter of an eighth of the cap (5
 * bits a key), so that a state taken again is flagged (IOT_PS_AGAIN) and
 * counted, not silent: a flagged path may have been new (a false
 * positive: 0.005 % of new paths after 2/3 as many keys forgotten as the
 * cap holds, 0.03 % after as many, 4 % after three times, most after
 * fifteen), a path not flagged was not forgotten before.
 *
 * Strings are kept only when asked (rec_pset_add()'s @kept: the listed
 * directories), in blocks that never move: rec_listed keeps pointers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hash.h"
#include "rec.h"

#define SEED 0x7265632d70736574ULL	/* any constants: the set's own */
#define SEED2 0x9b1d5f3c2e7a4861ULL
#define BLOCK (256u << 10)
#define WALK_STACK 1024			/* prefixes a walk holds on the stack */
#define MIN_CAP 16u			/* slots of a shard at first */
#define MAP_MIN (64u << 10)		/* tables this large are mapped */
#define BLOOM_K 5			/* bits a forgotten key sets */
#define FORGET_CLEARED 16		/* second chances forget() remembers */

struct rec_pset_blk {
	struct rec_pset_blk *next;
	char s[];
};

/*
 * A shard's table.  Large ones are mapped, not malloc'd: malloc raises its
 * mapping threshold to the size of each mapped block freed, so the
 * tables a growing set frees went to the heap, between the writer's
 * chunk buffers, and their holes stayed resident: 30 MB more at 5 M paths
 * (a tenth of the set) than the set alone.
 */
static struct rec_pset_ent *table_new(uint64_t cap)
{
	size_t sz = cap * sizeof(struct rec_pset_ent);
	void *p;

	if (sz < MAP_MIN)
		return calloc(cap, sizeof(struct rec_pset_ent));
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void table_free(struct rec_pset_ent *e, uint64_t cap)
{
	size_t sz = cap * sizeof(struct rec_pset_ent);

	if (sz < MAP_MIN)
		free(e);
	else if (e)
		munmap(e, sz);
}

int rec_pset_init(struct rec_pathset *s)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->rnd = SEED;
	s->sh = calloc(REC_PSET_SHARDS, sizeof(*s->sh));
	if (!s->sh)
		return -ENOMEM;
	for (i = 0; i < REC_PSET_SHARDS; i++) {
		s->sh[i].cap = MIN_CAP;
		s->sh[i].e = table_new(MIN_CAP);
		if (!s->sh[i].e)
			return -ENOMEM;		/* rec_pset_free() frees what was made */
	}
	s->cap = (uint64_t)REC_PSET_SHARDS * MIN_CAP;
	return 0;
}

void rec_pset_cap(struct rec_pathset *s, uint64_t bytes)
{
	uint64_t slots = bytes / sizeof(struct rec_pset_ent) / REC_PSET_SHARDS, cap = MIN_CAP;

	while (cap * 2 <= slots)
		cap *= 2;
	s->max_cap = bytes ? cap : 0;
}

void rec_pset_free(struct rec_pathset *s)
{
	struct rec_pset_blk *b, *next;
	unsigned i;

	for (b = s->blk; b; b = next) {
		next = b->next;
		free(b);
	}
	for (i = 0; s->sh && i < REC_PSET_SHARDS; i++)
		table_free(s->sh[i].e, s->sh[i].cap);
	free(s->sh);
	if (s->bloom)
		munmap(s->bloom, s->bloom_bits / 8);
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

/* The shard of @k: by the top bits of the hash, the slot in it by the
 * low ones.  A table grows a shard at a time, so while it does the old
 * and the new copy of one shard are held, not of the whole set (which
 * would be half as much again as the set at its peak). */
static struct rec_pset_shard *shard_of(const struct rec_pathset *s, struct rec_pset_key k)
{
	return &s->sh[k.h >> (64 - REC_PSET_SHARD_BITS)];
}

/* Double shard @d; a failed allocation makes the present size the cap
 * (the set degrades as at a cap rather than stop the recording). */
static void grow(struct rec_pathset *s, struct rec_pset_shard *d)
{
	uint64_t cap = d->cap * 2, i, j;
	struct rec_pset_ent *e = table_new(cap);

	if (!e) {
		s->max_cap = d->cap;
		return;
	}
	for (i = 0; i < d->cap; i++) {
		if (!d->e[i].g)
			continue;
		for (j = d->e[i].h & (cap - 1); e[j].g; j = (j + 1) & (cap - 1))
			;
		e[j] = d->e[i];
	}
	table_free(d->e, d->cap);
	d->e = e;
	s->cap += cap - d->cap;
	d->cap = cap;
}

/* The slot of @k in shard @d: the entry's, or the empty one where it
 * would go. */
static struct rec_pset_ent *find(const struct rec_pset_shard *d, struct rec_pset_key k,
				 uint64_t *probes)
{
	uint64_t j = k.h & (d->cap - 1);

	for (;; j = (j + 1) & (d->cap - 1)) {
		struct rec_pset_ent *e = &d->e[j];

		(*probes)++;
		if (!e->g || (e->h == k.h &&
			      (e->g & ~(uint64_t)(REC_PSET_CLOSED | REC_PSET_REF)) == k.g))
			return e;
	}
}

static struct rec_pset_ent *slot(struct rec_pathset *s, struct rec_pset_key k)
{
	s->lookups++;
	return find(shard_of(s, k), k, &s->probes);
}

/* The second hash as an entry keeps it: bit 1 set (a used slot is never
 * 0), bits 0 and 2 left for REC_PSET_CLOSED and REC_PSET_REF. */
static uint64_t key_g(uint64_t g)
{
	return (g | 2) & ~(uint64_t)(REC_PSET_CLOSED | REC_PSET_REF);
}

struct rec_pset_key rec_pset_hash(struct rec_pathset *s, const char *p, uint32_t n)
{
	s->hashed += 2 * (uint64_t)n;
	return (struct rec_pset_key){ iot_hash(p, n, SEED), key_g(iot_hash(p, n, SEED2)) };
}

int rec_pset_has(struct rec_pathset *s, const char *p, uint32_t n)
{
	struct rec_pset_ent *e = slot(s, rec_pset_hash(s, p, n));

	if (!e->g)
		return 0;
	e->g |= REC_PSET_REF;
	return 1;
}

/* The Bloom filter's bit @i of key @k: double hashing of the key's two
 * halves (bits 0-2 of g are flags, bits 56-63 of h the shard). */
static uint64_t bloom_bit(const struct rec_pathset *s, struct rec_pset_key k, unsigned i)
{
	return ((k.g >> 3) + i * ((k.h << 8) | 1)) & (s->bloom_bits - 1);
}

static int bloom_has(const struct rec_pathset *s, struct rec_pset_key k)
{
	unsigned i;

	if (!s->bloom)
		return 0;
	for (i = 0; i < BLOOM_K; i++) {
		uint64_t b = bloom_bit(s, k, i);

		if (!(s->bloom[b / 64] >> (b % 64) & 1))
			return 0;
	}
	return 1;
}

/* Made at the first key forgotten: an eighth of the cap's bytes (pages
 * only touched as bits are set), at least 64 KiB; without it (no memory)
 * nothing is flagged, and the forgotten are still counted. */
static void bloom_add(struct rec_pathset *s, struct rec_pset_key k)
{
	unsigned i;

	if (!s->bloom) {
		uint64_t bytes = s->max_cap * REC_PSET_SHARDS * sizeof(struct rec_pset_ent) / 8;
		void *m;

		if (bytes < MAP_MIN)
			bytes = MAP_MIN;
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		s->bloom = m;
		s->bloom_bits = bytes * 8;
	}
	for (i = 0; i < BLOOM_K; i++) {
		uint64_t b = bloom_bit(s, k, i);

		s->bloom[b / 64] |= (uint64_t)1 << (b % 64);
	}
}

/*
 * Forget one entry of the full shard @d: slots drawn at random, the
 * REC_PSET_REF of each entry drawn cleared, the first drawn without it
 * forgotten (a second chance, as a clock's; each draw that does not
 * forget clears a bit an add or a lookup set, or finds one of the quarter
 * of slots empty, so the draws per entry forgotten stay a few).  Not a
 * clock's hand going round: forgetting the slots in order left the
 * quarter of them that are empty trailing behind the hand and the rest
 * full, in runs of thousands of slots that every probe walked (2 M paths
 * into a 16 MiB set: 99 probes a lookup, against 1.5 below the cap).  The
 * entries after the one forgotten in its run move back where their probe
 * would find them (deletion by backward shift: no tombstones).
 */
static void forget(struct rec_pathset *s, struct rec_pset_shard *d)
{
	uint64_t m = d->cap - 1, i, j, cleared[FORGET_CLEARED];
	unsigned nc = 0, k;

	for (;;) {
		struct rec_pset_ent *e;

		s->rnd ^= s->rnd << 13;		/* xorshift64 */
		s->rnd ^= s->rnd >> 7;
		s->rnd ^= s->rnd << 17;
		i = s->rnd & m;
		e = &d->e[i];
		if (!e->g)
			continue;
		if (e->g & REC_PSET_REF) {
			e->g &= ~(uint64_t)REC_PSET_REF;
			if (nc < FORGET_CLEARED)
				cleared[nc++] = i;
			continue;
		}
		/* not one whose chance this call took (drawn twice: a small
		 * shard), unless it took that of many */
		for (k = 0; k < nc && cleared[k] != i; k++)
			;
		if (k == nc || nc == FORGET_CLEARED || nc >= d->n)
			break;
	}
	bloom_add(s, (struct rec_pset_key){ d->e[i].h, d->e[i].g & ~(uint64_t)REC_PSET_CLOSED });
	for (j = (i + 1) & m; d->e[j].g; j = (j + 1) & m) {
		/* the entry at j may go to i if i is between its home and j */
		if (((j - (d->e[j].h & m)) & m) >= ((j - i) & m)) {
			d->e[i] = d->e[j];
			i = j;
		}
	}
	d->e[i].h = 0;
	d->e[i].g = 0;
	d->n--;
	s->n--;
	s->forgot++;
}

/* Room for one more entry in shard @d: half its slots at most; at the
 * cap, 3/4, then one forgotten for each added.  @return : 1 if the
 * entries moved (a slot found before is stale) */
static int room(struct rec_pathset *s, struct rec_pset_shard *d)
{
	uint64_t cap0 = d->cap;

	if ((d->n + 1) * 2 <= d->cap)
		return 0;
	if (!s->max_cap || d->cap < s->max_cap)
		grow(s, d);
	if ((d->n + 1) * 2 <= d->cap || (d->n + 1) * 4 <= d->cap * 3)
		return d->cap != cap0;
	forget(s, d);
	return 1;
}

int rec_pset_add(struct rec_pathset *s, const char *p, uint32_t n, struct rec_pset_key k,
		 uint32_t flags, const char **kept)
{
	struct rec_pset_shard *d = shard_of(s, k);
	struct rec_pset_ent *e = slot(s, k);

	if (e->g) {
		e->g |= (flags & REC_PSET_CLOSED) | REC_PSET_REF;
		return 0;
	}
	if (kept && !(*kept = store(s, p, n)))
		return -ENOMEM;
	if (room(s, d)) {
		uint64_t uncounted = 0;

		e = find(d, k, &uncounted);	/* the shard grew, or forgot one */
	}
	s->last_again = bloom_has(s, k);
	s->again += (uint64_t)s->last_again;
	e->h = k.h;
	e->g = k.g | (flags & REC_PSET_CLOSED) | REC_PSET_REF;
	d->n++;
	s->n++;
	return 1;
}

/* The key of a path from its two hashes */
static struct rec_pset_key key(uint64_t h1, uint64_t h2)
{
	return (struct rec_pset_key){ h1, key_g(h2) };
}

/* The first of the @n prefixes (hashes @h1, @h2) that is not there with
 * all its own ancestors: every one before it is. */
static size_t first_open(struct rec_pathset *s, const uint64_t *h1, const uint64_t *h2, size_t n)
{
	while (n > 0) {
		struct rec_pset_ent *e = slot(s, key(h1[n - 1], h2[n - 1]));

		if (e->g & REC_PSET_CLOSED) {
			e->g |= REC_PSET_REF;	/* the parent of a walk: kept */
			break;
		}
		n--;
	}
	return n;
}

/* The key of @p, and the two hashes of each of its "/"-prefixes (*@count
 * of them, at most @max): one pass per seed. */
static struct rec_pset_key keys(struct rec_pathset *s, const char *p, uint32_t n, uint32_t *len,
				uint64_t *h1, uint64_t *h2, size_t max, size_t *count)
{
	uint64_t a, b;

	s->hashed += 2 * (uint64_t)n;
	a = iot_hash_prefixes(p, n, SEED, len, h1, max, count);
	b = iot_hash_prefixes(p, n, SEED2, len, h2, max, count);
	return key(a, b);
}

int rec_pset_add_path(struct rec_pathset *s, const char *p, uint32_t n, rec_pset_anc_fn *anc,
		      void *arg)
{
	uint32_t len_stack[WALK_STACK], *len = len_stack;
	uint64_t h1_stack[WALK_STACK], *h1 = h1_stack, h2_stack[WALK_STACK], *h2 = h2_stack;
	struct rec_pset_key full;
	uint64_t again;
	size_t cnt, i, first;
	int r, full_again;

	full = keys(s, p, n, len, h1, h2, WALK_STACK, &cnt);
	if (cnt == WALK_STACK) {
		/* a path deeper than the stack holds: again, on the heap */
		len = malloc((n / 2 + 1) * sizeof(*len));
		h1 = malloc((n / 2 + 1) * sizeof(*h1));
		h2 = malloc((n / 2 + 1) * sizeof(*h2));
		r = -ENOMEM;
		if (!len || !h1 || !h2)
			goto out;
		full = keys(s, p, n, len, h1, h2, n / 2 + 1, &cnt);
	}
	r = rec_pset_add(s, p, n, full, 0, NULL);
	if (r <= 0)
		goto out;
	full_again = s->last_again;
	/* ancestors first, root to leaf, so replay can create them in
	 * order; an ancestor's callback may add paths (a symlink's target)
	 * and finds this one there already, not yet closed */
	first = first_open(s, h1, h2, cnt);
	for (i = first; i < cnt; i++) {
		r = rec_pset_add(s, p, len[i], key(h1[i], h2[i]), REC_PSET_CLOSED, NULL);
		if (r == 1)
			r = anc(arg, len[i], (uint32_t)(cnt - i));
		if (r < 0)
			goto out;
	}
	/* closed now; added again if a tiny set forgot it meanwhile (no
	 * state is taken for that: not counted) */
	again = s->again;
	r = rec_pset_add(s, p, n, full, REC_PSET_CLOSED, NULL);
	s->again = again;
	s->last_again = full_again;
	if (r == 0)
		r = 1;
out:
	if (len != len_stack) {
		free(len);
		free(h1);
		free(h2);
	}
	return r;
}
