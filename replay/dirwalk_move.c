/*
 * dirwalk_move.c - what the two reorders of a thread's calls share, a
 * walk of a listed directory (dirwalk.c) and a run of files named by
 * their paths (dirwalk_paths.c), once each has found its groups: whether
 * the recorded order was the program's choice (of the names, of the
 * paths as bytes, or of the entries' making: rpl_chosen_order()), which
 * calls stay in their places while the groups move around them
 * (rpl_fixed_op(), rpl_push_fixed()), the descriptors each group opens and
 * closes (rpl_entry_fds()), whether every call moved has what it waits for
 * done (deps_met()), and the move itself (rpl_groups_move()).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "iotape.h"
#include "rpl.h"
#include "dirwalk_int.h"

/* The entries' making, as their order: those that were there first, by
 * inode number, then those the workload made, by when it made them. */
static int made_before(const struct iot_path_state *a, const struct iot_path_state *b)
{
	if (!a->type != !b->type)
		return a->type != 0;
	return a->type ? a->ino < b->ino : a->t_ns < b->t_ns;
}

/* The next name of @path after byte @*at: [@*s, @*e).  0: none. */
int rpl_next_comp(const char *path, size_t *at, size_t *s, size_t *e)
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
		int na = rpl_next_comp(a, &ia, as, ae), nb = rpl_next_comp(b, &ib, bs, be);

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
int rpl_chosen_order(const struct rpl_plan *p, const struct dw_group *g, size_t ng,
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
int64_t rpl_dup_made(const struct rpl_op *op)
{
	if (op->ev.ret < 0)
		return -1;
	if (op->ev.nr == SYS_dup ||
	    (op->ev.nr == SYS_fcntl && (op->ev.args[1] == F_DUPFD || op->ev.args[1] == F_DUPFD_CLOEXEC)))
		return op->ev.ret;
	return -1;
}

/* Add position @j to the fixed ops. */
int rpl_push_fixed(uint32_t **fixed, uint32_t *n, uint32_t *cap, uint32_t j)
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
int rpl_entry_fds(const struct rpl_op *op, const struct iot_syscall *sc, int64_t *fds,
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
	made = (sc->flags & IOT_SCF_RETFD) && op->ev.ret >= 0 ? op->ev.ret : rpl_dup_made(op);
	if (made >= 0) {
		if (*nfd == DW_FDS)
			return -1;
		fds[(*nfd)++] = made;
	}
	return 0;
}

/* Does @op name, in any of its descriptor arguments, the walk's @wfd or
 * one of the @nfd descriptors @fds an entry opened?  Not the first one
 * alone: sendfile(archive, file) (busybox tar c) takes the entry's file
 * second (as copy_file_range and splice do a file they write into), and
 * kept in its place as a call on the archive, the copy read another
 * entry's file (40 files: 20 mismatches). */
int rpl_op_on_fds(const struct rpl_op *op, const struct iot_syscall *sc, int64_t wfd,
		  const int64_t *fds, int nfd)
{
	int a, k;

	for (a = 0; a < sc->nargs && a < IOT_MAX_ARGS; a++) {
		if (sc->arg[a] != IOT_ARG_FD)
			continue;
		if (op->ev.args[a] == wfd)
			return 1;
		for (k = 0; k < nfd; k++)
			if (fds[k] == op->ev.args[a])
				return 1;
	}
	return 0;
}

/* May @op, which another thread waits for, stay in its place while the
 * entries' calls move around it?  One on a descriptor of none of them
 * (not the walk's @wfd, none of the @nfd the entry opened: in no
 * descriptor argument), which makes or ends none. */
int rpl_fixed_op(const struct rpl_op *op, const struct iot_syscall *sc, int64_t wfd,
		    const int64_t *fds, int nfd)
{
	if (!sc->nargs || sc->arg[0] != IOT_ARG_FD ||
	    (sc->flags & (IOT_SCF_RETFD | IOT_SCF_CLOSE)) || rpl_dup_made(op) >= 0)
		return 0;
	return !rpl_op_on_fds(op, sc, wfd, fds, nfd);
}

/* Is recorded descriptor @fd of @t's process a pipe or a socket here?
 * @cache : the last descriptor asked (*cache, cache[1] its answer). */
int rpl_on_stream(const struct rpl_thread *t, int64_t fd, int64_t *cache)
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

/*
 * Put groups @g (@ng of them, in the recorded order) of thread @t's ops
 * [g[0].start, @end) in the order @cmp gives, each group's ops in their
 * own order, into the places that are not one of the @nfixed fixed ops'
 * (positions, ascending: calls another thread waits for, which stay).
 * @return : 0, or -1 with @*why (then nothing moved).
 */
int rpl_groups_move(struct rpl_thread *t, struct dw_group *g, size_t ng, uint32_t end,
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
