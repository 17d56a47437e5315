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

void rpl_dirwalk_listed(struct rpl_thread *t, int64_t fd, const char *buf, int64_t len)
{
	struct rpl_dirwalk *w = t->dirwalk;
	int64_t off = 0;

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
	while (off + (int64_t)offsetof(struct dirent64, d_name) < len) {
		const struct dirent64 *d = (const struct dirent64 *)(buf + off);
		size_t n;

		if (d->d_reclen == 0 || off + d->d_reclen > len)
			break;
		n = strnlen(d->d_name, d->d_reclen - offsetof(struct dirent64, d_name));
		off += d->d_reclen;
		if ((n == 1 && d->d_name[0] == '.') ||
		    (n == 2 && d->d_name[0] == '.' && d->d_name[1] == '.'))
			continue;
		if (w->next >= DW_MAX_NAMES)
			return;
		if (rpl_map_put(&w->rank, name_key(fd, d->d_name, n), ++w->next) < 0)
			return;
	}
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

/* Did the program choose the recorded order of @g: that of the entries'
 * names, or of their making (cp sorts by inode number)?  An entry the
 * trace holds no state of: it cannot be told, so yes. */
static int chosen_order(const struct rpl_plan *p, const struct dw_group *g, size_t n)
{
	const struct iot_path_state *prev = NULL, *ps;
	int by_name = 1, by_made = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		ps = rpl_path_state(p, g[i].path);
		if (!ps)
			return 1;
		if (i > 0 && strcmp(g[i - 1].path, g[i].path) > 0)
			by_name = 0;
		if (prev && made_before(ps, prev))
			by_made = 0;
		prev = ps;
	}
	return by_name || by_made;
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
 * Has every op of [@base, @end) of thread @t that is to move (none
 * another thread waits for) what it waits for done already?  Then the
 * thread waits in that span only at the fixed ones, as recorded, and
 * the others' waits for it name the same ops: moving makes no circle.
 */
static int deps_met(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t base,
		    uint32_t end)
{
	uint32_t j, d;

	for (j = base; j < end; j++) {
		const struct rpl_op *op = &p->ops[t->ops[j]];

		if (op->needed)
			continue;
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
	uint32_t j, end = UINT32_MAX, *tmp = NULL, k, base;
	size_t ng = 0, cap = 0, dirlen = 0, i, i0, moved = 0;
	int64_t fds[DW_FDS], wfd = dfd, copy = walk_copy(t, from, dfd), nfd_made;
	uint32_t pending = UINT32_MAX, *fixed = NULL, nfixed = 0, capfixed = 0, f;
	int nfd = 0, a, ordered = 1, chosen = 0, copied;
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
		    op->n_mp || (sc->flags & IOT_SCF_NOEXIT)) {
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
			if (nfixed == capfixed) {
				uint32_t *nf;

				capfixed = capfixed ? 2 * capfixed : 64;
				nf = realloc(fixed, capfixed * sizeof(*fixed));
				if (!nf)
					goto out;
				fixed = nf;
			}
			fixed[nfixed++] = j;
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
							     op->ev.path };
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
		/* An entry's descriptors are its own: opened and closed in
		 * its group, so that the groups can change places. */
		*why = "a descriptor open across entries";
		for (a = 0; a < sc->nargs; a++)
			if (sc->arg[a] == IOT_ARG_FDPAIR)
				goto out;
		if (op->ev.nr == SYS_dup2 || op->ev.nr == SYS_dup3 || op->ev.nr == SYS_close_range)
			goto out;
		if ((sc->flags & IOT_SCF_CLOSE) && sc->nargs && sc->arg[0] == IOT_ARG_FD &&
		    !fd_closed(fds, &nfd, op->ev.args[0]))
			goto out;
		nfd_made = (sc->flags & IOT_SCF_RETFD) && op->ev.ret >= 0 ? op->ev.ret : dup_made(op);
		if (nfd_made >= 0) {
			if (nfd == DW_FDS)
				goto out;
			fds[nfd++] = nfd_made;
		}
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
		if (chosen_order(p, g + i0, i - i0))
			chosen = 1;
	}
	*why = ordered ? "listed here as recorded" : "the order of the names or of the making";
	if (ordered || chosen)
		goto out;
	for (i = 0; i < ng; i++)
		g[i].end = i + 1 < ng ? g[i + 1].start : end;
	base = g[0].start;	/* the groups sorted in place: each has its bounds */
	qsort(g, ng, sizeof(*g), by_rank);
	*why = "a call that waits for another thread, among ones another waits for";
	if (nfixed && !deps_met(p, t, base, end))
		goto out;
	tmp = malloc((end - base) * sizeof(*tmp));
	*why = "out of memory";
	if (!tmp)
		goto out;
	for (i = 0, k = 0; i < ng; i++) {
		memcpy(tmp + k, t->ops + g[i].start, (g[i].end - g[i].start) * sizeof(*tmp));
		k += g[i].end - g[i].start;
	}
	/* the entries' calls in their new order into the places that are
	 * not a fixed op's (tmp holds every op of [base, end) once) */
	for (j = base, i = 0, f = 0; i < k; i++) {
		uint32_t op = tmp[i];

		if (p->ops[op].needed)
			continue;	/* a fixed one: in [base, end) only those wait */
		while (f < nfixed && fixed[f] == j) {
			j++;
			f++;
		}
		t->ops[j++] = op;
	}
	moved = ng;
out:
	free(g);
	free(tmp);
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
