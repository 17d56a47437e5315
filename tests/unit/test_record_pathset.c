/*
 * test_record_pathset.c - the recorder's path set: the one-pass prefix
 * hashes (and a hash fed piece by piece) equal the hash of each prefix, a
 * call costs the same few lookups and two passes over its bytes at depth 3
 * and at depth 100 (counted, not timed), ancestors are reported exactly as
 * a walk over every prefix would report them, and a set at its cap
 * forgets the paths not met for longest, answering "new" (flagged) for a
 * forgotten one, never "there" for one it does not hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hash.h"
#include "rec.h"

static void test_prefix_hashes(void **state)
{
	char s[300];
	uint32_t len[300];
	uint64_t h[300];
	unsigned seed = 1;
	int round;

	for (round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 280), i, k, want = 0;
		uint64_t full;

		for (i = 0; i < n; i++)
			s[i] = rand_r(&seed) % 4 == 0 ? '/' : (char)('a' + rand_r(&seed) % 26);
		full = iot_hash_prefixes(s, n, 42, len, h, 300, &k);
		assert_true(full == iot_hash(s, n, 42));
		for (i = 1; i < n; i++) {
			if (s[i] != '/')
				continue;
			assert_true(want < k);
			assert_int_equal(len[want], i);
			assert_true(h[want] == iot_hash(s, i, 42));
			want++;
		}
		assert_int_equal(k, want);
		/* the same bytes added a piece at a time */
		{
			struct iot_hasher hs;
			size_t o = 0;

			iot_hasher_init(&hs, 42);
			while (o < n) {
				size_t piece = 1 + (size_t)(rand_r(&seed) % 19);

				piece = piece > n - o ? n - o : piece;
				iot_hasher_add(&hs, s + o, piece);
				o += piece;
				assert_true(iot_hasher_value(&hs) == iot_hash(s, o, 42));
			}
		}
	}
	/* a different seed, a different hash */
	assert_true(iot_hash("/usr/lib", 8, 1) != iot_hash("/usr/lib", 8, 2));
}

struct seen {
	char got[64][512];
	int n;
	const char *p;
};

static int record_anc(void *arg, uint32_t len, uint32_t below)
{
	struct seen *s = arg;

	if (s->n < 64)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%.*s %u", (int)len, s->p, below);
	s->n++;
	return 0;
}

/* A directory path @depth components deep, each a long name that every
 * path shares. */
static size_t deep_dir(char *buf, int depth)
{
	size_t o = 0;
	int d;

	for (d = 0; d < depth; d++)
		o += (size_t)sprintf(buf + o, "/a-long-shared-component-name-%02d", d % 100);
	return o;
}

/* A walk of 2,000 files in one directory @depth deep, as find(1) makes
 * it: what one call costs, once the directory is known. */
static void walk_cost(int depth, uint64_t *lookups, uint64_t *probes, uint64_t *hashed,
		      uint64_t *bytes)
{
	struct rec_pathset set;
	struct seen s = { .n = 0 };
	char p[8192];
	size_t dl = deep_dir(p, depth);
	uint64_t l0, p0, h0;
	int i;

	assert_int_equal(rec_pset_init(&set), 0);
	s.p = p;
	assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)dl, record_anc, &s), 1);
	assert_int_equal(s.n, depth - 1);	/* every ancestor, once */
	l0 = set.lookups;
	p0 = set.probes;
	h0 = set.hashed;
	*bytes = 0;
	for (i = 0; i < 2000; i++) {
		int n = sprintf(p + dl, "/file-%05d", i);

		s.n = 0;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)(dl + n), record_anc, &s), 1);
		assert_int_equal(s.n, 0);
		/* seen again: one lookup */
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)(dl + n), record_anc, &s), 0);
		*bytes += 2 * 2 * (dl + (size_t)n);	/* two calls, two seeds */
	}
	*lookups = set.lookups - l0;
	*probes = set.probes - p0;
	*hashed = set.hashed - h0;
	rec_pset_free(&set);
}

static void test_constant_cost(void **state)
{
	uint64_t l3, p3, h3, b3, l100, p100, h100, b100;

	walk_cost(3, &l3, &p3, &h3, &b3);
	walk_cost(100, &l100, &p100, &h100, &b100);
	/* new path: itself, its parent, itself again closed; seen: itself */
	assert_int_equal(l3, 2000 * 4);
	assert_int_equal(l100, 2000 * 4);
	/* each path's bytes hashed once per seed and call, not once per
	 * ancestor */
	assert_int_equal(h3, b3);
	assert_int_equal(h100, b100);
	/* open addressing at load <= 1/2: a few slots per lookup, at any
	 * depth (each ancestor hashed anew made it ~100 at depth 100) */
	assert_true(p3 < l3 * 3);
	assert_true(p100 < l100 * 3);
}

/* A name only listed (in the set, its ancestors maybe not) is no stop:
 * the ancestors above it are still reported. */
static void test_listed_not_closed(void **state)
{
	struct rec_pathset set;
	struct seen s = { .n = 0 };
	const char *listed = "/a/b/c", *p = "/a/b/c/d/e";

	assert_int_equal(rec_pset_init(&set), 0);
	assert_int_equal(rec_pset_add(&set, listed, 6, rec_pset_hash(&set, listed, 6), 0, NULL), 1);
	s.p = p;
	assert_int_equal(rec_pset_add_path(&set, p, 10, record_anc, &s), 1);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.got[0], "/a 4");
	assert_string_equal(s.got[1], "/a/b 3");
	assert_string_equal(s.got[2], "/a/b/c/d 1");
	/* rec_pset_has(): a path added whole, an ancestor added by the
	 * walk, one listed; not a sibling nor a prefix that is no path */
	assert_true(rec_pset_has(&set, p, 10));
	assert_true(rec_pset_has(&set, "/a/b", 4));
	assert_true(rec_pset_has(&set, listed, 6));
	assert_false(rec_pset_has(&set, "/a/b/c/d/f", 10));
	assert_false(rec_pset_has(&set, "/a/", 3));
	/* now all closed: a sibling costs no ancestor */
	s.n = 0;
	assert_int_equal(rec_pset_add_path(&set, "/a/b/c/d/f", 10, record_anc, &s), 1);
	assert_int_equal(s.n, 0);
	/* a path deeper than a walk keeps on its stack */
	{
		char deep[4096];
		size_t n = 0;
		int d;

		for (d = 0; d < 1500; d++)
			n += (size_t)sprintf(deep + n, "/%d", d % 10);
		s.n = 0;
		s.p = deep;
		assert_int_equal(rec_pset_add_path(&set, deep, (uint32_t)n, record_anc, &s), 1);
		assert_int_equal(s.n, 1499);
		assert_int_equal(set.n, 6 + 1500);
	}
	rec_pset_free(&set);
}

/* A set capped at its smallest tables fills them to 3/4, then forgets a
 * path for each one it adds (a clock): what every walk meets (the parent
 * directory) stays, the paths met last mostly stay, the ones met first
 * go; a forgotten path is new (1) again and flagged (last_again), a new
 * one is not; every entry kept is still found after the entries moved. */
#define CAP_PATHS 20000

static void test_cap(void **state)
{
	struct rec_pathset set;
	struct seen s = { .n = 0 };
	char p[64];
	uint64_t found = 0, early = 0, late = 0, flagged = 0;
	int i, n;

	assert_int_equal(rec_pset_init(&set), 0);
	rec_pset_cap(&set, 1);		/* below one table: the smallest */
	for (i = 0; i < CAP_PATHS; i++) {
		n = sprintf(p, "/capped/f%05d", i);
		s.p = p;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)n, record_anc, &s), 1);
		flagged += (uint64_t)set.last_again;
	}
	assert_int_equal(s.n, 1);	/* "/capped", once: never forgotten */
	assert_true(set.n * 4 <= set.cap * 3);
	assert_int_equal(set.forgot, CAP_PATHS + 1 - set.n);
	/* none met twice: only the filter's false positives (its smallest
	 * size, 8 times the keys a full set holds forgotten: ~0.1 %) */
	assert_int_equal(set.again, flagged);
	assert_true(flagged < CAP_PATHS / 200);
	for (i = 0; i < CAP_PATHS; i++) {
		int has;

		n = sprintf(p, "/capped/f%05d", i);
		has = rec_pset_has(&set, p, (uint32_t)n);
		found += (uint64_t)has;
		early += (uint64_t)(has && i < 2000);
		late += (uint64_t)(has && i >= CAP_PATHS - 500);
	}
	assert_true(rec_pset_has(&set, "/capped", 7));
	assert_int_equal(found + 1, set.n);	/* every entry kept is found */
	assert_true(early < 50);
	assert_true(late > 450);
	/* the first ones again: new, each flagged and counted */
	for (i = 0; i < 100; i++) {
		n = sprintf(p, "/capped/f%05d", i);
		s.p = p;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)n, record_anc, &s), 1);
		assert_int_equal(set.last_again, 1);
	}
	assert_int_equal(set.again, flagged + 100);
	assert_int_equal(s.n, 1);
	/* paths never met: new and (but for the filter's rare false
	 * positives) not flagged */
	flagged = 0;
	for (i = 0; i < 2000; i++) {
		n = sprintf(p, "/capped/g%05d", i);
		s.p = p;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)n, record_anc, &s), 1);
		flagged += (uint64_t)set.last_again;
	}
	assert_true(flagged < 2000 / 200);
	rec_pset_free(&set);
}

/* Forgetting keeps a full table as a table filled to 3/4 without any:
 * probes stay few however many paths went through it (forgetting the
 * slots in order, as a clock's hand, left runs of thousands of them:
 * ~100 probes a lookup after 2 M paths through 16 MiB). */
static void test_forget_probes(void **state)
{
	struct rec_pathset set;
	struct seen s = { .n = 0 };
	char p[64];
	uint64_t probes, lookups;
	int i, n;

	assert_int_equal(rec_pset_init(&set), 0);
	rec_pset_cap(&set, 2u << 20);	/* 512 slots a shard */
	for (i = 0; i < 400000; i++) {
		n = sprintf(p, "/f/d%03d/f%07d", i % 1000, i);
		s.p = p;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)n, record_anc, &s), 1);
	}
	assert_true(set.forgot > 250000);
	probes = set.probes;
	lookups = set.lookups;
	for (i = 400000; i < 410000; i++) {
		n = sprintf(p, "/f/d%03d/f%07d", i % 1000, i);
		s.p = p;
		assert_int_equal(rec_pset_add_path(&set, p, (uint32_t)n, record_anc, &s), 1);
	}
	/* ~4.5 (a miss walks a run at 3/4: ~8.5, a hit ~2.5) */
	assert_true((set.probes - probes) < 6 * (set.lookups - lookups));
	rec_pset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_hashes),
		cmocka_unit_test(test_constant_cost),
		cmocka_unit_test(test_listed_not_closed),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_forget_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
