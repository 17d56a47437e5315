/*
 * intern.c - what the plan keeps of each event, small: each distinct path
 * of a trace once, and the event's fields packed (struct rpl_ev).
 *
 * Paths: each distinct one kept once.  A trace names the
 * same few paths over and over (a file is made, written, stat'ed,
 * renamed, removed); the plan keeps one copy in its arena and gives
 * every op a pointer to it.  Only paths the plan never changes in place
 * are shared: rpl_plan_clean_paths() rewrites paths with "/." or "//"
 * in them, per op, so those get a copy of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rpl.h"

/* One pass over the bytes is several times cheaper than two memmem()
 * calls, which were the plan's largest single cost (14 % of it on 1 M
 * events); rpl_intern() scans a path only when it is not kept yet, and
 * marks the op of one that has them (RPL_OPF_DOTS), so that
 * rpl_plan_clean_paths() scans only those (the scans were 15 % of the
 * plan's instructions, once per op). */
int rpl_path_has_dots(const char *s, uint32_t n)
{
	const char *q = s, *end = s + n;

	if (!s || n < 2)
		return 0;
	/* from slash to slash (memchr() takes many bytes a step): a path
	 * has a few, and was looked at byte by byte */
	while ((q = memchr(q, '/', (size_t)(end - 1 - q)))) {
		if (q[1] == '.' || q[1] == '/')
			return 1;
		q++;
	}
	return 0;
}

int rpl_cpath_has_dots(const char *s)
{
	for (; s && *s; s++)
		if (s[0] == '/' && (s[1] == '.' || s[1] == '/'))
			return 1;
	return 0;
}

static int intern_grow(struct rpl_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 4096, i, j;
	struct rpl_intern_slot *s = rpl_table_new(cap * sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		if (!t->s[i].v)
			continue;
		for (j = t->s[i].h & (cap - 1); s[j].v; j = (j + 1) & (cap - 1))
			;
		s[j] = t->s[i];
	}
	rpl_table_free(t->s, t->cap * sizeof(*t->s));
	t->s = s;
	t->cap = cap;
	return 0;
}

const char *rpl_intern(struct rpl_intern *t, struct iot_arena *a, const char *s, uint32_t n,
		       int *dots)
{
	uint64_t h;
	size_t i;

	if (!s)
		return NULL;
	if ((t->n + 1) * 2 > t->cap && intern_grow(t) < 0)
		return NULL;
	/* the table holds no path with dots: one found has none */
	h = iot_hash(s, n, 11);
	for (i = h & (t->cap - 1); t->s[i].v; i = (i + 1) & (t->cap - 1))
		if (t->s[i].h == h && !memcmp(t->s[i].v, s, n) && t->s[i].v[n] == 0)
			return t->s[i].v;
	if (rpl_path_has_dots(s, n)) {
		if (dots)
			*dots = 1;
		return iot_arena_strndup(a, s, n);
	}
	t->s[i].v = iot_arena_strndup(a, s, n);
	t->s[i].h = h;
	if (t->s[i].v)
		t->n++;
	return t->s[i].v;
}

void rpl_intern_free(struct rpl_intern *t)
{
	rpl_table_free(t->s, t->cap * sizeof(*t->s));
	memset(t, 0, sizeof(*t));
}

void rpl_ev_pack(struct rpl_ev *d, const struct iot_event *e)
{
	uint32_t i, n = e->nargs < IOT_MAX_ARGS ? e->nargs : IOT_MAX_ARGS;

	memset(d, 0, sizeof(*d));
	d->t_enter = e->t_enter;
	d->t_exit = e->t_exit;
	d->ret = e->ret;
	for (i = 0; i < n; i++)
		d->args[i] = e->args[i];
	d->path = e->path;
	d->path2 = e->path2;
	d->tid = e->tid;
	d->nr = e->nr >= 0 && e->nr <= INT16_MAX ? (int16_t)e->nr : -1;
	d->flags = (uint8_t)e->flags;
	d->nargs = (uint8_t)n;
}

void rpl_ev_unpack(struct iot_event *e, const struct rpl_ev *d, int32_t pid)
{
	memset(e, 0, sizeof(*e));
	e->t_enter = d->t_enter;
	e->t_exit = d->t_exit;
	e->ret = d->ret;
	memcpy(e->args, d->args, sizeof(e->args));
	e->path = d->path;
	e->path_len = d->path ? (uint32_t)strlen(d->path) : 0;
	e->path2 = d->path2;
	e->path2_len = d->path2 ? (uint32_t)strlen(d->path2) : 0;
	e->pid = pid;
	e->tid = d->tid;
	e->nr = d->nr;
	e->flags = d->flags;
	e->nargs = d->nargs;
}
