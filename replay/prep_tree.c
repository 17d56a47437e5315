/*
 * prep_tree.c - what making the starting tree looks up, at a cost per
 * entry that does not grow with the depth of the tree or its size.
 *
 * Making each entry from the root (openat2 of every ancestor to make the
 * missing ones, then of the parent: O(depth^2) lookups in the kernel per
 * entry) and asking whether the workload made an ancestor by a binary
 * search per ancestor took 32 us an entry on a tree of 150,000 where
 * cp -a --attributes-only takes about 13.  Entries come in the order the
 * workload first met them, so runs of them share a parent: the parents
 * are kept open here, each opened as one plain name below its own
 * parent.  Every descriptor kept was opened inside the root: from the
 * root with RESOLVE_IN_ROOT, or one component below such a descriptor
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (rpl_open_name()); a name
 * that is a symlink, "." or ".." is resolved from the root again, so
 * symlinks resolve as they did and the confinement is the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl.h"

#define SLOTS 256			/* directories kept open */

struct pdir {
	uint64_t h;
	uint32_t len;
	int fd;
	char *path;
};

struct rpl_pdirs {
	int root_fd;
	struct pdir e[SLOTS];
};

struct rpl_pdirs *rpl_pdirs_new(int root_fd)
{
	struct rpl_pdirs *d = calloc(1, sizeof(*d));
	int i;

	if (!d)
		return NULL;
	d->root_fd = root_fd;
	for (i = 0; i < SLOTS; i++)
		d->e[i].fd = -1;
	return d;
}

void rpl_pdirs_free(struct rpl_pdirs *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < SLOTS; i++) {
		if (d->e[i].fd >= 0)
			close(d->e[i].fd);
		free(d->e[i].path);
	}
	free(d);
}

/* The whole of @path (@len bytes) from the root, following symlinks
 * inside it, as rpl_parent() opens a parent. */
static int from_root(struct rpl_pdirs *d, const char *path, size_t len)
{
	char sbuf[4096], *buf = sbuf;
	int fd;

	if (len >= sizeof(sbuf) && !(buf = malloc(len + 1)))
		return -ENOMEM;
	memcpy(buf, path, len);
	buf[len] = 0;
	fd = rpl_resolve(d->root_fd, buf, O_PATH | O_DIRECTORY, 0);
	if (buf != sbuf)
		free(buf);
	return fd;
}

int rpl_pdirs_get(struct rpl_pdirs *d, const char *path, size_t len)
{
	uint64_t h;
	struct pdir *e;
	size_t s = len;
	char name[256], *copy;
	int pfd, fd = -EINVAL;

	if (len == 1 && path[0] == '/')
		return d->root_fd;
	h = iot_hash(path, len, 13);
	e = &d->e[h & (SLOTS - 1)];
	if (e->fd >= 0 && e->h == h && e->len == len && memcmp(e->path, path, len) == 0)
		return e->fd;
	while (s > 0 && path[s - 1] != '/')
		s--;
	if (s > 0 && len - s > 0 && len - s < sizeof(name)) {
		pfd = rpl_pdirs_get(d, path, s > 1 ? s - 1 : s);
		if (pfd < 0)
			return pfd;	/* what is below a missing parent is missing */
		memcpy(name, path + s, len - s);
		name[len - s] = 0;
		fd = rpl_open_name(pfd, name, O_PATH | O_DIRECTORY, 0);
		if (fd == -ENOENT)
			return fd;
	}
	if (fd < 0)			/* a symlink, "..": from the root */
		fd = from_root(d, path, len);
	if (fd < 0)
		return fd;
	copy = malloc(len + 1);
	if (!copy)
		return fd;		/* uncached: the caller's to use once */
	memcpy(copy, path, len);
	copy[len] = 0;
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	*e = (struct pdir){ h, (uint32_t)len, fd, copy };
	return fd;
}

int rpl_pdirs_parent(struct rpl_pdirs *d, const char *path, struct rpl_name *n)
{
	size_t len = strlen(path);
	long start;
	int fd;

	n->dirfd = -1;
	n->owned = 0;
	if (len == 0)
		return -ENOENT;
	start = rpl_split_name(path, len, n);
	if (start <= 0)		/* "/", "..", or a relative name */
		return start < 0 ? (int)start : rpl_parent(d->root_fd, path, n);
	fd = rpl_pdirs_get(d, path, start > 1 ? (size_t)start - 1 : (size_t)start);
	if (fd < 0)
		return fd;
	n->dirfd = fd;
	return 0;
}

/* The first state of each path, by the path's hash. */
static int index_paths(const struct rpl_plan *p, struct rpl_map *m)
{
	size_t i;

	for (i = 0; i < p->n_ps; i++) {
		const char *s = p->ps[i].path;

		if (i > 0 && strcmp(s, p->ps[i - 1].path) == 0)
			continue;
		if (rpl_map_put(m, iot_hash(s, strlen(s), 17), (uint32_t)i) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The index of the first state of @s (@n bytes), or -1. */
static long first_state(const struct rpl_plan *p, const struct rpl_map *m, const char *s,
			size_t n)
{
	const struct iot_path_state *ps;
	char buf[4096];
	uint32_t j;

	if (rpl_map_get(m, iot_hash(s, n, 17), &j) && strlen(p->ps[j].path) == n &&
	    memcmp(p->ps[j].path, s, n) == 0)
		return j;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);		/* two paths, one hash: ask the sorted list */
	buf[n] = 0;
	ps = rpl_path_state(p, buf);
	return ps ? ps - p->ps : -1;
}

int64_t *rpl_prep_made_t(const struct rpl_plan *p)
{
	int64_t *t = malloc((p->n_ps + 1) * sizeof(*t));
	int64_t *g = malloc((p->n_ps + 1) * sizeof(*g));
	struct rpl_map m = { 0 };
	size_t i;

	if (!t || !g || index_paths(p, &m) < 0) {
		free(t);
		t = NULL;
		goto out;
	}
	/* Sorted by path, an ancestor's state comes before its
	 * descendants': each path asks its nearest ancestor that has a
	 * state, whose answer covers the rest of the way to the root. */
	for (i = 0; i < p->n_ps; i++) {
		const struct iot_path_state *ps = &p->ps[i];
		size_t n = strlen(ps->path);
		int64_t best = INT64_MAX;

		if (i > 0 && strcmp(ps->path, p->ps[i - 1].path) == 0) {
			t[i] = t[i - 1];
			g[i] = g[i - 1];
			continue;
		}
		/* the ancestors made_by_workload() walked: cut at each '/'
		 * down to "/" */
		while (n < 4096 && n > 1) {
			long j;

			while (n > 1 && ps->path[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
			j = first_state(p, &m, ps->path, n);
			if (j >= 0 && (size_t)j < i) {
				if (g[j] < best)
					best = g[j];
				break;
			}
		}
		t[i] = best;
		g[i] = !ps->type && ps->t_ns < best ? ps->t_ns : best;
	}
out:
	free(g);
	rpl_map_free(&m);
	return t;
}
