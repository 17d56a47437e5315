/*
 * test_replay_map.c - the plan's uint64 -> uint32 map (replay/map.c),
 * keys and values in one array of slots: every key found with its value
 * through the growths, keys that share their first slot (collisions,
 * linear probing) each kept apart, a value changed through
 * rpl_map_find(), key 0 taken as key 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rpl.h"

/* a spread of keys, as hashes are, and a run of RPL_IK() ones */
static uint64_t key_of(uint32_t i)
{
	return i & 1 ? (uint64_t)i * 0x9e3779b97f4a7c15ULL : RPL_IK(i);
}

static void test_growth(void **state)
{
	struct rpl_map m = { 0 };
	uint32_t i, v;

	(void)state;
	assert_int_equal(rpl_map_get(&m, 5, &v), 0);
	assert_null(rpl_map_find(&m, 5));
	for (i = 1; i <= 100000; i++)
		assert_int_equal(rpl_map_put(&m, key_of(i), i * 3), 0);
	assert_int_equal(m.n, 100000);
	assert_true(m.cap >= 2 * m.n);
	for (i = 1; i <= 100000; i++) {
		v = 0;
		assert_int_equal(rpl_map_get(&m, key_of(i), &v), 1);
		assert_int_equal(v, i * 3);
	}
	assert_int_equal(rpl_map_get(&m, key_of(100001), &v), 0);
	/* a put of a key there changes its value, adds no slot */
	assert_int_equal(rpl_map_put(&m, key_of(7), 70), 0);
	assert_int_equal(m.n, 100000);
	assert_int_equal(rpl_map_get(&m, key_of(7), &v), 1);
	assert_int_equal(v, 70);
	rpl_map_free(&m);
	assert_null(m.s);
	assert_int_equal(m.cap, 0);
}

static void test_collisions(void **state)
{
	struct rpl_map m = { 0 };
	uint32_t i, v, *p;

	(void)state;
	/* 300 keys whose low 16 bits agree: one first slot for all of them,
	 * through growths from 1024 slots to 1024 more than they */
	for (i = 0; i < 300; i++)
		assert_int_equal(rpl_map_put(&m, ((uint64_t)(i + 1) << 16) | 0x2a, i), 0);
	assert_int_equal(m.n, 300);
	for (i = 0; i < 300; i++) {
		assert_int_equal(rpl_map_get(&m, ((uint64_t)(i + 1) << 16) | 0x2a, &v), 1);
		assert_int_equal(v, i);
	}
	assert_int_equal(rpl_map_get(&m, ((uint64_t)301 << 16) | 0x2a, &v), 0);
	/* a value changed in its slot */
	p = rpl_map_find(&m, ((uint64_t)150 << 16) | 0x2a);
	assert_non_null(p);
	assert_int_equal(*p, 149);
	*p = 9;
	assert_int_equal(rpl_map_get(&m, ((uint64_t)150 << 16) | 0x2a, &v), 1);
	assert_int_equal(v, 9);
	assert_int_equal(m.n, 300);
	/* key 0 is key 1 (0 marks an empty slot) */
	assert_int_equal(rpl_map_put(&m, 0, 77), 0);
	assert_int_equal(rpl_map_get(&m, 1, &v), 1);
	assert_int_equal(v, 77);
	assert_int_equal(rpl_map_put(&m, 1, 78), 0);
	assert_int_equal(rpl_map_get(&m, 0, &v), 1);
	assert_int_equal(v, 78);
	assert_int_equal(m.n, 301);
	rpl_map_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_collisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
