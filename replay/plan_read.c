/*
 * plan_read.c - the first steps of the plan: the trace read into one
 * array of ops (every event, packed, its paths kept once), the path
 * states, async requests, mapped pages and process records beside them;
 * then the ops sorted by entry time where the file does not have them so
 * (traces of several recording threads), and the path states by path.
 *
 * The arrays are sized from the index's counts up front (an array that
 * doubles past its size wastes a quarter of the plan, on average).  A
 * file's events are nearly in entry order (a recorder writes a call when
 * it returns: the few that blocked long come late) and are sorted in
 * place but for those few (sort_late()); only a file further from that
 * order is sorted through a side array of times, which moves each op once
 * (a merge sort's copies were more than a tenth of the plan's time).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "plan.h"

static const char *dup_str(struct iot_arena *a, const char *s, uint32_t n)
{
	return s ? iot_arena_strndup(a, s, n) : NULL;
}

/* What few states have (data ranges, extended attributes), the
 * reader's, made the plan's own. */
static int copy_extra(struct rpl_plan *p, struct iot_path_state *ps)
{
	const struct iot_ps_extra *from = ps->extra;
	struct iot_ps_extra *e = iot_arena_alloc(p->arena, sizeof(*e));
	struct iot_xattr *x = NULL;
	uint64_t *d = NULL;
	uint32_t i;

	if (!e)
		return -ENOMEM;
	*e = *from;
	if (from->n_data) {
		d = iot_arena_alloc(p->arena, 2 * (size_t)from->n_data * sizeof(*d));
		if (!d)
			return -ENOMEM;
		memcpy(d, from->data, 2 * (size_t)from->n_data * sizeof(*d));
	}
	e->data = d;
	if (from->n_xattrs && !(x = iot_arena_alloc(p->arena, from->n_xattrs * sizeof(*x))))
		return -ENOMEM;
	for (i = 0; i < from->n_xattrs; i++) {
		x[i] = from->xattrs[i];
		x[i].name = dup_str(p->arena, x[i].name, x[i].name_len);
		x[i].value = (const uint8_t *)dup_str(p->arena, (const char *)x[i].value,
						      x[i].value_len);
		if (!x[i].name)
			return -ENOMEM;
	}
	e->xattrs = x;
	ps->extra = e;
	return 0;
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

/* Keep @v for op @seq in the column @col of @n values: the on-CPU time
 * of its call, the sleep in the gap before it, the fast path's work
 * before it.  A column of its own,
 * made at the first such op (most traces have none; struct rpl_op has
 * no room). */
static int keep_col(const struct rpl_plan *p, uint32_t **col, size_t *n, uint32_t seq,
		    uint32_t v)
{
	size_t m = *n;
	uint32_t *a;

	if (seq >= m) {
		m = p->cap_ops > seq ? p->cap_ops : (size_t)seq * 2 + 1024;
		a = realloc(*col, m * sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a + *n, 0, (m - *n) * sizeof(*a));
		*col = a;
		*n = m;
	}
	(*col)[seq] = v;
	return 0;
}

/* Keep a copy of the bytes @ev wrote, which `record --data` kept, for op
 * @seq, in the arena: a column of its own, made at the first (struct
 * rpl_op has no room).  Only bytes as many as the call returned: what
 * the recorder keeps; anything else is not replayed as data. */
#define DATA_STEP_SHIFT 28	/* 256 MiB */

static int keep_data(struct rpl_plan *p, uint32_t seq, const struct iot_event *ev)
{
	size_t m = p->n_data;
	void *d;

	if (ev->flags & IOT_EV_NODATA)
		p->nodata_ops++;
	if (!ev->data_len)
		return 0;
	if (ev->ret != (int64_t)ev->data_len)
		return 0;
	if (seq >= m) {
		const void **a;

		m = p->cap_ops > seq ? p->cap_ops : (size_t)seq * 2 + 1024;
		a = realloc(p->data, m * sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a + p->n_data, 0, (m - p->n_data) * sizeof(*a));
		p->data = a;
		p->n_data = m;
	}
	/* the bytes kept are not in the trace's count of events that
	 * check_fits() takes up front: at each further 256 MiB of them,
	 * what the rest of the plan needs must still fit */
	if ((p->data_bytes + ev->data_len) >> DATA_STEP_SHIFT != p->data_bytes >> DATA_STEP_SHIFT) {
		uint64_t avail = rpl_mem_available(), events = iot_reader_summary(p->rd)->events;
		uint64_t rest = events > seq ? (events - seq) * (uint64_t)RPL_PLAN_BYTES_PER_EVENT : 0;

		if (avail && avail < rest + ((uint64_t)1 << DATA_STEP_SHIFT)) {
			iot_err(p->o->cmd, "%s: the bytes `record --data` kept (%.1f GiB by event %u "
				"of %llu) and the plan do not fit in the %.1f GiB of memory and swap "
				"left here (the plan holds every kept byte); replay it on a machine "
				"with more memory, or record with a smaller --data-total", p->o->trace,
				(double)(p->data_bytes + ev->data_len) / (1 << 30), seq,
				(unsigned long long)events, (double)avail / (1 << 30));
			return -ENOMEM;
		}
	}
	d = iot_arena_alloc(p->arena, ev->data_len);
	if (!d)
		return -ENOMEM;
	memcpy(d, ev->data, ev->data_len);
	p->data[seq] = d;
	p->data_ops++;
	p->data_bytes += ev->data_len;
	return 0;
}

/*
 * An event's path, kept once (rpl_intern()), found first by its address
 * in the chunk being read: the reader gives each string of a chunk's
 * table at one address, and a chunk's events name a few hundred paths
 * again and again.  A hit costs a look into this small table, not the
 * path hashed, looked up in the table of every path kept and compared
 * with the copy kept there (two cache misses on a long trace).  A path
 * with dots gets a copy of its own each time (rpl_intern()): not kept
 * here.
 */
#define MEMO_BITS 10

struct memo {
	const char *src, *kept;
	uint64_t chunk;			/* its chunk's frame + 1; 0: empty */
	uint32_t n;
};

static const char *intern_ev(struct rpl_intern *t, struct iot_arena *a, struct memo *m,
			     uint64_t chunk, const char *s, uint32_t n, int *dots)
{
	struct memo *e;
	const char *v;
	int d = 0;

	if (!s)
		return NULL;
	e = &m[((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> (64 - MEMO_BITS)];
	if (e->src == s && e->n == n && e->chunk == chunk + 1)
		return e->kept;
	v = rpl_intern(t, a, s, n, &d);
	if (d) {
		*dots = 1;
		return v;
	}
	if (v) {
		e->src = s;
		e->kept = v;
		e->chunk = chunk + 1;
		e->n = n;
	}
	return v;
}

int rpl_plan_read(struct rpl_plan *p)
{
	const struct iot_summary *s = iot_reader_summary(p->rd);
	struct rpl_intern paths = { 0 };
	struct memo *memo = calloc(1u << MEMO_BITS, sizeof(*memo));
	struct iot_item it;
	int err = 0, r;

	/* The index says how many events there are: one array of that size,
	 * not one that doubled past it (a quarter of the plan, on average). */
	uint64_t events = s->events, max = p->o->max_events;

	if (!memo)
		return -ENOMEM;
	if (max && max < events)
		events = max;
	if (events && events < UINT32_MAX - 1) {
		p->ops = malloc((size_t)events * sizeof(*p->ops));
		if (p->ops)
			p->cap_ops = (size_t)events;
		rpl_mem_huge(p->ops, (size_t)events * sizeof(*p->ops));
	}
	if (s->path_states && s->path_states < UINT32_MAX) {
		p->ps = malloc((size_t)s->path_states * sizeof(*p->ps));
		if (p->ps)
			p->cap_ps = (size_t)s->path_states;
	}
	/* the next chunks decoded on the other CPU while this one is
	 * planned (their zstd and columns: about half the read step) */
	if (p->o->read_ahead > 0)
		(void)iot_reader_set_ahead(p->rd, p->o->read_ahead);
	p->dropped_in_trace = s ? s->dropped_events : 0;
	while ((r = iot_reader_next(p->rd, &it)) > 0) {
		if (it.kind == IOT_ITEM_EVENT && max && p->n_ops >= max) {
			/* --events: the file ends here for the plan */
			p->events_in_trace = s->events > max ? s->events : max + 1;
			break;
		}
		if (it.kind == IOT_ITEM_EVENT) {
			struct rpl_op *op;

			RPL_GROW(p->ops, p->n_ops, p->cap_ops);
			op = &p->ops[p->n_ops];
			memset(op, 0, sizeof(*op));
			rpl_ev_pack(&op->ev, &it.u.ev);
			int dots = 0;

			op->ev.path = intern_ev(&paths, p->arena, memo, it.chunk, it.u.ev.path,
						it.u.ev.path_len, &dots);
			op->ev.path2 = intern_ev(&paths, p->arena, memo, it.chunk, it.u.ev.path2,
						 it.u.ev.path2_len, &dots);
			if (dots)
				op->rflags |= RPL_OPF_DOTS;
			if ((it.u.ev.path && !op->ev.path) || (it.u.ev.path2 && !op->ev.path2)) {
				err = -ENOMEM;
				goto out;
			}
			if (op->ev.nargs > IOT_MAX_ARGS)
				op->ev.nargs = IOT_MAX_ARGS;
			op->seq = (uint32_t)p->n_ops;
			/* credentials to follow (creds.c) */
			p->setid_calls |= rpl_creds_call(op->ev.nr);
			p->umask_calls += op->ev.nr == SYS_umask;
			if (it.u.ev.cpu_ns &&
			    (err = keep_col(p, &p->cpu_ns, &p->n_cpu, op->seq, it.u.ev.cpu_ns)))
				goto out;
			/* the pid, in the field of its thread until that is
			 * known (plan_threads.c) */
			op->thread = (uint32_t)it.u.ev.pid;
			if (it.u.ev.pre_ns &&
			    (err = keep_col(p, &p->pre_ns, &p->n_pre, op->seq, it.u.ev.pre_ns)))
				goto out;
			if (it.u.ev.slept_ns &&
			    (err = keep_col(p, &p->slept_ns, &p->n_slept, op->seq,
					    it.u.ev.slept_ns)))
				goto out;
			if (it.u.ev.run_ns &&
			    (err = keep_col(p, &p->run_ns, &p->n_run, op->seq, it.u.ev.run_ns)))
				goto out;
			if (it.u.ev.waited_ns &&
			    (err = keep_col(p, &p->waited_ns, &p->n_waited, op->seq,
					    it.u.ev.waited_ns)))
				goto out;
			if (it.u.ev.ready_ns &&
			    (err = keep_col(p, &p->ready_ns, &p->n_ready, op->seq,
					    it.u.ev.ready_ns)))
				goto out;
			if (it.u.ev.woke_ns &&
			    (err = keep_col(p, &p->woke_ns, &p->n_woke, op->seq,
					    it.u.ev.woke_ns)))
				goto out;
			if (it.u.ev.waker &&
			    (err = keep_col(p, &p->waker, &p->n_waker, op->seq,
					    it.u.ev.waker)))
				goto out;
			if (it.u.ev.gap_waker &&
			    (err = keep_col(p, &p->gap_waker, &p->n_gap_waker, op->seq,
					    it.u.ev.gap_waker)))
				goto out;
			if ((err = keep_data(p, op->seq, &it.u.ev)))
				goto out;
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
			ps->path = rpl_intern(&paths, p->arena, it.u.ps.path, it.u.ps.path_len, NULL);
			ps->target = dup_str(p->arena, it.u.ps.target, it.u.ps.target_len);
			if (ps->extra && (err = copy_extra(p, ps)))
				goto out;
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
	rpl_mpages_tie(p);
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
	/* its thread and the chunks ahead let go */
	if (p->o->read_ahead > 0)
		(void)iot_reader_set_ahead(p->rd, 0);
	rpl_intern_free(&paths);
	free(memo);
	return err;
}

/* An op and when its effect counted, side by side: sorting these, not
 * indices that each comparison follows into a 136-byte op, keeps the sort
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

/* Sort the ops by entry time (file order among equal times):
 * the times and indices sorted side by side, then each op moved once,
 * cycle by cycle, to its place, not through a merge sort's copies of
 * 136-byte ops (more than a tenth of the plan's time).  It takes 16
 * bytes an op, and glibc's qsort as many again for its merge. */
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

static int cmp_op_enter(const void *a, const void *b)
{
	const struct rpl_op *x = a, *y = b;

	if (x->ev.t_enter != y->ev.t_enter)
		return x->ev.t_enter < y->ev.t_enter ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the ops of a file nearly in entry order, in place but for the ops
 * out of it.  A recorder writes a call when it returns: a call that
 * entered before others and returned after them (a wait4 for a child
 * that ran on, a blocking read) comes after them in the file, and a call
 * is otherwise in order.  Those late calls are few (10 in 1 M events of
 * traces/mongo.iotape repeated: the driver's wait4s and mongod's long
 * waits) but far from their place (up to 950,000 ops back).  The ops
 * that entered before an op ahead of them in the file are taken out into
 * a side array and sorted; each one's place among the others is bisected,
 * and the others move once, in runs of one shift (as many late ops go
 * before them as came before them in the file: no move at all where
 * these are equal), those going back from the front, those going on from
 * the end; the late ops go in last.  The memory is the late ops'
 * (sort_ops() took 32 bytes an op, the plan's peak: 229 MiB of 1726 at
 * 10 M events).  @return : 1 if sorted so; 0 (nothing moved) if more
 * than one op in RPL_LATE_SHARE is late; -ENOMEM.
 */
#define RPL_LATE_SHARE 16

/* The place in the file of the op @k-th of those not late, @pos[@n] the
 * late ones' places (ascending): past the late ones before it. */
static size_t kept_at(const size_t *pos, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first late one with more than @k before it */
		size_t mid = lo + (hi - lo) / 2;

		if (pos[mid] - mid > k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return k + lo;
}

/* A run of the ops not late, [@kb, @ke) of them: @a late ones go before
 * them, @r came before them in the file. */
struct late_run {
	size_t kb, ke, a, r;
};

static int sort_late(struct rpl_plan *p)
{
	struct rpl_op *late = NULL, *ops = p->ops;
	struct late_run *run = NULL;
	size_t *pos = NULL, *kc, i, j, c, k, n_kept, n_run, n_late = 0, first = 0;
	int64_t max = INT64_MIN;

	for (i = 0; i < p->n_ops; i++) {
		if (ops[i].ev.t_enter >= max) {
			max = ops[i].ev.t_enter;
		} else if (!n_late++) {
			first = i;
		}
	}
	if (!n_late)
		return 1;
	if (n_late > p->n_ops / RPL_LATE_SHARE)
		return 0;
	late = malloc(n_late * sizeof(*late));
	pos = malloc(2 * n_late * sizeof(*pos));
	run = malloc((2 * n_late + 1) * sizeof(*run));
	if (!late || !pos || !run) {
		free(late);
		free(pos);
		free(run);
		return -ENOMEM;
	}
	kc = pos + n_late;
	/* the late ones out, their places noted; the others are in entry order */
	max = ops[first - 1].ev.t_enter;
	for (i = first, j = 0; i < p->n_ops; i++) {
		if (ops[i].ev.t_enter >= max) {
			max = ops[i].ev.t_enter;
		} else {
			pos[j] = i;
			late[j++] = ops[i];
		}
	}
	qsort(late, n_late, sizeof(*late), cmp_op_enter);
	/* kc[j]: how many of the others go before late[j] */
	n_kept = p->n_ops - n_late;
	for (j = 0; j < n_late; j++) {
		size_t lo = j ? kc[j - 1] : 0, hi = n_kept;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_op_enter(&ops[kept_at(pos, n_late, mid)], &late[j]) > 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		kc[j] = lo;
	}
	for (k = 0, i = 0, c = 0, n_run = 0; k < n_kept; k = run[n_run++].ke) {
		size_t next = n_kept;

		while (i < n_late && kc[i] <= k)
			i++;
		while (c < n_late && pos[c] - c <= k)
			c++;
		if (i < n_late && kc[i] < next)
			next = kc[i];
		if (c < n_late && pos[c] - c < next)
			next = pos[c] - c;
		run[n_run] = (struct late_run){ k, next, i, c };
	}
	/* a run going back lands on late ops' places or those of runs before
	 * it that went back; one going on, on those of runs after it */
	for (j = 0; j < n_run; j++)
		if (run[j].a < run[j].r)
			memmove(&ops[run[j].kb + run[j].a], &ops[run[j].kb + run[j].r],
				(run[j].ke - run[j].kb) * sizeof(*ops));
	for (j = n_run; j-- > 0;)
		if (run[j].a > run[j].r)
			memmove(&ops[run[j].kb + run[j].a], &ops[run[j].kb + run[j].r],
				(run[j].ke - run[j].kb) * sizeof(*ops));
	for (j = 0; j < n_late; j++)
		ops[j + kc[j]] = late[j];
	free(late);
	free(pos);
	free(run);
	return 1;
}

int rpl_plan_sort_ops(struct rpl_plan *p)
{
	int r;

	/* qsort's pointer must not be NULL, even for no elements */
	if (!p->n_ops || (r = sort_late(p)) > 0)
		return 0;
	return r < 0 ? r : sort_ops(p);
}

/*
 * The states of one path, the one prepare makes first (rpl_path_state()
 * and every loop that skips a path's later states): one not flagged
 * IOT_PS_AGAIN (a recorder whose set of paths was full forgot the path
 * and took its state again when a call named it again: after the
 * program may have changed it; a listing's entry taken early, before the
 * set forgot it, is such a first one); then a state a call's naming took
 * before one a listing gave (the same file by two names; a listing's
 * entry is taken at the end, after the program may have changed it);
 * then the earliest.  Every later state of a path is ignored, whatever it
 * says.
 */
static int cmp_ps(const void *a, const void *b)
{
	const struct iot_path_state *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if ((x->flags ^ y->flags) & IOT_PS_AGAIN)
		return x->flags & IOT_PS_AGAIN ? 1 : -1;
	if ((x->flags ^ y->flags) & IOT_PS_LISTED)
		return x->flags & IOT_PS_LISTED ? 1 : -1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/*
 * Where each path's first state is, by the path's hash: a slot holds the
 * hash's high 32 bits and the state's index + 1 (0: empty), half full at
 * most.  The replay asks for a path's state while it runs (cp -a's ACLs,
 * a listing's entries): a binary search was ~16 strcmp()s of paths spread
 * over the plan, a cache miss each.
 */
static uint64_t ps_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h ^ h >> 29;
}

static void ps_index(struct rpl_plan *p)
{
	size_t n = 16, i, j;

	free(p->ps_ix);
	p->ps_ix = NULL;
	p->ps_ix_mask = 0;
	if (p->n_ps >= UINT32_MAX)
		return;			/* the binary search, then */
	while (n < 2 * p->n_ps)
		n *= 2;
	p->ps_ix = calloc(n, sizeof(*p->ps_ix));
	if (!p->ps_ix)
		return;
	p->ps_ix_mask = n - 1;
	for (i = 0; i < p->n_ps; i++) {
		uint64_t h;

		if (i && strcmp(p->ps[i - 1].path, p->ps[i].path) == 0)
			continue;	/* not the path's first */
		h = ps_hash(p->ps[i].path);
		for (j = h & p->ps_ix_mask; p->ps_ix[j]; j = (j + 1) & p->ps_ix_mask)
			;
		p->ps_ix[j] = (h >> 32) << 32 | (uint64_t)(i + 1);
	}
}

void rpl_plan_sort_ps(struct rpl_plan *p)
{
	if (p->n_ps)
		qsort(p->ps, p->n_ps, sizeof(*p->ps), cmp_ps);
	ps_index(p);
}

const struct iot_path_state *rpl_path_state(const struct rpl_plan *p, const char *path)
{
	size_t lo = 0, hi = p->n_ps;

	if (p->ps_ix) {
		uint64_t h = ps_hash(path), s;
		size_t j;

		for (j = h & p->ps_ix_mask; (s = p->ps_ix[j]); j = (j + 1) & p->ps_ix_mask) {
			const struct iot_path_state *ps = &p->ps[(uint32_t)s - 1];

			if (s >> 32 == h >> 32 && strcmp(ps->path, path) == 0)
				return ps;
		}
		return NULL;
	}
	while (lo < hi) {		/* first state of @path: cmp_ps order */
		size_t mid = (lo + hi) / 2;

		if (strcmp(p->ps[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_ps && strcmp(p->ps[lo].path, path) == 0 ? &p->ps[lo] : NULL;
}
