/*
 * dirwalk_paths.c - files named by their paths in a run of one thread's
 * calls (find | xargs cat, sha256sum -c, zip, Go's build statting a
 * package's files), taken in the order any thread listed their
 * directories here (rpl_dirwalk_paths(), before each op): the names of
 * every listing kept for every thread in the plan's listed map, under
 * listed_lock (rpl_publish()); a run's groups, one a file, keyed by the
 * ranks of their names below the run's directory, a subdirectory's files
 * where it is listed.  Apart from dirwalk.c, whose walks follow one
 * descriptor of one thread, as the order every thread shares through
 * the plan.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "hash.h"
#include "iotape.h"
#include "rpl.h"
#include "dirwalk_int.h"

#define DW_LISTED_MAX (1u << 22)	/* names kept of every thread's listings */
#define DW_DEPTH 64			/* directories a name given by path is below its run's */

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
void rpl_publish(struct rpl_plan *p, const char *dir, const char *buf, int64_t len)
{
	uint64_t dh = dir_hash(dir, strlen(dir));
	const char *name;
	int64_t off = 0;
	size_t n;
	int any = 0;

	pthread_mutex_lock(&p->listed_lock);
	while (p->listed_next < DW_LISTED_MAX && rpl_next_name(buf, len, &off, &name, &n) &&
	       rpl_map_put(&p->listed, listed_key(dh, name, n), ++p->listed_next) == 0)
		any = 1;
	pthread_mutex_unlock(&p->listed_lock);
	if (any)
		atomic_store_explicit(&p->listed_any, 1, memory_order_relaxed);
}

void rpl_dirwalk_listed_free(struct rpl_plan *p)
{
	rpl_map_free(&p->listed);
	p->listed_next = 0;
	atomic_store(&p->listed_any, 0);
}

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

		for (at = root; rpl_next_comp(g[i].path, &at, &s, &e);) {
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
	if (!sc->nargs || sc->arg[0] != IOT_ARG_FD ||
	    !((sc->flags & IOT_SCF_READ) || op->ev.nr == SYS_lseek))
		return 0;
	return !rpl_op_on_fds(op, sc, INT64_MIN, fds, nfd);
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
			if (!ng || !rpl_fixed_op(op, sc, INT64_MIN, fds, nfd))
				break;
			if (rpl_push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
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
			if (rpl_push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
				*why = "out of memory";
				break;
			}
			continue;
		}
		if (rpl_fixed_op(op, sc, INT64_MIN, fds, nfd)) {
			if (rpl_on_stream(t, op->ev.args[0], stream_fd)) {
				*why = "a pipe's or socket's call no other thread waits for";
				break;
			}
			/* a write (or any call) on a file none of the files
			 * opened: in its place too, as the reads of that file
			 * are (omindex writes its database between the files
			 * it indexes and reads it back: moved with a file, a
			 * write came after the read of its bytes, which then
			 * read nothing) */
			if (rpl_push_fixed(&fixed, &nfixed, &capfixed, j) < 0) {
				*why = "out of memory";
				break;
			}
			continue;
		}
		*why = "a descriptor open across files";
		if (rpl_entry_fds(op, sc, fds, &nfd) < 0)
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

		while (rpl_next_comp(g[i].path, &at, &cs, &ce))
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
	if (ordered || rpl_chosen_order(p, g, ng, root))
		goto out;
	if (rpl_groups_move(t, g, ng, end, fixed, nfixed, by_key, why) < 0)
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
