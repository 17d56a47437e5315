/*
 * plan.c - from a trace to what the executor runs: ops sorted by entry
 * time, one op list per recorded thread, the processes, and the
 * cross-thread dependencies that keep resource order (ROOT, SOSP'13).
 *
 * Resource order: ops on the same path, the same parent directory (for
 * ops that create or remove names), or the same open file (recorded
 * process + fd + open generation, tracked through dup and fork) keep the
 * order they *completed* in when recorded.  Each op depends on the
 * previous op that changed each of its resources; an op that changes a
 * path or a directory's names also on the ops that only looked at it
 * since (deps.c says why).  Ordering by completion, not
 * entry, matters: a blocking read that entered before the write that
 * fed it must still come after it, and since every dependency and every
 * earlier op of the same thread completed earlier in the recording, a
 * consistent trace cannot produce a cycle (hostile ones are handled by
 * the executor's deadlock breaker).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "rpl.h"

/* ---- reading ---- */

static const char *dup_str(struct iot_arena *a, const char *s, uint32_t n)
{
	return s ? iot_arena_strndup(a, s, n) : NULL;
}

static int copy_process(struct rpl_plan *p, struct iot_process *dst,
			const struct iot_process *src)
{
	char **argv = NULL;
	uint32_t *lens = NULL;
	uint32_t i;

	*dst = *src;
	if (src->argc) {
		argv = iot_arena_alloc(p->arena, src->argc * sizeof(*argv));
		lens = iot_arena_alloc(p->arena, src->argc * sizeof(*lens));
		if (!argv || !lens)
			return -ENOMEM;
		for (i = 0; i < src->argc; i++) {
			lens[i] = src->argv_len ? src->argv_len[i] : strlen(src->argv[i]);
			argv[i] = iot_arena_strndup(p->arena, src->argv[i], lens[i]);
		}
	}
	dst->argv = (const char *const *)argv;
	dst->argv_len = lens;
	dst->cwd = dup_str(p->arena, src->cwd, src->cwd_len);
	dst->exe = dup_str(p->arena, src->exe, src->exe_len);
	return 0;
}

static int read_trace(struct rpl_plan *p)
{
	const struct iot_summary *s = iot_reader_summary(p->rd);
	struct rpl_intern paths = { 0 };
	struct iot_item it;
	int err = 0, r;

	/* The index says how many events there are: one array of that size,
	 * not one that doubled past it (a quarter of the plan, on average). */
	if (s->events && s->events < UINT32_MAX - 1) {
		p->ops = malloc((size_t)s->events * sizeof(*p->ops));
		if (p->ops)
			p->cap_ops = (size_t)s->events;
	}
	if (s->path_states && s->path_states < UINT32_MAX) {
		p->ps = malloc((size_t)s->path_states * sizeof(*p->ps));
		if (p->ps)
			p->cap_ps = (size_t)s->path_states;
	}
	while ((r = iot_reader_next(p->rd, &it)) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			struct rpl_op *op;

			RPL_GROW(p->ops, p->n_ops, p->cap_ops);
			op = &p->ops[p->n_ops];
			memset(op, 0, sizeof(*op));
			rpl_ev_pack(&op->ev, &it.u.ev);
			op->ev.path = rpl_intern(&paths, p->arena, it.u.ev.path, it.u.ev.path_len);
			op->ev.path2 = rpl_intern(&paths, p->arena, it.u.ev.path2,
						  it.u.ev.path2_len);
			if ((it.u.ev.path && !op->ev.path) || (it.u.ev.path2 && !op->ev.path2)) {
				err = -ENOMEM;
				goto out;
			}
			if (op->ev.nargs > IOT_MAX_ARGS)
				op->ev.nargs = IOT_MAX_ARGS;
			op->seq = (uint32_t)p->n_ops;
			op->child = -1;
			op->wait_proc = -1;
			p->n_ops++;
		} else if (it.kind == IOT_ITEM_PATH_STATE) {
			struct iot_path_state *ps;

			/* Absent states are kept: a path first seen absent was
			 * made by the workload, whatever later states say. */
			if (!it.u.ps.path)
				continue;
			RPL_GROW(p->ps, p->n_ps, p->cap_ps);
			ps = &p->ps[p->n_ps++];
			*ps = it.u.ps;
			ps->path = rpl_intern(&paths, p->arena, it.u.ps.path, it.u.ps.path_len);
			ps->target = dup_str(p->arena, it.u.ps.target, it.u.ps.target_len);
			if (!ps->path) {
				err = -ENOMEM;
				goto out;
			}
		} else if (it.kind == IOT_ITEM_AIO) {
			if ((err = rpl_aio_collect(p, &it.u.aio)))
				goto out;
		} else if (it.kind == IOT_ITEM_MPAGES) {
			if ((err = rpl_mpages_collect(p, &it.u.mp)))
				goto out;
		} else if (it.kind == IOT_ITEM_PROCESS) {
			RPL_GROW(p->precs, p->n_precs, p->cap_precs);
			err = copy_process(p, &p->precs[p->n_precs++], &it.u.proc);
			if (err)
				goto out;
		}
		if (p->n_ops >= UINT32_MAX - 1) {
			err = -E2BIG;
			goto out;
		}
	}
	s = iot_reader_summary(p->rd);
	p->damaged = iot_damage_text(p->why, sizeof(p->why), s,
				     iot_time_base(iot_reader_header(p->rd), s));
	if (r < 0 && !p->damaged) {
		/* Decoding failed mid-file: keep what was read, like damage. */
		p->damaged = 1;
		snprintf(p->why, sizeof(p->why), "%s after %zu events",
			 iot_strerror(r), p->n_ops);
	}
out:
	rpl_intern_free(&paths);
	return err;
}

static int cmp_op_enter(const void *a, const void *b)
{
	const struct rpl_op *x = a, *y = b;

	if (x->ev.t_enter != y->ev.t_enter)
		return x->ev.t_enter < y->ev.t_enter ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An op and when its effect counted, side by side: sorting these, not
 * indices that each comparison follows into a 192-byte op, keeps the sort
 * in the cache (it was an eighth of the plan's time). */
struct ord {
	int64_t t;
	uint32_t i;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort the ops by entry time (file order among equal times): the times
 * and indices sorted side by side, then each op moved once, cycle by
 * cycle, to its place, not through a merge sort's copies of 192-byte ops
 * (more than a tenth of the plan's time). */
static int sort_ops(struct rpl_plan *p)
{
	struct ord *o = malloc(p->n_ops * sizeof(*o));
	struct rpl_op tmp;
	size_t k;

	if (!o)
		return -ENOMEM;
	for (k = 0; k < p->n_ops; k++) {
		o[k].t = p->ops[k].ev.t_enter;
		o[k].i = p->ops[k].seq;		/* == k: read in file order */
	}
	qsort(o, p->n_ops, sizeof(*o), cmp_ord);
	for (k = 0; k < p->n_ops; k++) {
		size_t j = k;

		if (o[k].i == k)
			continue;
		tmp = p->ops[k];
		for (;;) {
			size_t src = o[j].i;

			o[j].i = (uint32_t)j;	/* placed */
			if (src == k) {
				p->ops[j] = tmp;
				break;
			}
			p->ops[j] = p->ops[src];
			j = src;
		}
	}
	free(o);
	return 0;
}

static int ops_sorted(const struct rpl_plan *p)
{
	size_t i;

	for (i = 1; i < p->n_ops; i++)
		if (cmp_op_enter(&p->ops[i - 1], &p->ops[i]) > 0)
			return 0;
	return 1;
}

static int cmp_ps(const void *a, const void *b)
{
	const struct iot_path_state *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	/* a state taken when a call named the path before one a listing
	 * gave (the same file by two names) */
	if ((x->flags ^ y->flags) & IOT_PS_LISTED)
		return x->flags & IOT_PS_LISTED ? 1 : -1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* ---- threads and processes ---- */

static int is_spawn(int nr)
{
	return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork;
}

/* @snap : the parent's table as the fork copied it, or NULL (then its
 * table as it is now). */
static int new_proc(struct rpl_plan *p, int32_t pid, int32_t parent, int share,
		    struct rpl_fdtab *snap)
{
	struct rpl_proc *pr;
	int err = 0;

	RPL_GROW(p->procs, p->n_procs, p->cap_procs);
	pr = &p->procs[p->n_procs];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->parent = parent;
	pr->share_files = share;
	if (parent >= 0 && !share)
		pr->tab = snap ? snap : rpl_fdtab_copy(p->procs[parent].tab);
	else if (parent >= 0)
		pr->tab = rpl_fdtab_ref(p->procs[parent].tab);
	else
		pr->tab = rpl_fdtab_new(0);
	if (!pr->tab)
		return -ENOMEM;
	err = (int)p->n_procs++;
out:
	return err;
}

struct planner {
	struct rpl_map tid2thread, pid2proc, spawn;	/* spawn: child tid -> op */
	struct rpl_map files;			/* child tid -> clone flags (Process records) */
	struct rpl_map pipes;			/* resource ids of pipes */
	/* A forked child's table is its parent's at the fork, not at the
	 * child's first op: the parent goes on (a shell closes its end of
	 * the pipe the child writes to) before the child's first call. */
	struct rpl_map snap_of;			/* child tid -> index in snap */
	struct rpl_fdtab **snap;
	size_t n_snap, cap_snap;
	uint32_t next_res;
};

/* Clone flags of the spawn op @s of child @tid. */
static uint64_t spawn_flags(const struct planner *pl, const struct rpl_op *s, int32_t tid)
{
	uint64_t flags = 0;
	uint32_t f;

	if (s->ev.nr == SYS_clone || s->ev.nr == SYS_clone3)
		flags = (uint64_t)s->ev.args[0];
	if (rpl_map_get(&pl->files, RPL_IK(tid), &f))
		flags = f;
	return flags;
}

/* The thread op @i belongs to, created on its first op. */
static int thread_of(struct rpl_plan *p, struct planner *pl, uint32_t i)
{
	struct rpl_op *op = &p->ops[i];
	struct rpl_thread *t;
	uint32_t ti, spawn, pi;
	int32_t proc = -1;
	int err = 0;

	if (rpl_map_get(&pl->tid2thread, RPL_IK(op->ev.tid), &ti) && !p->threads[ti].ended &&
	    !p->procs[p->threads[ti].proc].ended)
		return (int)ti;
	RPL_GROW(p->threads, p->n_threads, p->cap_threads);
	t = &p->threads[p->n_threads];
	memset(t, 0, sizeof(*t));
	t->tid = op->ev.tid;
	t->pid = op->ev.pid;
	t->spawn_op = -1;
	if (rpl_map_get(&pl->spawn, RPL_IK(op->ev.tid), &spawn) && p->ops[spawn].child < 0) {
		const struct rpl_op *s = &p->ops[spawn];
		uint32_t sproc = p->threads[s->thread].proc;
		uint64_t flags = spawn_flags(pl, s, op->ev.tid);
		struct rpl_fdtab *snap = NULL;
		uint32_t k;

		if (rpl_map_get(&pl->snap_of, RPL_IK(op->ev.tid), &k) && k < pl->n_snap) {
			snap = pl->snap[k];
			pl->snap[k] = NULL;
		}
		t->spawn_op = (int32_t)spawn;
		if ((flags & 0x00010000 /* CLONE_THREAD */) || op->ev.pid == s->ev.pid) {
			proc = (int32_t)sproc;
			rpl_fdtab_unref(snap);
		} else {
			proc = new_proc(p, op->ev.pid, (int32_t)sproc,
					(flags & 0x00000400 /* CLONE_FILES */) != 0, snap);
			if ((flags & 0x00000400) && snap)
				rpl_fdtab_unref(snap);
		}
		p->ops[spawn].child = (int32_t)p->n_threads;
	} else if (rpl_map_get(&pl->pid2proc, RPL_IK(op->ev.pid), &pi) && !p->procs[pi].ended) {
		proc = (int32_t)pi;
	} else {
		proc = new_proc(p, op->ev.pid, -1, 0, NULL);
	}
	if (proc < 0)
		return proc;
	t = &p->threads[p->n_threads];	/* new_proc does not move threads */
	t->proc = (uint32_t)proc;
	p->procs[proc].n_threads++;
	if (rpl_map_put(&pl->pid2proc, RPL_IK(op->ev.pid), (uint32_t)proc) < 0 ||
	    rpl_map_put(&pl->tid2thread, RPL_IK(op->ev.tid), (uint32_t)p->n_threads) < 0)
		return -ENOMEM;
	err = (int)p->n_threads++;
out:
	return err;
}

static uint64_t key_norm(uint64_t k)
{
	k &= ~RPL_KEY_HOW;
	return k ? k : 4;
}

static uint64_t key_path(const char *s, size_t n)
{
	while (n > 1 && s[n - 1] == '/')
		n--;
	return key_norm(iot_hash(s, n, 1));
}

static uint64_t key_parent(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	while (n > 0 && s[n - 1] != '/')
		n--;
	return key_path(s, n ? n : 1);
}

static uint64_t key_res(uint32_t res)
{
	return key_norm(iot_hash(&res, sizeof(res), 2));
}

/* A descriptor number in a table: in a table several threads share,
 * the ops that make, use and close fd N keep their recorded order, or a
 * thread could open its N before a sibling's close of the N before
 * (rel_threads: four threads each opening, writing and closing files,
 * wrote one file's data into another's). */
static uint64_t key_slot(const struct rpl_fdtab *tab, int64_t fd)
{
	struct { uintptr_t t; int64_t fd; } k = { (uintptr_t)tab, fd };

	return key_norm(iot_hash(&k, sizeof(k), 5));
}

/* Does row @sc put data into a descriptor or close it (what a pipe's
 * reader waits for)? */
static int feeds_pipe(const struct iot_syscall *sc)
{
	return sc && (sc->flags & (IOT_SCF_PIPE | IOT_SCF_CLOSE));
}

static int has_key(const uint64_t *keys, int n, uint64_t k)
{
	while (n-- > 0)
		if (keys[n] == k)
			return 1;
	return 0;
}

/* The files an op's async requests (io_submit, io_uring_enter) and its
 * mapped pages (munmap, msync, exit) touch are its resources too: a
 * request keeps its place among the other uses of its open file or
 * path.  @return : the keys now in @keys (@n before). */
static int async_keys(const struct rpl_plan *p, struct rpl_fdtab *tab,
		      const struct rpl_op *op, uint64_t *keys, int n)
{
	uint32_t i;

	for (i = 0; i < op->n_aio && n < RPL_MAXRES; i++) {
		const struct iot_aio *x = &p->aio[op->aio_off + i].a;
		struct rpl_fd fe;
		uint64_t k = 0;

		if (x->kind != IOT_AIO_SUBMIT)
			continue;
		if (x->api == IOT_AIO_URING && x->path &&
		    (x->opcode == 18 || x->opcode == 21 || (x->opcode >= 35 && x->opcode <= 37)))
			k = key_path(x->path, x->path_len);
		else if (!(x->api == IOT_AIO_URING && (x->flags & 1 /* IOSQE_FIXED_FILE */)) &&
			 rpl_fdtab_get(tab, x->fd, &fe) == 0 && fe.res)
			k = key_res(fe.res);
		if (k && !has_key(keys, n, k))
			keys[n++] = k;
	}
	for (i = 0; i < op->n_mp && n < RPL_MAXRES; i++) {
		const struct iot_mpages *m = &p->mp[op->mp_off + i];
		uint64_t k = m->path ? key_path(m->path, m->path_len) : 0;

		if (k && !has_key(keys, n, k))
			keys[n++] = k;
	}
	return n;
}

/* The name the recorder gives a descriptor that is no file (a pipe, a
 * socket): its order is the descriptor's (pipe_key()), not a path's. */
static int not_a_path(const char *s)
{
	return strncmp(s, "pipe:[", 6) == 0 || strncmp(s, "socket:[", 8) == 0 ||
	       strncmp(s, "anon_inode:", 11) == 0;
}

/* What pl->pipes holds for a pipe's resource: one for both ends, or one
 * per end of a socket pair, each the pipe its end writes. */
enum { PIPE_ONE = 1, PIPE_SOCK0, PIPE_SOCK1 };

/* The pipe a call of row @sc on the end with resource @res (@v from
 * pl->pipes) moves data through: a socket pair's end reads what the other
 * end wrote. */
static uint32_t pipe_way(const struct iot_syscall *sc, uint32_t res, uint32_t v)
{
	if (v == PIPE_ONE || !sc || !(sc->flags & IOT_SCF_READ) || (sc->flags & IOT_SCF_PIPE))
		return res;
	return v == PIPE_SOCK0 ? res + 1 : res - 1;
}

/* How @op (row @sc) uses pipe @res, as its key (0: its data's order does
 * not depend on it: fstat, fcntl, a call that moved nothing): a read; a
 * write of data, or one that found the read end closed (EPIPE: it follows
 * that close, or replayed first it writes where it failed); or another
 * feed, a close, a splice (see deps.c). */
static uint64_t pipe_key(const struct iot_syscall *sc, const struct rpl_op *op, uint32_t res)
{
	uint64_t k = key_res(res);

	if (!sc)
		return 0;
	if ((sc->flags & IOT_SCF_READ) && !(sc->flags & IOT_SCF_PIPE))
		return op->ev.ret >= 0 ? k | RPL_KEY_PIPE | RPL_KEY_LOOK : 0;
	if ((sc->flags & IOT_SCF_PIPE) && (sc->flags & IOT_SCF_COUNT) &&
	    !(sc->flags & IOT_SCF_READ))
		return op->ev.ret > 0 || op->ev.ret == -EPIPE ? k | RPL_KEY_PIPE : 0;
	return feeds_pipe(sc) ? k | RPL_KEY_PIPE : 0;
}

/* Does @op create, remove or rename a name (so it orders on the parent)?
 * An open does with O_CREAT only (openat2's how holds its flags). */
static int changes_names(const struct iot_syscall *sc, const struct rpl_op *op)
{
	int i;

	if (!sc || !(sc->flags & IOT_SCF_NAMES))
		return 0;
	i = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);
	if (i < 0)
		i = iot_syscall_arg(sc, IOT_ARG_OPENHOW);
	return i < 0 || (op->ev.args[i] & O_CREAT) != 0;
}

/*
 * Does @op leave its path, and the names of its parent, as it found them?
 * A look-up, a read, a sync, a close, an exec (IOT_SCF_LOOK), an open
 * that neither creates nor truncates; and every call that failed: a
 * failed call changed nothing (a mkdir of a directory that is there, an
 * unlink of a name that is not).  Such an op need only follow the last
 * op that changed the path, not every op that looked at it before.
 */
static int only_looks(const struct iot_syscall *sc, const struct rpl_op *op)
{
	int i;

	if (op->ev.ret < 0 || (sc && (sc->flags & IOT_SCF_LOOK)))
		return 1;
	if (!sc || !(sc->flags & IOT_SCF_RETFD) || !(sc->flags & IOT_SCF_NAMES))
		return 0;
	/* an open: one that neither creates nor truncates only looks */
	i = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);
	if (i < 0)
		i = iot_syscall_arg(sc, IOT_ARG_OPENHOW);
	return i >= 0 && !(op->ev.args[i] & (O_CREAT | O_TRUNC));
}

/* The keys of the pipes open in @tab (only close-on-exec ones with
 * @cloexec), each once where its two ends sit side by side, at most @max
 * into @keys.  @return : how many. */
static int pipe_keys(const struct planner *pl, const struct rpl_fdtab *tab, int cloexec,
		     uint64_t *keys, int max)
{
	uint32_t i, v, prev = 0;
	int n = 0;

	for (i = 0; i < tab->n && n < max; i++)
		if (tab->v[i].state == RPL_FD_LIVE && (!cloexec || tab->v[i].cloexec) &&
		    tab->v[i].res != prev && rpl_map_get(&pl->pipes, RPL_IK(tab->v[i].res), &v)) {
			keys[n++] = key_res(tab->v[i].res) | RPL_KEY_PIPE;
			prev = tab->v[i].res;
		}
	return n;
}

/* Follow the descriptors through the plan tables; collect the op's
 * resource keys into @keys. @return : how many. */
static int plan_fds(struct rpl_plan *p, struct planner *pl, struct rpl_op *op,
		    uint64_t *keys)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	struct rpl_fdtab *tab = p->procs[p->threads[op->thread].proc].tab;
	const struct rpl_ev *ev = &op->ev;
	const struct rpl_proc *pr = &p->procs[p->threads[op->thread].proc];
	int shared = pr->n_threads > 1 || tab->refs > 1;
	uint64_t look = only_looks(sc, op) ? RPL_KEY_LOOK : 0;
	struct rpl_fd e = { 0 };
	int n = 0, nfd = 0, pair = sc ? iot_syscall_arg(sc, IOT_ARG_FDPAIR) : -1;
	uint32_t a;

#define ADD(k) do { if (n < RPL_MAXRES) keys[n++] = (k); } while (0)
	if (ev->path && !not_a_path(ev->path)) {
		ADD(key_path(ev->path, ev->path_len) | look);
		if (changes_names(sc, op))
			ADD(key_parent(ev->path) | look);
	}
	/* a second name (rename's and link's target) is made too */
	if (ev->path2 && iot_syscall_arg(sc, IOT_ARG_PATH2) >= 0) {
		ADD(key_path(ev->path2, ev->path2_len) | look);
		ADD(key_parent(ev->path2) | look);
	}
	for (a = 0; sc && a < sc->nargs && a < ev->nargs && nfd < 2; a++) {
		struct rpl_fd fe;
		uint32_t v;

		if (sc->arg[a] != IOT_ARG_FD)
			continue;
		nfd++;
		if (rpl_fdtab_get(tab, (long)ev->args[a], &fe) == 0) {
			if (!rpl_map_get(&pl->pipes, RPL_IK(fe.res), &v)) {
				ADD(key_res(fe.res));
			} else {
				uint64_t pk = pipe_key(sc, op, pipe_way(sc, fe.res, v));

				if (pk)
					ADD(pk);
				if (feeds_pipe(sc))
					op->rflags |= RPL_OPF_ORDER_ENTER;
			}
		}
		if (shared && ev->args[a] >= 0)
			ADD(key_slot(tab, ev->args[a]));
	}
	n = async_keys(p, tab, op, keys, n);
	if (ev->ret < 0)
		return n;
	if (shared && sc && ((sc->flags & IOT_SCF_RETFD) ||
			     (ev->nr == SYS_fcntl && (ev->args[1] == F_DUPFD ||
						      ev->args[1] == F_DUPFD_CLOEXEC))))
		ADD(key_slot(tab, ev->ret));
	if (shared && pair >= 0) {
		ADD(key_slot(tab, (int32_t)(ev->args[pair] & 0xffffffff)));
		ADD(key_slot(tab, (int32_t)((uint64_t)ev->args[pair] >> 32)));
	}
	switch (ev->nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
		int flags = ev->nr == SYS_open ? (int)ev->args[1] :
			    ev->nr == SYS_creat ? 0 : (int)ev->args[2];

		e.state = RPL_FD_LIVE;
		e.res = ++pl->next_res;
		e.cloexec = (flags & O_CLOEXEC) != 0;
		rpl_fdtab_set(tab, (long)ev->ret, &e);
		ADD(key_res(e.res));	/* later uses follow the open */
		break;
	}
	case SYS_dup: case SYS_dup2:
		rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret, 0);
		break;
	case SYS_dup3:
		rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret,
			      (ev->args[2] & O_CLOEXEC) != 0);
		break;
	case SYS_fcntl:
		if (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC)
			rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret,
				      ev->args[1] == F_DUPFD_CLOEXEC);
		else if (ev->args[1] == F_SETFD)
			rpl_fdtab_set_cloexec(tab, (long)ev->args[0], ev->args[2] & FD_CLOEXEC);
		break;
	case SYS_pipe: case SYS_pipe2: case SYS_socketpair: {
		/* a socket pair is two pipes: each end writes one, reads
		 * the other's (pipe_way()); SOCK_CLOEXEC is O_CLOEXEC */
		int sock = ev->nr == SYS_socketpair;

		e.state = RPL_FD_LIVE;
		e.res = ++pl->next_res;
		e.cloexec = ev->nr != SYS_pipe && (ev->args[1] & O_CLOEXEC);
		rpl_fdtab_set(tab, (long)(int32_t)(ev->args[pair] & 0xffffffff), &e);
		ADD(key_res(e.res));
		if (rpl_map_put(&pl->pipes, RPL_IK(e.res), sock ? PIPE_SOCK0 : PIPE_ONE) < 0)
			return -ENOMEM;
		if (sock) {
			e.res = ++pl->next_res;
			ADD(key_res(e.res));
			if (rpl_map_put(&pl->pipes, RPL_IK(e.res), PIPE_SOCK1) < 0)
				return -ENOMEM;
		}
		rpl_fdtab_set(tab, (long)(int32_t)((uint64_t)ev->args[pair] >> 32), &e);
		break;
	}
	case SYS_close:
		rpl_fdtab_close(tab, (long)ev->args[0]);
		break;
	case SYS_close_range:
		rpl_fdtab_close_range(tab, (unsigned long)ev->args[0],
				      (unsigned long)ev->args[1], (unsigned)ev->args[2]);
		break;
	case SYS_execve: case SYS_execveat: {
		/* The pipes it closes (close-on-exec) are closed during the
		 * call: a reader that saw end of file may have returned
		 * before the exec did, so the exec counts from its entry. */
		int k = pipe_keys(pl, tab, 1, keys + n, RPL_MAXRES - n);

		n += k;
		if (k)
			op->rflags |= RPL_OPF_ORDER_ENTER;
		rpl_fdtab_exec(tab);
		break;
	}
	case SYS_exit: case SYS_exit_group: {
		/* Its descriptors close as it ends: a reader of one of its
		 * pipes that saw end of file waits for the end (ops_proc.c
		 * h_exit() closes them then). */
		if (tab->refs == 1 && (ev->nr == SYS_exit_group || pr->n_threads == 1))
			n += pipe_keys(pl, tab, 0, keys + n, RPL_MAXRES - n);
		break;
	}
	}
	return n;
#undef ADD
}

static int plan_threads(struct rpl_plan *p, struct rpl_deps *deps)
{
	uint64_t keys[RPL_MAXRES];
	struct planner pl = { 0 };
	int64_t base = p->n_ops ? p->ops[0].ev.t_enter : 0;
	size_t i, j;
	int err = 0;

	for (i = 0; i < p->n_precs; i++) {
		const struct iot_process *pr = &p->precs[i];

		if (pr->kind == IOT_PROC_FORK || pr->kind == IOT_PROC_THREAD) {
			uint64_t f = pr->clone_flags;

			if (pr->kind == IOT_PROC_THREAD)
				f |= 0x00010000 | 0x00000400;
			if (rpl_map_put(&pl.files, RPL_IK(pr->tid), (uint32_t)f) < 0)
				goto nomem;
		}
	}
	if (p->hdr && p->hdr->start_ns > 0 && p->hdr->start_ns <= base)
		base = p->hdr->start_ns;
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_op *op = &p->ops[i];
		struct rpl_thread *t;
		int ti = thread_of(p, &pl, (uint32_t)i);
		int64_t prev_end, gap;

		if (ti < 0) {
			err = ti;
			goto out;
		}
		op->thread = (uint32_t)ti;
		t = &p->threads[ti];
		if (t->n_ops)
			prev_end = rpl_op_end(&p->ops[t->ops[t->n_ops - 1]]);
		else if (t->spawn_op >= 0)
			prev_end = rpl_op_end(&p->ops[t->spawn_op]);
		else
			prev_end = base;
		gap = iot_ns_sub(op->ev.t_enter, prev_end);
		op->think_ns = gap > 0 ? gap : 0;	/* raw: see think_times() */
		RPL_GROW(t->ops, t->n_ops, t->cap_ops);
		op->pos = (uint32_t)t->n_ops;
		t->ops[t->n_ops++] = (uint32_t)i;
		if ((op->ev.flags & IOT_EV_UNFINISHED) &&
		    !(iot_syscall_by_nr(op->ev.nr) &&
		      (iot_syscall_by_nr(op->ev.nr)->flags & IOT_SCF_NOEXIT)))
			op->skip = RPL_SKIP_UNFINISHED;
		for (j = 0; j < RPL_MAXRES; j++)
			keys[j] = 0;
		if (!op->skip && plan_fds(p, &pl, op, keys) < 0)
			goto nomem;
		if ((err = rpl_deps_add(p, deps, (uint32_t)i, keys)) < 0)
			goto out;
		if (is_spawn(op->ev.nr) && op->ev.ret > 0 && !op->skip) {
			uint32_t old;

			/* A reused tid starts a new thread from here on. */
			if (rpl_map_get(&pl.tid2thread, RPL_IK(op->ev.ret), &old))
				p->threads[old].ended = 1;
			if (rpl_map_put(&pl.spawn, RPL_IK(op->ev.ret), (uint32_t)i) < 0)
				goto nomem;
			if (!(spawn_flags(&pl, op, (int32_t)op->ev.ret) &
			      (0x00010000 /* CLONE_THREAD */ | 0x00000400 /* CLONE_FILES */))) {
				struct rpl_fdtab *c = rpl_fdtab_copy(p->procs[t->proc].tab);

				if (!c)
					goto nomem;
				if (pl.n_snap == pl.cap_snap) {
					size_t nc = pl.cap_snap ? pl.cap_snap * 2 : 64;
					struct rpl_fdtab **v = realloc(pl.snap, nc * sizeof(*v));

					if (!v) {
						rpl_fdtab_unref(c);
						goto nomem;
					}
					pl.snap = v;
					pl.cap_snap = nc;
				}
				pl.snap[pl.n_snap] = c;
				if (rpl_map_put(&pl.snap_of, RPL_IK(op->ev.ret), (uint32_t)pl.n_snap++) < 0)
					goto nomem;
			}
		} else if (op->ev.nr == SYS_exit) {
			t->ended = 1;
		} else if (op->ev.nr == SYS_exit_group) {
			t->ended = 1;
			p->procs[t->proc].ended = 1;
		} else if (op->ev.nr == SYS_wait4 && op->ev.ret > 0) {
			uint32_t pi;

			if (rpl_map_get(&pl.pid2proc, RPL_IK(op->ev.ret), &pi) &&
			    pi != t->proc)
				op->wait_proc = (int32_t)pi;
		}
	}
	err = rpl_deps_finish(p, deps);
	goto out;
nomem:
	err = -ENOMEM;
out:
	rpl_map_free(&pl.tid2thread);
	rpl_map_free(&pl.pid2proc);
	rpl_map_free(&pl.spawn);
	rpl_map_free(&pl.files);
	rpl_map_free(&pl.pipes);
	rpl_map_free(&pl.snap_of);
	for (i = 0; i < pl.n_snap; i++)
		rpl_fdtab_unref(pl.snap[i]);	/* children that made no call */
	free(pl.snap);
	return err;
}

const struct iot_path_state *rpl_path_state(const struct rpl_plan *p, const char *path)
{
	size_t lo = 0, hi = p->n_ps;

	while (lo < hi) {		/* first state of @path: cmp_ps order */
		size_t mid = (lo + hi) / 2;

		if (strcmp(p->ps[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_ps && strcmp(p->ps[lo].path, path) == 0 ? &p->ps[lo] : NULL;
}

/* What the plan of one event costs, about: its op, its share of the
 * paths, path states, dependencies and thread lists (measured: 245
 * bytes an event on 1 M events of traces/mongo.iotape repeated). */
#define RPL_PLAN_BYTES_PER_EVENT (sizeof(struct rpl_op) + 64)

/* Memory the plan may take: available memory and free swap, in bytes,
 * or 0 if unknown. */
static uint64_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kb, sum = 0;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 ||
		    sscanf(line, "SwapFree: %llu kB", &kb) == 1)
			sum += kb;
	fclose(f);
	return (uint64_t)sum * 1024;
}

/* A trace too long to plan here stops the replay before it fills memory
 * (and the kernel kills it, or something else, with no word why). */
static int check_fits(const struct rpl_plan *p, const struct rpl_opts *o)
{
	uint64_t events = iot_reader_summary(p->rd)->events, avail = mem_available();
	double need = (double)events * (double)RPL_PLAN_BYTES_PER_EVENT;

	if (!avail || need <= (double)avail)
		return 0;
	iot_err(o->cmd, "%s: %llu events need about %.1f GiB to plan (%zu bytes each), more "
		"than the %.1f GiB of memory and swap available here (the plan holds every "
		"event); replay it on a machine with more memory", o->trace,
		(unsigned long long)events, need / (1 << 30), (size_t)RPL_PLAN_BYTES_PER_EVENT,
		(double)avail / (1 << 30));
	return -ENOMEM;
}

int rpl_plan_build(struct rpl_plan *p, const struct rpl_opts *o)
{
	struct rpl_deps *deps = NULL;
	size_t i;
	int err;

	memset(p, 0, sizeof(*p));
	p->o = o;
	p->root_fd = -1;
	p->start_fd = -EBADF;
	p->arena = iot_arena_new(1 << 20);
	if (!p->arena)
		return -ENOMEM;
	err = iot_reader_open(&p->rd, o->trace);
	if (err < 0) {
		p->open_err = err;
		return err;
	}
	p->hdr = iot_reader_header(p->rd);
	p->stop_cost_ns = p->hdr->stop_cost_ns > 0 ? p->hdr->stop_cost_ns : 0;
	if ((err = check_fits(p, o)) < 0)
		goto out;
	err = read_trace(p);
	if (err < 0) {
		iot_err(o->cmd, "%s: %s", o->trace, iot_strerror(err));
		goto out;
	}
	/* qsort's pointer must not be NULL, even for no elements; a trace
	 * whose events are in entry order already (one recording thread, a
	 * single process) is not sorted again: moving 1 M ops of 192 bytes
	 * through a merge sort was a tenth of the plan's time. */
	if (p->n_ops && !ops_sorted(p) && (err = sort_ops(p)) < 0)
		goto out;
	if (p->n_ps)
		qsort(p->ps, p->n_ps, sizeof(*p->ps), cmp_ps);
	err = rpl_plan_clean_paths(p);
	if (err < 0) {
		iot_err(o->cmd, "%s: planning failed: %s", o->trace, iot_strerror(err));
		goto out;
	}
	if (err > 0 && p->n_ps)
		qsort(p->ps, p->n_ps, sizeof(*p->ps), cmp_ps);
	deps = rpl_deps_new();
	p->ps_made_t = rpl_prep_made_t(p);	/* what the workload made itself */
	err = -ENOMEM;
	if (!deps || !p->ps_made_t)
		goto out;
	err = plan_threads(p, deps);
	if (err == 0)
		err = rpl_plan_think(p);
	if (err < 0)
		iot_err(o->cmd, "%s: planning failed: %s", o->trace, iot_strerror(err));
	/* The plan's descriptor tables were for resource ids only. */
	for (i = 0; i < p->n_procs; i++) {
		rpl_fdtab_unref(p->procs[i].tab);
		p->procs[i].tab = NULL;
	}
out:
	rpl_deps_free(deps);
	return err;
}

void rpl_plan_free(struct rpl_plan *p)
{
	size_t i;

	for (i = 0; i < p->n_threads; i++) {
		free(p->threads[i].ops);
		free(p->threads[i].scratch);
	}
	rpl_aio_free(p);
	rpl_mpages_free(p);
	for (i = 0; i < p->n_procs; i++)
		rpl_fdtab_unref(p->procs[i].tab);
	free(p->threads);
	free(p->procs);
	free(p->ops);
	free(p->deps);
	free(p->ps);
	free(p->ps_made_t);
	free(p->precs);
	if (p->rd)
		iot_reader_close(p->rd);
	if (p->arena)
		iot_arena_free(p->arena);
	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	p->start_fd = -EBADF;
}
