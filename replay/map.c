/*
 * map.c - a small open-addressing hash map, uint64 -> uint32, for the
 * plan (tids, pids, resources).  Key 0 is stored as 1: keys are hashes or
 * RPL_IK() values, which are never 0 anyway.
 *
 * A key and its value share a slot of 12 bytes (the key in two 4-byte
 * words, read and written whole): a hit reads one cache line, not one in
 * each of two arrays (rpl_map_get() was the plan's largest single cost,
 * 10 % of it on 1 M events), in no more memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rpl.h"

/* Slot arrays this large are mapped, not taken from malloc: freed as
 * the table grows, they go back at once, and they do not raise malloc's
 * mmap threshold (with it raised, other arrays came from the heap and
 * stayed: 1.5 % more peak resident memory on 1 M events). */
#define TABLE_MMAP_BYTES (128 * 1024)

void *rpl_table_new(size_t bytes)
{
	void *s;

	if (bytes < TABLE_MMAP_BYTES)
		return calloc(1, bytes);
	s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	rpl_mem_huge(s, bytes);
	return s;
}

void rpl_table_free(void *s, size_t bytes)
{
	if (!s)
		return;
	if (bytes < TABLE_MMAP_BYTES)
		free(s);
	else
		munmap(s, bytes);
}

static int map_grow(struct rpl_map *m)
{
	struct rpl_map n = { 0 };
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 1024;
	n.s = rpl_table_new(n.cap * sizeof(*n.s));
	if (!n.s)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (rpl_slot_key(m->s[i].k))
			rpl_map_put(&n, rpl_slot_key(m->s[i].k), m->s[i].v);
	rpl_table_free(m->s, m->cap * sizeof(*m->s));
	*m = n;
	return 0;
}

int rpl_map_put(struct rpl_map *m, uint64_t key, uint32_t val)
{
	size_t i;
	uint64_t k;

	if (!key)			/* 0 marks an empty slot */
		key = 1;
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -ENOMEM;
	for (i = rpl_slot_first(key, m->cap); (k = rpl_slot_key(m->s[i].k)) && k != key;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!k)
		m->n++;
	memcpy(m->s[i].k, &key, sizeof(key));
	m->s[i].v = val;
	return 0;
}

uint32_t *rpl_map_find(const struct rpl_map *m, uint64_t key)
{
	size_t i;
	uint64_t k;

	if (!m->cap)
		return NULL;
	if (!key)
		key = 1;
	for (i = rpl_slot_first(key, m->cap); (k = rpl_slot_key(m->s[i].k));
	     i = (i + 1) & (m->cap - 1))
		if (k == key)
			return &m->s[i].v;
	return NULL;
}

int rpl_map_get(const struct rpl_map *m, uint64_t key, uint32_t *val)
{
	const uint32_t *v = rpl_map_find(m, key);

	if (!v)
		return 0;
	*val = *v;
	return 1;
}

void rpl_map_free(struct rpl_map *m)
{
	rpl_table_free(m->s, m->cap * sizeof(*m->s));
	memset(m, 0, sizeof(*m));
}
