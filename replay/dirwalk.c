/*
 * dirwalk.c - a directory walk replayed in the order the filesystem under
 * test lists the directory, and how much of one could not be.
 *
 * A program that walks a tree (tar c, find, rm -r, du) reads a
 * directory's entries and takes them in the order the filesystem lists
 * them; the trace holds that order as the recording filesystem gave it.
 * ext4 lists by name hash, xfs and btrfs a small directory in the order
 * its entries were made, which is the order their data lies in when a
 * program wrote them one after the other: on xfs a native 'tar c' of a
 * tree 'cp -a' made reads it forward, and the replay of one recorded on
 * ext4 read the same files in hash order, backwards half the time (cold,
 * +16 % for those reads alone, docs/VALIDATION.md).
 *
 * So once a thread has listed a directory to its end, the calls that
 * follow and name its entries relative to the listed descriptor are
 * taken, entry by entry, in the order this filesystem listed them
 * (walk_reorder()): each entry's calls (its stats, its open, reads and
 * close, a subdirectory's own walk) move as one group.  Only where that
 * is what the program did: a walk recorded in the order of its names
 * (tar --sort=name, ls) or of the entries' making (cp, which sorts by
 * inode number) keeps its order, and so does one whose groups share a
 * descriptor, or hold a process start or an exit: the replayed calls
 * stay the recorded ones.  What is left is counted: of the files opened
 * relative to a descriptor whose directory this thread listed, those
 * opened after one that the target lists later.
 *
 * fts (rm -r, du, find) copies the directory's descriptor before it
 * reads it (fcntl F_DUPFD), closes the one it read after the last
 * getdents64, and names the entries through the copy, which stays open
 * across them as the parent's (walk_copy()); find also copies it before
 * each subdirectory and closes that copy inside it, which makes the copy
 * the next entry's.  du stats every entry, then enters the
 * subdirectories: an entry that comes again begins a second pass, and
 * each pass is put in order by itself.  Before, none of these moved:
 * the first call after the listing closed the listed descriptor, which
 * ended the walk before its first entry.
 *
 * A call another thread waits for stays in its place (the waits name
 * the positions of a thread's calls) while the entries' calls move
 * around it (walk_reorder()'s fixed ops): one on a descriptor no entry
 * opened, that makes and ends none, as the 10 KiB writes of `tar c | xz`
 * into the pipe are.  Its reader then takes the same byte counts at the
 * same points of the writer's calls; what the bytes held (which files)
 * the replay never had, so the reader's calls are the recorded ones
 * whatever they depended on.  Only where every call that moves waits for
 * nothing not yet done (deps_met()): the thread then waits in the walk
 * at the fixed calls alone, for the same calls as recorded, and no
 * circle of waits can be made.  A walk that holds a call on a pipe or
 * socket that no other thread waits for keeps its recorded order: moved
 * with its entry, it would put its bytes ahead of the fixed call's, and
 * a pipe filled so would hold the writer while the reader waits for the
 * fixed call.  Not moved by this: the reader's own
 * walk-less order (find | xargs cat: cat opens the files in the order
 * find printed them on the recording filesystem, which the replay keeps;
 * find's own walk moves, but its files cost it no call, d_type telling
 * them apart).  With IOTAPE_REPLAY_WALKS set, each walk kept says why.
 *
 * Per replaying thread, its own maps only: no lock.  A listed name is
 * kept as (recorded descriptor, name) -> its rank in the thread's
 * listings, up to DW_MAX_NAMES names; an open looks it up and compares
 * the rank with that of the last file opened under that descriptor.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "hash.h"
#include "iotape.h"
#include "rpl.h"

#define DW_MAX_NAMES (1u << 20)
#define DW_SPAN (1u << 20)		/* ops a walk of one directory may span */
#define DW_LEAD 64			/* ops before its first entry's (tar looks its user up there) */
#define DW_FDS 32			/* descriptors open at once inside one entry's */
#define DW_LISTED_MAX (1u << 22)	/* names kept of every thread's listings */
#define DW_DEPTH 64			/* directories a name given by path is below its run's */

struct rpl_dirwalk {
	struct rpl_map rank;		/* (fd, name) -> rank, from 1 */
	struct rpl_map last;		/* fd -> rank of the last file opened under it */
	uint32_t next;			/* ranks given so far */
	uint32_t first;			/* the first rank of the listing going on */
	int64_t fd;			/* ... of this recorded descriptor */
	int listing;
	int debug;			/* IOTAPE_REPLAY_WALKS set: say what kept each walk */
	const char *at;			/* ... and the call where it was seen */
};

static uint64_t name_key(int64_t fd, const char *name, size_t len)
{
	/* never 0, which the map keeps for an empty slot */
	return (iot_hash(name, len, 17) ^ ((uint64_t)fd * 0x9e3779b97f4a7c15ULL)) | 1;
}

/* The next entry of @len bytes of dirent64 records from @*off on, but
 * for "." and "..": its name in @*name, @*n bytes.  0: none left. */
static int next_name(const char *buf, int64_t len, int64_t *off, const char **name, size_t *n)
{
	while (*off + (int64_t)offsetof(struct dirent64, d_name) < len) {
		const struct dirent64 *d = (const struct dirent64 *)(buf + *off);

		if (d->d_reclen == 0 || *off + d->d_reclen > len)
			return 0;
		*n = strnlen(d->d_name, d->d_reclen - offsetof(struct dirent64, d_name));
		*name = d->d_name;
		*off += d->d_reclen;
		if ((*n == 1 && d->d_name[0] == '.') ||
		    (*n == 2 && d->d_name[0] == '.' && d->d_name[1] == '.'))
			continue;
		return 1;
	}
	return 0;
}

/* The hash of directory @dir's @len bytes, trailing slashes dropped (the
 * root is ""), as the key of its names in plan.listed. */
static uint64_t dir_hash(const char *dir, size_t len)
{
	while (len && dir[len - 1] == '/')
		len--;
	return iot_hash(dir, len, 29);
}

static uint64_t listed_key(uint64_t dh, const char *name, size_t n)
{
	return iot_hash(name, n, dh) | 1;
}

/* Keep the names a listing of directory @dir returned here for every
 * thread (rpl_dirwalk_paths()), each ranked after those kept before. */
static void publish(struct rpl_plan *p, const char *dir, const char *buf, int64_t len)
{
	uint64_t dh = dir_hash(dir, strlen(dir));
	const char *name;
	int64_t off = 0;
	size_t n;
	int any = 0;

	pthread_mutex_lock(&p->listed_lock);
	while (p->listed_next < DW_LISTED_MAX && next_name(buf, len, &off, &name, &n) &&
	       rpl_map_put(&p->listed, listed_key(dh, name, n), ++p->listed_next) == 0)
		any = 1;
	pthread_mutex_unlock(&p->listed_lock);
	if (any)
		atomic_store_explicit(&p->listed_any, 1, memory_order_relaxed);
}

void rpl_dirwalk_listed(struct rpl_thread *t, int64_t fd, const char *dir, const char *buf,
			int64_t len)
{
	struct rpl_dirwalk *w = t->dirwalk;
	const char *name;
	int64_t off = 0;
	size_t n;

	if (dir && dir[0] == '/')
		publish(t->plan, dir, buf, len);
	if (!w) {
		w = t->dirwalk = calloc(1, sizeof(*w));
		if (!w)
			return;
		w->debug = getenv("IOTAPE_REPLAY_WALKS") != NULL;
	}
	if (!w->listing || w->fd != fd) {
		w->first = w->next + 1;
		w->fd = fd;
		w->listing = 1;
	}
	while (w->next < DW_MAX_NAMES && next_name(buf, len, &off, &name, &n))
		if (rpl_map_put(&w->rank, name_key(fd, name, n), ++w->next) < 0)
			return;
}

void rpl_dirwalk_listed_free(struct rpl_plan *p)
{
	rpl_map_free(&p->listed);
	p->listed_next = 0;
	atomic_store(&p->listed_any, 0);
}

/* The rank @path's last name got in the listing of recorded descriptor
 * @fd going on; its parent's length in @*dir. */
static int entry_rank(const struct rpl_dirwalk *w, int64_t fd, const char *path,
		      uint32_t *r, size_t *dir)
{
	size_t len = strlen(path), start, end;

	start = rpl_last_name(path, len, &end);
	if (end <= start || !rpl_map_get(&w->rank, name_key(fd, path + start, end - start), r) ||
	    *r < w->first)
		return 0;
	*dir = start;
	return 1;
}

/* One entry's calls: ops [start, the next one's start) of the thread,
 * in pass @pass of the walk (a walker that stats every entry, then
 * descends into the subdirectories, takes them twice: fts). */
struct dw_group {
	uint32_t start, end, rank, pass;
	const char *path;
	const uint32_t *key;		/* by path: the ranks of its names below */
	uint32_t nkey;			/* the run's common directory, outermost first */
};

static int by_rank(const void *a, const void *b)
{
	const struct dw_group *x = a, *y = b;

	if (x->pass != y->pass)
		return x->pass < y->pass ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The entries' making, as their order: those that were there first, by
 * inode number, then those the workload made, by when it made them. */
static int made_before(const struct iot_path_state *a, const struct iot_path_state *b)
{
	if (!a->type != !b->type)
		return a->type != 0;
	return a->type ? a->ino < b->ino : a->t_ns < b->t_ns;
}

/* The next name of @path after byte @*at: [@*s, @*e).  0: none. */
static int next_comp(const char *path, size_t *at, size_t *s, size_t *e)
{
	size_t i = *at;

	while (path[i] == '/')
		i++;
	if (!path[i])
		return 0;
	*s = i;
	while (path[i] && path[i] != '/')
		i++;
	*e = *at = i;
	return 1;
}

/* Where paths @a and @b part below their common first @root bytes: the
 * names [@as, @ae) and [@bs, @be) that differ.  0: one is the other's. */
static int parting(const char *a, const char *b, size_t root, size_t *as, size_t *ae,
		   size_t *bs, size_t *be)
{
	size_t ia = root, ib = root;

	for (;;) {
		int na = next_comp(a, &ia, as, ae), nb = next_comp(b, &ib, bs, be);

		if (!na || !nb)
			return 0;
		if (*ae - *as != *be - *bs || memcmp(a + *as, b + *bs, *ae - *as) != 0)
			return 1;
	}
}

/* The state of @path's first @len bytes, or NULL. */
static const struct iot_path_state *state_of(const struct rpl_plan *p, const char *path,
					     size_t len)
{
	char buf[PATH_MAX];

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, path, len);
	buf[len] = 0;
	return rpl_path_state(p, buf);
}

/* Did the program choose the recorded order of the @ng groups @g, those
 * of a walk or run below @root bytes (a walk's: its directory): the order
 * of the names (name by name where each two that follow part, or of the
 * whole paths as bytes: git's index), or of the entries' making where
 * they part (cp sorts by inode number)?  Where the trace holds no state
 * of the entries that part: it cannot be told, so yes. */
static int chosen_order(const struct rpl_plan *p, const struct dw_group *g, size_t ng,
			     size_t root)
{
	int by_name = 1, by_path = 1, by_made = 1;
	size_t i, as, ae, bs, be;
	const char *last = NULL;

	/* as bytes: each a file's path, but for a directory looked at just
	 * before a file in it (git's check of a file's leading directories:
	 * "can.h", then "can" before "can/bcm.h") */
	for (i = 0; i < ng && by_path; i++) {
		size_t n = strlen(g[i].path);

		if (i + 1 < ng && strncmp(g[i].path, g[i + 1].path, n) == 0 &&
		    g[i + 1].path[n] == '/')
			continue;
		if (last && strcmp(last, g[i].path) > 0)
			by_path = 0;
		last = g[i].path;
	}
	if (by_path)
		return 1;

	for (i = 1; i < ng; i++) {
		const struct iot_path_state *x, *y;
		size_t n;
		int c;

		if (!parting(g[i - 1].path, g[i].path, root, &as, &ae, &bs, &be))
			continue;
		n = ae - as < be - bs ? ae - as : be - bs;
		c = memcmp(g[i - 1].path + as, g[i].path + bs, n);
		if (c > 0 || (c == 0 && ae - as > be - bs))
			by_name = 0;
		x = state_of(p, g[i - 1].path, ae);
		y = state_of(p, g[i].path, be);
		if (!x || !y)
			return 1;
		if (made_before(y, x))
			by_made = 0;
	}
	return by_name || by_path || by_made;
}

/* Close @fd among the @*n descriptors an entry's calls opened. */
static int fd_closed(int64_t *fds, int *n, int64_t fd)
{
	int k;

	for (k = 0; k < *n; k++)
		if (fds[k] == fd) {
			fds[k] = fds[--*n];
			return 1;
		}
	return 0;
}

/* The descriptor @op made as a copy of its first argument (dup, fcntl
 * F_DUPFD), or -1. */
static int64_t dup_made(const struct rpl_op *op)
{
	if (op->ev.ret < 0)
		return -1;
	if (op->ev.nr == SYS_dup ||
	    (op->ev.nr == SYS_fcntl && (op->ev.args[1] == F_DUPFD || op->ev.args[1] == F_DUPFD_CLOEXEC)))
		return op->ev.ret;
	return -1;
}

/*
 * The copy of listed descriptor @dfd that thread @t made in the ops just
 * before position @from, or -1.  fts (rm -r, du, find) copies the
 * directory's descriptor before it reads it, closes the one it read once
 * at the end, and names the entries relative to the copy, which stays
 * open across them as the parent's.
 */
static int64_t walk_copy(const struct rpl_thread *t, uint32_t from, int64_t dfd)
{
	const struct rpl_plan *p = t->plan;
	uint32_t j, lo = from > DW_LEAD ? from - DW_LEAD : 0;

	for (j = from; j-- > lo;) {
		const struct rpl_op *op = &p->ops[t->ops[j]];
		const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);

		if (op->ev.args[0] == dfd && dup_made(op) >= 0)
			return dup_made(op);
		if (sc && (sc->flags & IOT_SCF_RETFD) && op->ev.ret == dfd)
			break;		/* the listed one's opening */
	}
	return -1;
}

/* Add position @j to the fixed ops. */
static int push_fixed(uint32_t **fixed, uint32_t *n, uint32_t *cap, uint32_t j)
{
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 64, *nf = realloc(*fixed, c * sizeof(**fixed));

		if (!nf)
			return -1;
		*fixed = nf;
		*cap = c;
	}
	(*fixed)[(*n)++] = j;
	return 0;
}

/* Follow the descriptors that the calls of one entry (or file) open and
 * close, in @fds (@*nfd of them), through op @op: -1 where @op would
 * share one across entries (it makes a pipe or socket pair, dup2, dup3
 * or close_range, closes one the entry did not open, or opens one more
 * than DW_FDS). */
static int entry_fds(const struct rpl_op *op, const struct iot_syscall *sc, int64_t *fds,
		     int *nfd)
{
	int64_t made;
	int a;

	for (a = 0; a < sc->nargs; a++)
		if (sc->arg[a] == IOT_ARG_FDPAIR)
			return -1;
	if (op->ev.nr == SYS_dup2 || op->ev.nr == SYS_dup3 || op->ev.nr == SYS_close_range)
		return -1;
	if ((sc->flags & IOT_SCF_CLOSE) && sc->nargs && sc->arg[0] == IOT_ARG_FD &&
	    !fd_closed(fds, nfd, op->ev.args[0]))
		return -1;
	made = (sc->flags & IOT_SCF_RETFD) && op->ev.ret >= 0 ? op->ev.ret : dup_made(op);
	if (made >= 0) {
		if (*nfd == DW_FDS)
			return -1;
		fds[(*nfd)++] = made;
	}
	return 0;
}

/* May @op, which another thread waits for, stay in its place while the
 * entries' calls move around it?  One on a descriptor of none of them
 * (not the walk's @wfd, none of the @nfd the entry opened), which makes
 * or ends none. */
static int fixed_op(const struct rpl_op *op, const struct iot_syscall *sc, int64_t wfd,
		    const int64_t *fds, int nfd)
{
	int k;

	if (!sc->nargs || sc->arg[0] != IOT_ARG_FD || op->ev.args[0] == wfd ||
	    (sc->flags & (IOT_SCF_RETFD | IOT_SCF_CLOSE)) || dup_made(op) >= 0)
		return 0;
	for (k = 0; k < nfd; k++)
		if (fds[k] == op->ev.args[0])
			return 0;
	return 1;
}

/* Is recorded descriptor @fd of @t's process a pipe or a socket here?
 * @cache : the last descriptor asked (*cache, cache[1] its answer). */
static int on_stream(const struct rpl_thread *t, int64_t fd, int64_t *cache)
{
	struct rpl_fdtab *tab = t->plan->procs[t->proc].tab;
	struct rpl_fd e;

	if (cache[0] == fd)
		return (int)cache[1];
	cache[0] = fd;
	cache[1] = tab && rpl_fdtab_get(tab, (long)fd, &e) == 0 && e.state == RPL_FD_LIVE &&
		   rpl_fd_is_stream(e.live);
	return (int)cache[1];
}

/*
 * Has every op of [@base, @end) of thread @t what it waits for done
 * already?  Only then may its ops move: an op waits for what it waits
 * for itself, and for what every op before it in its thread waited for.
 * A group put ahead of another would pass the other's waits (the go
 * command's threads share one descriptor table: a file's open as fd 3,
 * moved ahead of another file's, whose open waited for another thread's
 * close of its own fd 3, took the number while that thread still had
 * it open, and that thread's read got EBADF).  Calls another thread
 * waits for stay where they are (the fixed ones), so the others' waits
 * name the same calls.
 */
static int deps_met(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t base,
		    uint32_t end)
{
	uint32_t j, d;

	for (j = base; j < end; j++) {
		const struct rpl_op *op = &p->ops[t->ops[j]];

		for (d = 0; d < op->ndeps; d++) {
			const struct rpl_dep *dep = &p->deps[op->dep_off + d];

			if (atomic_load_explicit(&p->threads[dep->thread].n_done,
						 memory_order_acquire) <= dep->pos)
				return 0;
		}
	}
	return 1;
}

/* Each group's pass: a new one begins where an entry comes again
 * (@seen: the pass, from 1, each rank from @first last had). */
static int walk_passes(struct dw_group *g, size_t ng, uint32_t first, uint32_t last)
{
	uint32_t *seen = calloc((size_t)last - first + 1, sizeof(*seen)), pass = 1;
	size_t i;

	if (!seen)
		return -1;
	for (i = 0; i < ng; i++) {
		if (seen[g[i].rank - first] == pass)
			pass++;
		seen[g[i].rank - first] = pass;
		g[i].pass = pass;
	}
	free(seen);
	return 0;
}

/*
 * Put groups @g (@ng of them, in the recorded order) of thread @t's ops
 * [g[0].start, @end) in the order @cmp gives, each group's ops in their
 * own order, into the places that are not one of the @nfixed fixed ops'
 * (positions, ascending: calls another thread waits for, which stay).
 * @return : 0, or -1 with @*why (then nothing moved).
 */
static int groups_move(struct rpl_thread *t, struct dw_group *g, size_t ng, uint32_t end,
		       const uint32_t *fixed, uint32_t nfixed,
		       int (*cmp)(const void *, const void *), const char **why)
{
	const struct rpl_plan *p = t->plan;
	uint32_t base = g[0].start, *tmp, j, k, f, pos;
	uint8_t *fx;
	size_t i;

	for (i = 0; i < ng; i++)
		g[i].end = i + 1 < ng ? g[i + 1].start : end;
	*why = "a call that waits for another thread";
	if (!deps_met(p, t, base, end))
		return -1;
	tmp = malloc((end - base) * sizeof(*tmp));
	fx = calloc(end - base, 1);
	*why = "out of memory";
	if (!tmp || !fx) {
		free(tmp);
		free(fx);
		return -1;
	}
	for (f = 0; f < nfixed; f++)
		fx[fixed[f] - base] = 1;
	qsort(g, ng, sizeof(*g), cmp);	/* each group keeps its bounds */
	for (i = 0, k = 0; i < ng; i++)
		for (pos = g[i].start; pos < g[i].end; pos++)
			if (!fx[pos - base])
				tmp[k++] = t->ops[pos];
	/* the groups' calls in their new order into the places that are
	 * not a fixed op's */
	for (j = base, i = 0, f = 0; i < k; i++) {
		while (f < nfixed && fixed[f] == j) {
			j++;
			f++;
		}
		t->ops[j++] = tmp[i];
	}
	free(tmp);
	free(fx);
	return 0;
}

/* Does @path name another entry of the walk's directory than @entry,
 * or something below one?  @dirlen : the directory's bytes in @entry,
 * up to its last '/'. */
static int other_entry(const char *path, const char *entry, size_t dirlen)
{
	size_t n;

	if (!path || strncmp(path, entry, dirlen) != 0 || !path[dirlen])
		return 0;
	n = strlen(entry + dirlen);
	return strncmp(path + dirlen, entry + dirlen, n) != 0 ||
	       (path[dirlen + n] != 0 && path[dirlen + n] != '/');
}

/*
 * The ops of thread @t from position @from on walk the directory listed
 * through recorded descriptor @dfd: group them by the entry they name
 * and put the groups in this filesystem's listing order, where the
 * groups can be moved and the recorded order was not the program's
 * choice.  Ops before the first entry's and from the walk's end (the
 * next call on @dfd that names no listed entry: its close, a stat of
 * the directory) stay.  Where @dfd was copied before the listing and is
 * closed before the first entry, the walk is through the copy (fts).
 * Each pass over the entries (an entry that comes again begins the
 * next) is put in order by itself.  @return : the groups moved, 0 if
 * none, and in @*why what kept the recorded order.
 */
static size_t walk_reorder(struct rpl_thread *t, struct rpl_dirwalk *w, uint32_t from,
			   int64_t dfd, const char **why)
{
	struct rpl_plan *p = t->plan;
	uint32_t lim = t->n_ops - from > DW_SPAN ? from + DW_SPAN : t->n_ops;
	struct dw_group *g = NULL;
	uint32_t j, end = UINT32_MAX;
	size_t ng = 0, cap = 0, dirlen = 0, i, i0, moved = 0;
	int64_t fds[DW_FDS], wfd = dfd, copy = walk_copy(t, from, dfd);
	uint32_t pending = UINT32_MAX, *fixed = NULL, nfixed = 0, capfixed = 0;
	int nfd = 0, ordered = 1, chosen = 0, copied;
	int64_t stream_fd[2] = { -1, 0 };

	*why = "no entry named through the listed descriptor";
	for (j = from; j < lim && end == UINT32_MAX; j++) {
		const struct rpl_op *op = &p->ops[t->ops[j]];
		const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
		uint32_t r;
		size_t dl;

		w->at = sc ? sc->name : "?";

		if (!ng && j - from >= DW_LEAD)
			goto out;
		/* what another thread waits for, a process start or end,
		 * async requests, mappings: in the recorded place */
		if (!sc || rpl_op_child(op) >= 0 || rpl_op_wait_proc(op) >= 0 || op->n_aio ||
		    rpl_mp_taken_here(op) || (sc->flags & IOT_SCF_NOEXIT)) {
			*why = "a process start or end, async requests or mappings";
			goto out;
		}
		/* A call into a pipe or socket that no other thread waits
		 * for would move with its entry: put ahead of one a reader
		 * waits for, its bytes fill the pipe first, and the reader
		 * waits for a write that waits for the reader (tar c into
		 * zstd -T2, whose reads follow some of tar's writes: a 2 s
		 * stall, then 350 mismatches, one replay in three).  Such a
		 * walk keeps its recorded order. */
		if (!op->needed && ng && fixed_op(op, sc, wfd, fds, nfd) &&
		    on_stream(t, op->ev.args[0], stream_fd)) {
			*why = "a pipe's or socket's call no other thread waits for";
			goto out;
		}
		if (op->needed) {
			/* One another thread waits for stays where it was
			 * (the waits name its position), the entries' calls
			 * move around it: only one on a descriptor that is
			 * no entry's, which makes or ends none (a write into
			 * the pipe a reader drains, whose bytes it takes
			 * whatever files they came from). */
			*why = "a call another thread waits for";
			if (!fixed_op(op, sc, wfd, fds, nfd))
				goto out;
			if (!ng)
				continue;	/* before the first entry: stays */
			if (push_fixed(&fixed, &nfixed, &capfixed, j) < 0)
				goto out;
			continue;
		}
		if (!ng && copy >= 0 && wfd == dfd && (sc->flags & IOT_SCF_CLOSE) && sc->nargs &&
		    op->ev.args[0] == dfd) {
			wfd = copy;	/* from here through the copy */
			continue;
		}
		copied = ng && sc->nargs && op->ev.args[0] == wfd && dup_made(op) >= 0;
		if (!copied && sc->nargs && (sc->arg[0] == IOT_ARG_FD || sc->arg[0] == IOT_ARG_DIRFD) &&
		    op->ev.args[0] == wfd) {
			if (sc->arg[0] != IOT_ARG_DIRFD || !op->ev.path ||
			    !entry_rank(w, dfd, op->ev.path, &r, &dl) || (ng && dl != dirlen) ||
			    (ng && memcmp(op->ev.path, g[0].path, dl) != 0)) {
				/* the walk's end; a copy of its descriptor
				 * made just before is the end's */
				end = pending < j ? pending : j;
				if (pending < j)
					nfd = 0;
				break;
			}
			if (!ng || g[ng - 1].rank != r) {
				/* a new entry: the last one's descriptors are
				 * closed (that none comes twice in a pass:
				 * once sorted), but for copies of the walk's
				 * it made just before, which are its own */
				if (nfd && pending == UINT32_MAX) {
					*why = "a descriptor open across entries";
					goto out;
				}
				if (ng == cap) {
					struct dw_group *ng2;

					cap = cap ? 2 * cap : 64;
					ng2 = realloc(g, cap * sizeof(*g));
					if (!ng2)
						goto out;
					g = ng2;
				}
				g[ng++] = (struct dw_group){ pending < j ? pending : j, 0, r, 0,
							     op->ev.path, NULL, 0 };
				dirlen = dl;
			}
			pending = UINT32_MAX;
		} else if (copied && !nfd) {
			/* a copy of the walk's descriptor between entries
			 * (find keeps one per subdirectory): the next
			 * entry's, if the next one begins */
			pending = j;
		}
		if (!ng)
			continue;	/* before the first entry: stays */
		/* An entry's calls name its own files: tar --remove-files
		 * unlinks an entry's last files while it archives the next
		 * one, and that entry moved ahead of the other took its
		 * files away before they were read (ENOENT) */
		*why = "a call on another entry's files";
		if (other_entry(op->ev.path, g[ng - 1].path, dirlen) ||
		    other_entry(op->ev.path2, g[ng - 1].path, dirlen))
			goto out;
		/* An entry's descriptors are its own: opened and closed in
		 * its group, so that the groups can change places. */
		*why = "a descriptor open across entries";
		if (entry_fds(op, sc, fds, &nfd) < 0)
			goto out;
	}
	*why = end == UINT32_MAX ? "no end within the span" : nfd ? "a descriptor open across entries" :
	       "fewer than two entries";
	if (end == UINT32_MAX || nfd || ng < 2)
		goto out;
	*why = "out of memory";
	if (walk_passes(g, ng, w->first, w->next) < 0)
		goto out;
	for (i0 = 0; i0 < ng; i0 = i) {
		for (i = i0 + 1; i < ng && g[i].pass == g[i0].pass; i++)
			if (g[i - 1].rank > g[i].rank)
				ordered = 0;
		if (chosen_order(p, g + i0, i - i0, dirlen))
			chosen = 1;
	}
	*why = ordered ? "listed here as recorded" : "the order of the names or of the making";
	if (ordered || chosen)
		goto out;
	if (groups_move(t, g, ng, end, fixed, nfixed, by_rank, why) < 0)
		goto out;
	moved = ng;
out:
	free(g);
	free(fixed);
	return moved;
}

void rpl_dirwalk_end(struct rpl_thread *t, int64_t fd, uint32_t next)
{
	struct rpl_dirwalk *w = t->dirwalk;
	const char *why;
	size_t n;

	if (!w || !w->listing || w->fd != fd)
		return;
	n = walk_reorder(t, w, next, fd, &why);
	w->listing = 0;
	if (!n && w->debug)
		iot_msg(IOT_MSG_INFO, "replay", "walk of descriptor %lld kept: %s (%s)", (long long)fd, why,
			w->at ? w->at : "-");
	if (n) {
		t->walk_dirs++;
		t->walk_moved += n;
	}
}

/* ---- names given by their paths (rpl_dirwalk_paths()) ---- */

/*
 * How @op names a file: 0 not by a path of its own (a descriptor's call,
 * AT_EMPTY_PATH: the path is the descriptor's); 1 by a path from the
 * root or the working directory, one name; 2 another way (relative to a
 * directory's descriptor, two names, a link's target, a change of the
 * working directory), which a run of names by path does not take.
 */
static int names_by_path(const struct rpl_op *op, const struct iot_syscall *sc)
{
	int a, fl = -1;

	if (op->ev.nr == SYS_chdir || op->ev.nr == SYS_fchdir || op->ev.nr == SYS_chroot)
		return 2;
	if (!sc->nargs || !op->ev.path)
		return 0;
	for (a = 0; a < sc->nargs; a++) {
		if (sc->arg[a] == IOT_ARG_PATH2 || sc->arg[a] == IOT_ARG_STR2)
			return 2;
		if (sc->arg[a] == IOT_ARG_AT_FLAGS)
			fl = a;
	}
	if (sc->arg[0] == IOT_ARG_DIRFD && (int)op->ev.args[0] != AT_FDCWD) {
		if (fl >= 0 && (op->ev.args[fl] & AT_EMPTY_PATH))
			return 0;
		return 2;
	}
	if (sc->arg[0] != IOT_ARG_PATH && sc->arg[0] != IOT_ARG_DIRFD)
		return 0;
	return op->ev.path[0] == '/' ? 1 : 2;
}

/* The rank the last name of @path's first @len bytes has in its
 * directory's listing here, by any thread. */
static int listed_rank(struct rpl_plan *p, const char *path, size_t len, uint32_t *r)
{
	size_t start = rpl_last_name(path, len, &len);
	uint64_t key;
	int found;

	if (len <= start)
		return 0;
	key = listed_key(dir_hash(path, start), path + start, len - start);
	pthread_mutex_lock(&p->listed_lock);
	found = rpl_map_get(&p->listed, key, r);
	pthread_mutex_unlock(&p->listed_lock);
	return found;
}

/* Groups by the ranks of their names below the run's directory: a
 * directory's files where the directory is listed (a walk's order, as
 * find prints it). */
static int by_key(const void *a, const void *b)
{
	const struct dw_group *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->nkey && i < y->nkey; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return x->nkey < y->nkey ? -1 : x->nkey > y->nkey;
}

/* Each group's key: the ranks of its path's names below the first
 * @root bytes, in their directories' listings here (@keys: room for
 * @depth per group, as many as the deepest has).  0: a name on the way
 * not listed here. */
static int path_keys(struct rpl_plan *p, struct dw_group *g, size_t ng, size_t root,
		     size_t depth, uint32_t *keys)
{
	size_t i, at, s, e;

	for (i = 0; i < ng; i++) {
		uint32_t *k = keys + i * depth, n = 0;

		for (at = root; next_comp(g[i].path, &at, &s, &e);) {
			if (n == depth || !listed_rank(p, g[i].path, e, &k[n]))
				return 0;
			n++;
		}
		g[i].key = k;
		g[i].nkey = n;
	}
	return 1;
}

/* Does @op read (or move the offset of) a descriptor none of the @nfd
 * of the file's group opened: the program's input, the list it takes
 * the names from (sha256sum -c reading its sums file between the files
 * it names)?  Moved with a file's calls, it would read other bytes. */
static int reads_input(const struct rpl_op *op, const struct iot_syscall *sc, const int64_t *fds,
		       int nfd)
{
	int k;

	if (!sc->nargs || sc->arg[0] != IOT_ARG_FD ||
	    !((sc->flags & IOT_SCF_READ) || op->ev.nr == SYS_lseek))
		return 0;
	for (k = 0; k < nfd; k++)
		if (fds[k] == op->ev.args[0])
			return 0;
	return 1;
}

/*
 * The ops of thread @t from position @from on, the first of which names
 * by its path an entry of a directory listed here: group them by the
 * file they name (each group: the ops from one that names a file by its
 * path to the next that names another, its descriptors opened and
 * closed in it) and put the groups in the order their directories are
 * listed here, where the groups can be moved and the recorded order was
 * not the program's choice.  The run ends before a call that names a
 * file not listed here, or one named before in the run, or names one
 * another way, a listing, a process start or end, async requests or
 * mappings, or a call another thread waits for that is not a fixed one
 * (walk_reorder()).  @*end : where the run ends.  @return : the groups
 * moved, 0 if none, and in @*why what kept the recorded order.
 */
static size_t path_run(struct rpl_thread *t, uint32_t from, uint32_t *endp, const char **why)
{
	struct rpl_plan *p = t->plan;
	uint32_t lim = t->n_ops - from > DW_SPAN ? from + DW_SPAN : t->n_ops;
	struct dw_group *g = NULL;
	struct rpl_map seen = { 0 };
	uint32_t j, end, *fixed = NULL, nfixed = 0, capfixed = 0, r, *keys = NULL;
	size_t ng = 0, cap = 0, root, i, moved = 0, depth;
	int64_t fds[DW_FDS], stream_fd[2] = { -1, 0 };
	int nfd = 0, ordered = 1;

	*why = "its end";
	for (j = from; j < lim; j++) {
		const struct rpl_op *op = &p->ops[t->ops[j]];
		const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
		int kind;

		if (!sc || rpl_op_child(op) >= 0 || rpl_op_wait_proc(op) >= 0 || op->n_aio ||
		    rpl_mp_taken_here(op) || (sc->flags & IOT_SCF_NOEXIT) || op->ev.nr == SYS_getdents64 ||
		    op->ev.nr == SYS_getdents) {
			*why = "a process start or end, a listing, async requests or mappings";
			break;
		}
		kind = names_by_path(op, sc);
		if (kind == 2) {
			*why = "a name given another way";
			break;
		}
		if (kind == 1 && ng && (op->ev.nr == SYS_rmdir ||
					(op->ev.nr == SYS_unlinkat && (op->ev.args[2] & AT_REMOVEDIR)))) {
			/* it needs the unlinks of its entries before it, which
			 * the listing's order puts after it (a shorter key):
			 * `tar --remove-files` unlinks a directory's last
			 * files and then the directory, named by their paths */
			*why = "a directory removed";
			break;
		}
		if (kind == 1 && (!ng || strcmp(op->ev.path, g[ng - 1].path) != 0)) {
			uint64_t h = iot_hash(op->ev.path, strlen(op->ev.path), 31) | 1;

			*why = "a file not listed here";
			if (!listed_rank(p, op->ev.path, strlen(op->ev.path), &r))
				break;
			*why = "a descriptor open across files";
			if (nfd)
				break;
			*why = "a file named again";
			if (rpl_map_get(&seen, h, &r) || op->needed)
				break;
			*why = "out of memory";
			if (rpl_map_put(&seen, h, 1) < 0)
				break;
			if (ng == cap) {
				struct dw_group *ng2;

				cap = cap ? 2 * cap : 64;
				ng2 = realloc(g, cap * sizeof(*g));
				if (!ng2)
					break;
				g = ng2;
			}
			g[ng++] = (struct dw_group){ .start = j, .path = op->ev.path };
		}
		if (op->needed) {
			/* stays where it is, the files' calls move around it
			 * (walk_reorder()) */
			*why = "a call another thread waits for";
			if (!ng || !fixed_op(op, sc, INT64_MIN, fds, nfd))
				break;
			if (push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
				*why = "out of memory";
				break;
			}
			continue;
		}
		if (!ng)
			break;
		if (reads_input(op, sc, fds, nfd)) {
			/* the program's input (the list it takes the names
			 * from): read at the same points of its calls, so
			 * that each read takes the same bytes */
			if (push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
				*why = "out of memory";
				break;
			}
			continue;
		}
		if (fixed_op(op, sc, INT64_MIN, fds, nfd)) {
			if (on_stream(t, op->ev.args[0], stream_fd)) {
				*why = "a pipe's or socket's call no other thread waits for";
				break;
			}
			/* a write (or any call) on a file none of the files
			 * opened: in its place too, as the reads of that file
			 * are (omindex writes its database between the files
			 * it indexes and reads it back: moved with a file, a
			 * write came after the read of its bytes, which then
			 * read nothing) */
			if (push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
				*why = "out of memory";
				break;
			}
			continue;
		}
		*why = "a descriptor open across files";
		if (entry_fds(op, sc, fds, &nfd) < 0)
			break;
	}
	end = j;
	if (nfd && ng) {
		/* the last file's descriptors are still open: the run ends
		 * before it */
		end = g[--ng].start;
		while (nfixed && fixed[nfixed - 1] >= end)
			nfixed--;
	}
	*endp = end > from ? end : from + 1;
	if (ng < 2) {
		*why = ng ? *why : "no file named by path";
		goto out;
	}
	/* the run's directory: the common part of the files' directories */
	root = rpl_last_name(g[0].path, strlen(g[0].path), &i);
	for (i = 1; i < ng; i++) {
		size_t k = 0;

		while (k < root && g[i].path[k] == g[0].path[k])
			k++;
		while (k > 0 && g[0].path[k - 1] != '/')
			k--;
		root = k;
	}
	/* room for the deepest file's names below it */
	for (i = 0, depth = 0; i < ng; i++) {
		size_t at = root, cs, ce, d = 0;

		while (next_comp(g[i].path, &at, &cs, &ce))
			d++;
		depth = d > depth ? d : depth;
	}
	*why = "a directory on the way not listed here";
	if (depth > DW_DEPTH)
		goto out;
	*why = "out of memory";
	keys = malloc(ng * depth * sizeof(*keys));
	if (!keys)
		goto out;
	*why = "a directory on the way not listed here";
	if (!path_keys(p, g, ng, root, depth, keys))
		goto out;
	for (i = 1; i < ng; i++)
		if (by_key(&g[i - 1], &g[i]) > 0)
			ordered = 0;
	*why = ordered ? "listed here as recorded" : "the order of the names or of the making";
	if (ordered || chosen_order(p, g, ng, root))
		goto out;
	if (groups_move(t, g, ng, end, fixed, nfixed, by_key, why) < 0)
		goto out;
	moved = ng;
out:
	free(g);
	free(fixed);
	free(keys);
	rpl_map_free(&seen);
	return moved;
}

void rpl_dirwalk_paths(struct rpl_thread *t, uint32_t pos)
{
	struct rpl_plan *p = t->plan;
	const struct rpl_op *op = &p->ops[t->ops[pos]];
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	const char *why;
	uint32_t r, end;
	size_t n;

	t->pw_from = pos + 1;
	if (!sc || names_by_path(op, sc) != 1 || op->needed ||
	    !listed_rank(p, op->ev.path, strlen(op->ev.path), &r))
		return;
	n = path_run(t, pos, &end, &why);
	t->pw_from = end;
	if (n) {
		t->walk_runs++;
		t->walk_run_moved += n;
		if (getenv("IOTAPE_REPLAY_WALKS"))
			iot_msg(IOT_MSG_INFO, "replay", "files named by path from %s: %zu moved",
				op->ev.path, n);
	} else if (getenv("IOTAPE_REPLAY_WALKS") && end > pos + 1) {
		const struct iot_syscall *at = end < t->n_ops ?
			iot_syscall_by_nr(p->ops[t->ops[end]].ev.nr) : NULL;

		iot_msg(IOT_MSG_INFO, "replay", "files named by path from %s kept: %s (%s)",
			op->ev.path, why, at ? at->name : "-");
	}
}

void rpl_dirwalk_opened(struct rpl_thread *t, int64_t fd, const char *path)
{
	struct rpl_dirwalk *w = t->dirwalk;
	size_t len, end, start;
	uint32_t r, prev = 0;

	if (!w || !path)
		return;
	len = strlen(path);
	start = rpl_last_name(path, len, &end);
	if (end <= start || !rpl_map_get(&w->rank, name_key(fd, path + start, end - start), &r))
		return;
	t->walk_opens++;
	if (rpl_map_get(&w->last, RPL_IK(fd), &prev) && r < prev)
		t->walk_back++;
	rpl_map_put(&w->last, RPL_IK(fd), r);
}

void rpl_dirwalk_free(struct rpl_thread *t)
{
	if (!t->dirwalk)
		return;
	rpl_map_free(&t->dirwalk->rank);
	rpl_map_free(&t->dirwalk->last);
	free(t->dirwalk);
	t->dirwalk = NULL;
}
