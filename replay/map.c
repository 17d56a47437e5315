/*
 * map.c - a small open-addressing hash map, uint64 -> uint32, for the
 * plan (tids, pids, resources).  Key 0 is stored as 1: keys are hashes or
 * RPL_IK() values, which are never 0 anyway.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rpl.h"

static int map_grow(struct rpl_map *m)
{
	struct rpl_map n = { 0 };
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 1024;
	n.k = calloc(n.cap, sizeof(*n.k));
	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.k || !n.v) {
		free(n.k);
		free(n.v);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++)
		if (m->k[i])
			rpl_map_put(&n, m->k[i], m->v[i]);
	free(m->k);
	free(m->v);
	*m = n;
	return 0;
}

int rpl_map_put(struct rpl_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (!key)			/* 0 marks an empty slot */
		key = 1;
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -ENOMEM;
	for (i = key & (m->cap - 1); m->k[i] && m->k[i] != key; i = (i + 1) & (m->cap - 1))
		;
	if (!m->k[i])
		m->n++;
	m->k[i] = key;
	m->v[i] = val;
	return 0;
}

int rpl_map_get(const struct rpl_map *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return 0;
	if (!key)
		key = 1;
	for (i = key & (m->cap - 1); m->k[i]; i = (i + 1) & (m->cap - 1))
		if (m->k[i] == key) {
			*val = m->v[i];
			return 1;
		}
	return 0;
}

void rpl_map_free(struct rpl_map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
