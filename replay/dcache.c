/*
 * dcache.c - per-thread cache of parent directories opened in the root.
 *
 * A name operation (mkdir, unlink, rename, lstat...) needs its parent
 * opened inside the root: openat2 + the call + close, three syscalls for
 * one.  Threads keep the last parents they opened, keyed by the parent's
 * recorded path, so a run of creates in one directory costs one syscall
 * each.  An entry is trusted only while no op anywhere has removed,
 * renamed or made a name that could change what a path resolves to
 * (rpl_ns_changed() bumps a global generation): a stale entry would
 * still point inside the root (every rename is confined), but it would
 * not be what the recorded path names any more.
 *
 * A parent reached through directories only (no symlink on the way) is
 * changed by none of the removals of files (unlink cannot remove a
 * directory), by no rename of a file or symlink over no directory (the
 * plan tells which from the recorded calls: moves.c), by no symlink made
 * (a new name, where no directory was).  Such an entry ("plain") goes by
 * a second generation, which only what may remove or move a directory
 * bumps (rmdir, any other rename, an io_uring batch).  A program that creates and deletes files in a few
 * directories (a mail spool) otherwise opened the parent again, from the
 * root, after each unlink: 68,000 lookups of the whole path and as many
 * closes in a replay of 338,000 calls, 1.9x the recorded time of its
 * opens and stats.
 *
 * A parent's slot is one of the RPL_DC_WAYS of a set its path's hash
 * picks, the one used longest ago giving way.  One slot per hash (as
 * before) let two directories in use together evict each other whenever
 * their hashes met in the table's bits, which the recorded path decides
 * (the directory the workload ran in, a pid in its name): postmark's ten
 * directories, one recording in five, had two of them take turns in one
 * slot, 8,700 opens of one from the other and as many closes, 5 % more
 * syscalls than the 338,000 it replays, and none in the next recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl.h"

struct dc_entry {
	uint64_t h;
	uint32_t gen;
	uint32_t dgen;			/* dir_gen when opened */
	uint32_t len;
	uint32_t used;			/* the cache's clock when last found or put */
	int plain;			/* no symlink on its path: dgen is what counts */
	int fd;
	char *path;
};

struct rpl_dcache {
	uint32_t n;			/* slots, a power of 2, >= RPL_DC_WAYS */
	uint32_t clock;			/* counts lookups that found or put */
	struct dc_entry e[];
};

struct rpl_dcache *rpl_dcache_new(uint32_t slots)
{
	struct rpl_dcache *d;
	uint32_t i;

	if (slots < RPL_DC_WAYS || (slots & (slots - 1)))
		slots = RPL_DC_SHARED;
	d = calloc(1, sizeof(*d) + slots * sizeof(d->e[0]));
	if (!d)
		return NULL;
	d->n = slots;
	for (i = 0; i < slots; i++)
		d->e[i].fd = -1;
	return d;
}

void rpl_dcache_free(struct rpl_dcache *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < (int)d->n; i++) {
		if (d->e[i].fd >= 0)
			close(d->e[i].fd);
		free(d->e[i].path);
	}
	free(d);
}

void rpl_dcache_drop(struct rpl_dcache *d)
{
	uint32_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++) {
		if (d->e[i].fd >= 0)
			close(d->e[i].fd);
		free(d->e[i].path);
		memset(&d->e[i], 0, sizeof(d->e[i]));
		d->e[i].fd = -1;
	}
}

void rpl_ns_changed(struct rpl_plan *p)
{
	atomic_fetch_add(&p->ns_gen, 1);
	atomic_fetch_add(&p->dir_gen, 1);
}

void rpl_ns_nodir(struct rpl_plan *p)
{
	atomic_fetch_add(&p->ns_gen, 1);
}

/* The two generations, read before a lookup: a change made while it runs
 * leaves what it found stale at the next look. */
struct dc_gens {
	uint32_t ns, dir;
};

static struct dc_gens dc_now(struct rpl_plan *p)
{
	struct dc_gens g = { atomic_load(&p->ns_gen), atomic_load(&p->dir_gen) };

	return g;
}

void rpl_name_done(struct rpl_name *n)
{
	if (n->owned && n->dirfd >= 0)
		close(n->dirfd);
	n->dirfd = -1;
}

/*
 * Tree walkers (du, rm -rf, find, tar) name files relative to a directory
 * they opened: openat, fstatat, unlinkat(dirfd, name).  The recorder
 * writes the directory's path plus the name; when the op's path is the
 * live descriptor's recorded path plus one plain name, the call is made
 * as the program made it, on the name in that descriptor: no lookup of
 * the parent, and nothing a removal elsewhere can make stale.  The
 * descriptor was opened inside the root, and a plain name in it stays
 * there.
 */
int rpl_parent_fd(struct rpl_ctx *c, const struct rpl_op *op, struct rpl_name *n)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	const char *path = op->ev.path, *name;
	struct rpl_fd e;
	size_t plen, len;
	int k;

	if (!sc || !path)
		return -1;
	for (k = 0; k < sc->nargs && sc->arg[k] != IOT_ARG_DIRFD; k++)
		;
	/* AT_FDCWD and other negative values name no descriptor */
	if (k == sc->nargs || (uint32_t)k >= op->ev.nargs || op->ev.args[k] < 0 ||
	    op->ev.args[k] >= RPL_FD_MAX)
		return -1;
	if (rpl_fdtab_get(c->pr->tab, (long)op->ev.args[k], &e) < 0 ||
	    e.state != RPL_FD_LIVE || !e.path)
		return -1;
	plen = strlen(e.path);
	while (plen > 1 && e.path[plen - 1] == '/')
		plen--;
	len = strlen(path);
	if (plen == 0 || len <= plen + 1 || memcmp(path, e.path, plen) != 0 ||
	    (path[plen] != '/' && plen > 1))
		return -1;
	name = path + (plen > 1 ? plen + 1 : plen);
	len -= (size_t)(name - path);
	if (len == 0 || len >= sizeof(n->name) || memchr(name, '/', len) ||
	    rpl_dot_name(name))
		return -1;
	memcpy(n->name, name, len + 1);
	n->dirfd = e.live;
	n->owned = 0;
	return 0;
}

/* Does @e hold directory @path (@plen bytes, hash @h), still current? */
static int dc_holds(const struct dc_entry *e, const char *path, size_t plen, uint64_t h,
		    struct dc_gens g)
{
	return e->fd >= 0 && (e->plain ? e->dgen == g.dir : e->gen == g.ns) && e->h == h &&
	       e->len == plen && memcmp(e->path, path, plen) == 0;
}

/* The first of the RPL_DC_WAYS slots of hash @h's set. */
static struct dc_entry *dc_set(struct rpl_dcache *d, uint64_t h)
{
	return &d->e[h & (d->n - RPL_DC_WAYS)];
}

/* The slot of @d holding @path current, marked used, or NULL. */
static struct dc_entry *dc_find(struct rpl_dcache *d, const char *path, size_t plen, uint64_t h,
				struct dc_gens g)
{
	struct dc_entry *e = dc_set(d, h);
	int i;

	for (i = 0; i < RPL_DC_WAYS; i++)
		if (dc_holds(&e[i], path, plen, h, g)) {
			e[i].used = ++d->clock;
			return &e[i];
		}
	return NULL;
}

/* The slot of @h's set a new parent goes in: an empty one, else one that
 * held @path (@plen bytes) before a change made it stale, else the one
 * used longest ago; never the one holding @busy (a descriptor still in
 * use: the first name of an op that has two, rpl_parent_at2()). */
static struct dc_entry *dc_victim(struct rpl_dcache *d, const char *path, size_t plen, uint64_t h,
				  int busy)
{
	struct dc_entry *e = dc_set(d, h), *v = NULL;
	int i;

	for (i = 0; i < RPL_DC_WAYS; i++) {
		if (e[i].fd >= 0 && e[i].fd == busy)
			continue;
		if (e[i].fd < 0 || (e[i].h == h && e[i].len == plen &&
				    memcmp(e[i].path, path, plen) == 0))
			return &e[i];
		if (!v || (int32_t)(e[i].used - v->used) < 0)
			v = &e[i];
	}
	return v;	/* RPL_DC_WAYS > 1: one slot at most is @busy */
}

/* Make @e hold @fd for @path, closing what it held.  @return : 0 (the
 * cache owns @fd now), or -1 out of memory (@e empty, @fd still yours). */
static int dc_put(struct rpl_dcache *d, struct dc_entry *e, const char *path, size_t plen,
		  uint64_t h, struct dc_gens g, int plain, int fd)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	free(e->path);
	e->path = malloc(plen + 1);
	if (!e->path)
		return -1;
	memcpy(e->path, path, plen);
	e->path[plen] = 0;
	e->len = (uint32_t)plen;
	e->h = h;
	e->gen = g.ns;
	e->dgen = g.dir;
	e->plain = plain;
	e->fd = fd;
	e->used = ++d->clock;
	return 0;
}

/*
 * Directory @path (@plen bytes) opened from its own parent when that is
 * cached: one plain name looked up in a directory already inside the
 * root, not the whole path walked again (openat2 of a path in the root:
 * 4-7 us on tmpfs; cp -a opens each directory it made this way).  A name
 * that is a symlink, "." or "..", or anything but a plain answer: -1,
 * and the caller opens it from the root as before, following symlinks
 * there.  No such name in the cached parent: -ENOENT, which the whole
 * path would say too (a program's start looks for locale directories
 * that are not there, file after file).  @*plain : whether the cached
 * parent was.
 */
static int below_cached(struct rpl_dcache *d, const char *path, size_t plen,
			struct dc_gens gen, int *plain)
{
	size_t s = plen, gplen;
	const struct dc_entry *g;
	char name[256];
	uint64_t h;
	int fd;

	while (s > 0 && path[s - 1] != '/')
		s--;
	if (s < 2 || plen - s == 0 || plen - s >= sizeof(name))
		return -1;
	gplen = s - 1;			/* "/a" of "/a/b" */
	h = iot_hash(path, gplen, 3);
	g = dc_find(d, path, gplen, h, gen);
	if (!g)
		return -1;
	memcpy(name, path + s, plen - s);
	name[plen - s] = 0;
	*plain = g->plain;
	fd = rpl_open_name(g->fd, name, O_PATH | O_DIRECTORY, 0);
	return fd >= 0 || fd == -ENOENT ? fd : -1;
}

/* rpl_parent_at() of @path, @len bytes long, keeping the slot that holds
 * @busy (or -1) */
static int parent_at_len(struct rpl_ctx *c, const char *path, size_t len, struct rpl_name *n,
			 int busy)
{
	struct rpl_dcache *d = c->t->dcache;
	struct dc_gens gen = dc_now(c->p);
	size_t end, start, plen;
	struct dc_entry *e;
	uint64_t h;
	int err, plain = 0;

	if (!d)
		return rpl_parent(c->p->root_fd, path, n);
	start = rpl_last_name(path, len, &end);
	plen = start > 1 ? start - 1 : start;	/* "/a/b" for "/a/b/c" */
	if (end == start || end - start >= sizeof(n->name) || start == 0)
		return rpl_parent(c->p->root_fd, path, n);
	memcpy(n->name, path + start, end - start);
	n->name[end - start] = 0;
	if (rpl_dot_name(n->name))
		return -EINVAL;
	h = iot_hash(path, plen, 3);
	if ((e = dc_find(d, path, plen, h, gen))) {
		n->dirfd = e->fd;
		n->owned = 0;
		return 0;
	}
	n->dirfd = below_cached(d, path, plen, gen, &plain);
	n->owned = 1;
	if (n->dirfd == -ENOENT) {
		n->dirfd = -1;
		return -ENOENT;
	}
	if (n->dirfd < 0) {
		err = rpl_parent_plain(c->p->root_fd, path, n, &plain);
		if (err)
			return err;
	}
	/* Keep it: the cache owns the descriptor from now on (chosen after
	 * below_cached(), which marked the grandparent used). */
	e = dc_victim(d, path, plen, h, busy);
	if (dc_put(d, e, path, plen, h, gen, plain, n->dirfd) == 0)
		n->owned = 0;
	return 0;
}

int rpl_parent_at(struct rpl_ctx *c, const char *path, struct rpl_name *n)
{
	return parent_at_len(c, path, strlen(path), n, -1);
}

/*
 * The second name of an op that names two (link, rename), @first being
 * the first's, still in use: its parent from the cache too (cp -al links
 * each file of a source directory into the copy: the source's parent was
 * opened from the root and closed again for every file, 3,200 lookups of
 * the whole path and as many closes in a replay of 18,600 calls), but
 * never in the slot that holds @first's descriptor, which putting it
 * there would close.
 */
int rpl_parent_at2(struct rpl_ctx *c, const char *path, struct rpl_name *n,
		   const struct rpl_name *first)
{
	return parent_at_len(c, path, strlen(path), n, first->owned ? -1 : first->dirfd);
}

/*
 * A directory the program opened by path (cp -a opens each source
 * directory to read it, then names its files by path) is the parent of
 * the names that follow: keep a copy of the replayed descriptor (an
 * F_DUPFD, ~0.3 us) instead of opening it again (openat2, 4-7 us) at the
 * first of them.  It was opened inside the root, following symlinks as
 * rpl_parent() does, no name changed since @gen.  Whether a symlink was
 * on its way is not known: it goes by the generation of every change.
 */
void rpl_dcache_offer(struct rpl_ctx *c, const char *path, int fd, uint32_t gen)
{
	struct rpl_dcache *d = c->t->dcache;
	size_t plen = path ? strlen(path) : 0;
	struct dc_gens now = dc_now(c->p);
	struct dc_entry *e;
	uint64_t h;
	int copy;

	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (!d || plen < 2 || path[0] != '/' || gen != now.ns)
		return;
	h = iot_hash(path, plen, 3);
	if (dc_find(d, path, plen, h, now))
		return;
	e = dc_victim(d, path, plen, h, -1);
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (copy >= 0 && dc_put(d, e, path, plen, h, now, 0, copy) < 0)
		close(copy);
}

/*
 * Opening a file the way the recorded program did, one component below a
 * directory it already holds, instead of walking the whole path from the
 * root each time.  Only a plain answer from the parent is taken: a
 * symlink as last component (-ELOOP under RESOLVE_NO_SYMLINKS), a
 * trailing slash (the name must then be a directory), any error but "no
 * such name" or "exists", or no cached parent, and the open is made from
 * the root as before, so what symlinks resolve to and the confinement do
 * not change.
 */
int rpl_open_at(struct rpl_ctx *c, const char *path, int flags, mode_t mode)
{
	struct rpl_name n;
	size_t len = path ? strlen(path) : 0;
	int fd;

	if (len < 2 || path[0] != '/' || path[len - 1] == '/')
		return rpl_resolve(c->p->root_fd, path, flags, mode);
	/* no parent: no file either, O_CREAT or not (a program's start
	 * tries locale and library directories that are not there: the
	 * whole path opened again from the root after each, 3,400 of them
	 * in a replay of 900 processes) */
	fd = parent_at_len(c, path, len, &n, -1);
	if (fd == -ENOENT)
		return fd;
	if (fd != 0)
		return rpl_resolve(c->p->root_fd, path, flags, mode);
	fd = rpl_open_name(n.dirfd, n.name, flags, mode);
	rpl_name_done(&n);
	if (fd >= 0 || fd == -ENOENT || fd == -EEXIST)
		return fd;
	return rpl_resolve(c->p->root_fd, path, flags, mode);
}
