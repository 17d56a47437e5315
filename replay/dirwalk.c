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
 *
 * The groups' move, and what keeps a walk in its recorded order (the
 * program's choice of that order, the calls that stay in their places),
 * are dirwalk_move.c's, which the runs of files named by their paths
 * (dirwalk_paths.c) share.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hash.h"
#include "iotape.h"
#include "rpl.h"
#include "dirwalk_int.h"

#define DW_MAX_NAMES (1u << 20)
#define DW_LEAD 64			/* ops before its first entry's (tar looks its user up there) */

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
int rpl_next_name(const char *buf, int64_t len, int64_t *off, const char **name, size_t *n)
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

void rpl_dirwalk_listed(struct rpl_thread *t, int64_t fd, const char *dir, const char *buf,
			int64_t len)
{
	struct rpl_dirwalk *w = t->dirwalk;
	const char *name;
	int64_t off = 0;
	size_t n;

	if (dir && dir[0] == '/')
		rpl_publish(t->plan, dir, buf, len);
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
	while (w->next < DW_MAX_NAMES && rpl_next_name(buf, len, &off, &name, &n))
		if (rpl_map_put(&w->rank, name_key(fd, name, n), ++w->next) < 0)
			return;
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

static int by_rank(const void *a, const void *b)
{
	const struct dw_group *x = a, *y = b;

	if (x->pass != y->pass)
		return x->pass < y->pass ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
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

		if (op->ev.args[0] == dfd && rpl_dup_made(op) >= 0)
			return rpl_dup_made(op);
		if (sc && (sc->flags & IOT_SCF_RETFD) && op->ev.ret == dfd)
			break;		/* the listed one's opening */
	}
	return -1;
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
		if (!op->needed && ng && rpl_fixed_op(op, sc, wfd, fds, nfd) &&
		    rpl_on_stream(t, op->ev.args[0], stream_fd)) {
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
			if (!rpl_fixed_op(op, sc, wfd, fds, nfd))
				goto out;
			if (!ng)
				continue;	/* before the first entry: stays */
			if (rpl_push_fixed(&fixed, &nfixed, &capfixed, j) < 0)
				goto out;
			continue;
		}
		if (!ng && copy >= 0 && wfd == dfd && (sc->flags & IOT_SCF_CLOSE) && sc->nargs &&
		    op->ev.args[0] == dfd) {
			wfd = copy;	/* from here through the copy */
			continue;
		}
		copied = ng && sc->nargs && op->ev.args[0] == wfd && rpl_dup_made(op) >= 0;
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
		if (rpl_entry_fds(op, sc, fds, &nfd) < 0)
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
		if (rpl_chosen_order(p, g + i0, i - i0, dirlen))
			chosen = 1;
	}
	*why = ordered ? "listed here as recorded" : "the order of the names or of the making";
	if (ordered || chosen)
		goto out;
	if (rpl_groups_move(t, g, ng, end, fixed, nfixed, by_rank, why) < 0)
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
