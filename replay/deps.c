/*
 * deps.c - resource order: the ops of other threads each op waits for
 * (plan.c's opening says which and why), found in one pass over the ops
 * in entry order, as the plan makes them.
 *
 * Dependencies follow the order in which the ops' effects counted
 * (rpl_op_order_time(): mostly their completion), not their entry.  An op's
 * effect counts no earlier than its entry, so once the plan has reached
 * an entry time T, every op whose effect counted by T is known, and no op
 * not yet made can come before it: those are taken in order (a heap of
 * the ops kept) and given their dependencies then.  What is kept is the
 * ops still running at T as recorded, about one per thread, with their
 * resource keys; not every op's keys and a sort of all ops, which the
 * plan held before (a tenth of its memory).  The order is the same as that
 * sort's, (time, op), for every trace.  What is carried from op to op is
 * per resource: its last change and lookers, a pipe's writes.
 *
 * Where an op's result shows that pending ops of other threads came
 * first (what a look-up found, a lock's answer, a read's byte count), it
 * pulls them ahead of it: deps_seen.c.  deps_int.h is what the two share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "rpl.h"
#include "deps_int.h"

/*
 * When an op's effect counts for resource order (rpl_op_order_time()):
 * when it completed; but
 * data written into a pipe is there for its reader during the write, and
 * the reader it wakes often has its return recorded first (a shell's
 * read of $(...) output returned 15 us before the writer's write did, and
 * replayed first got EAGAIN); likewise the close of the write end that a
 * reader sees as end of file.  A pipe write or close counts from its
 * entry, and so does an exec that closes pipes (close-on-exec).  Each
 * thread's ops still count in their order (an op enters after the one
 * before it returned), and every dependency points to an earlier time:
 * no cycle.
 */

/*
 * Resource order, from the ops in the order their effects counted.  An op
 * that changes a resource depends on the last op of another thread that
 * changed it, and on the ops that looked at it since; an op that only
 * looks (rpl_only_looks()) depends on the last change alone.  Ops that only
 * look keep no order among themselves: the order in which two processes
 * looked at one directory or file when recorded is the recording
 * filesystem's timing, not the workload's.  (Two processes that each
 * mkdir() their own directory, which is there, before every file they
 * create and fsync were otherwise made to take turns, file by file, as
 * the recording's journal had them: on another filesystem the replay was
 * as slow as that lockstep, +70 % on btrfs from an ext4 recording.)
 *
 * A name made or removed in a directory (RPL_KEY_NAME, on the key of the
 * directory's names, plan_fds.c) follows the last change of them and
 * the looks since, but not the other names made or removed there: two
 * jobs of a make -j2 that write their objects, and their compilers'
 * temporary files in /tmp, into one directory took turns at every
 * create as recorded, and a job late in the replay held the other.  A
 * look (a listing's open) or a change (a removal of the directory)
 * follows every name made since; those are kept as the lookers are.
 *
 * The lookers since the last change are kept per resource, at most
 * RPL_LOOKERS, one per thread (a thread's later look covers its earlier
 * ones); when more threads look, the newest also follows the oldest, so
 * that the next change, which waits for the ones kept, still comes after
 * every look before it.
 */
#define RPL_LOOKERS 4
_Static_assert(RPL_DEPS_MAX <= UINT8_MAX, "struct rpl_op counts its deps in a byte");
_Static_assert(RPL_LOOKERS <= 8, "struct lookers keeps its looks' RPL_KEY_MEET in a byte");

struct lookers {
	uint32_t op[RPL_LOOKERS];
	uint8_t n;
	uint8_t meet;			/* bit j: op[j]'s look meets another's */
};

/* Op @op (whose deps are appended last, side by side in p->deps)
 * follows op @on. */
static int add_dep(struct rpl_plan *p, struct rpl_op *op, uint32_t on)
{
	/* named by its index in plan.ops until every op has its thread:
	 * rpl_deps_finish() makes it its position there */
	struct rpl_dep dep = { .thread = p->ops[on].thread, .pos = on };
	uint16_t d;
	int err = 0;

	if (dep.thread == op->thread || op->ndeps >= RPL_DEPS_MAX)
		goto out;
	for (d = 0; d < op->ndeps; d++)
		if (p->deps[op->dep_off + d].thread == dep.thread &&
		    p->deps[op->dep_off + d].pos == dep.pos)
			goto out;
	RPL_GROW(p->deps, p->n_deps, p->cap_deps);
	p->deps[p->n_deps++] = dep;
	op->ndeps++;
	p->ops[on].needed = 1;
out:
	return err;
}

static int looked(const struct rpl_plan *p, const struct lookers *l, uint32_t thread)
{
	uint32_t j;

	for (j = 0; j < l->n; j++)
		if (p->ops[l->op[j]].thread == thread)
			return 1;
	return 0;
}

/*
 * Op @oi looks at the resource whose lookers are @l; @meet: its look meets
 * another's (RPL_KEY_MEET).  Where the oldest looker kept is such a look,
 * or this one is, this one does not follow it: two opens of a FIFO meet,
 * neither one waits for the other to end (ops_file.c), and a fifth one
 * made to follow the first waited for a writer that waited for it, until
 * the writer gave up a second later (four shells' `exec 8>fifo` before
 * `cat fifo`, recorded by ptrace: every replay 1.0 s against 10 ms).  The
 * look so let go is one a later change of the resource may no longer
 * follow.
 */
static int add_looker(struct rpl_plan *p, struct lookers *l, uint32_t oi, int meet)
{
	struct rpl_op *op = &p->ops[oi];
	uint32_t j;

	for (j = 0; j < l->n; j++)
		if (p->ops[l->op[j]].thread == op->thread)
			break;
	if (j == l->n && l->n == RPL_LOOKERS) {
		if (!meet && !(l->meet & 1) && add_dep(p, op, l->op[0]) < 0)
			return -ENOMEM;
		memmove(l->op, l->op + 1, (RPL_LOOKERS - 1) * sizeof(*l->op));
		l->meet = (uint8_t)(l->meet >> 1);
		j = --l->n;
	}
	l->op[j] = oi;
	l->meet = (uint8_t)((l->meet & ~(1u << j)) | ((unsigned)(meet != 0) << j));
	if (j == l->n)
		l->n++;
	return 0;
}

/*
 * Pipes: a read follows the write that put the last of its bytes in the
 * pipe (bytes counted through the recorded results), and the read before
 * it; a write (or a close, an exec or exit that closed a write end)
 * follows the write or close before it; a read that saw end of file, the
 * last of those.  A write does not follow the reads before it: the space
 * it needs is waited for when it runs (ops_pipe.c).  A read that had its
 * return recorded after a write entered could have emptied the pipe for
 * that write: ordered by time, the write waited for the read and the
 * read for the write (xz's non-blocking writes into a full pipe, and
 * tar's reads of it, under the tracer's latency).  Nor may a read follow
 * a write that needed its room to return (a write that moved part, then
 * blocked): it follows the latest write that fits (rpl_pipe_fit()).
 * A socket pair is two such pipes, one each way (plan_pipes.c pipe_way()).
 */
#define PIPE_LOOSE 8

struct pipe_st {
	int64_t written, read;
	/* closes of copies of an end open elsewhere since the last feed,
	 * which follow nothing (RPL_KEY_LOOSE) */
	uint32_t loose[PIPE_LOOSE];
	uint32_t n_loose;
	uint32_t *w_op;			/* writes that moved data, in order */
	int64_t *w_end;			/* ... the byte count written after each */
	size_t n_w, cap_w, cur;		/* cur: the first write a read can need */
	size_t first;			/* the first write with bytes not yet read */
	uint32_t last_read, last_feed;
};

/* The bytes @op moved through a pipe (its result, where that is a count),
 * as its reader (@reads) or feeder: a splice moves its result out of its
 * input and into its output, a tee copies it into its output and leaves
 * its input as it was */
static int64_t pipe_bytes(const struct rpl_op *op, int reads)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);

	if (op->ev.ret <= 0)
		return 0;
	if (op->ev.nr == SYS_tee)
		return reads ? 0 : op->ev.ret;
	return op->ev.nr == SYS_splice || (sc && (sc->flags & IOT_SCF_COUNT)) ? op->ev.ret : 0;
}

/* Is @op a read that leaves what it read in the socket (MSG_PEEK)? */
static int peeks(const struct rpl_op *op)
{
	return (op->ev.nr == SYS_recvfrom && (op->ev.args[3] & MSG_PEEK)) ||
	       (op->ev.nr == SYS_recvmsg && (op->ev.args[2] & MSG_PEEK));
}

/* @op follows the loose closes since the last feed; @clear: they are
 * done with (a feed that follows them). */
static int follow_loose(struct rpl_plan *p, struct pipe_st *ps, struct rpl_op *op, int clear)
{
	uint32_t j;

	for (j = 0; j < ps->n_loose; j++)
		if (add_dep(p, op, ps->loose[j]) < 0)
			return -ENOMEM;
	if (clear)
		ps->n_loose = 0;
	return 0;
}

static int pipe_dep(struct rpl_plan *p, struct pipe_st *ps, uint32_t oi, int reads, int loose)
{
	struct rpl_op *op = &p->ops[oi];
	int64_t n = pipe_bytes(op, reads);

	if (loose && !reads) {
		/* full: this one follows the oldest, which the next feed
		 * then follows through it (as lookers do).  Ordered after
		 * the last feed, it waited for a write blocked in a full
		 * pipe whose reader came later (sort's merge of 16 gzip -d
		 * pipes: each child's exec closes its copies of the read
		 * ends of the pipes before its own) */
		if (ps->n_loose == PIPE_LOOSE) {
			if (add_dep(p, op, ps->loose[0]) < 0)
				return -ENOMEM;
			memmove(ps->loose, ps->loose + 1, (PIPE_LOOSE - 1) * sizeof(*ps->loose));
			ps->n_loose--;
		}
		ps->loose[ps->n_loose++] = oi;
		return 0;
	}

	if (reads) {
		uint32_t last = ps->last_read;

		ps->last_read = oi;
		if (last != NO_OP && add_dep(p, op, last) < 0)
			return -ENOMEM;
		if (n > 0) {
			int64_t from = ps->read;
			size_t cur = ps->cur;
			ptrdiff_t j;

			while (ps->first < ps->n_w && ps->w_end[ps->first] <= from)
				ps->first++;
			while (cur < ps->n_w && ps->w_end[cur] < from + n)
				cur++;
			/* a peek leaves its bytes for the next read */
			if (!peeks(op)) {
				ps->read += n;
				ps->cur = cur;
			}
			if (cur < ps->n_w) {
				j = rpl_pipe_fit(ps->w_end, ps->first, cur, from);
				return j >= 0 ? add_dep(p, op, ps->w_op[j]) : 0;
			}
		}
		/* end of file, or bytes no recorded write accounts for */
		if (follow_loose(p, ps, op, 0) < 0)
			return -ENOMEM;
		return ps->last_feed != NO_OP ? add_dep(p, op, ps->last_feed) : 0;
	}
	if ((ps->last_feed != NO_OP && add_dep(p, op, ps->last_feed) < 0) ||
	    follow_loose(p, ps, op, 1) < 0)
		return -ENOMEM;
	ps->last_feed = oi;
	if (n == 0)
		return 0;
	if (ps->n_w == ps->cap_w && ps->cur && ps->cur >= ps->n_w / 2) {
		/* the writes every read has gone past are needed no more:
		 * a pipe that carries a long run's output keeps what is
		 * unread, not every write it ever had */
		memmove(ps->w_op, ps->w_op + ps->cur, (ps->n_w - ps->cur) * sizeof(*ps->w_op));
		memmove(ps->w_end, ps->w_end + ps->cur, (ps->n_w - ps->cur) * sizeof(*ps->w_end));
		ps->n_w -= ps->cur;
		/* the next read's first write is at cur or after */
		ps->first = ps->first > ps->cur ? ps->first - ps->cur : 0;
		ps->cur = 0;
	}
	if (ps->n_w == ps->cap_w) {
		size_t nc = ps->cap_w ? ps->cap_w * 2 : 64;
		uint32_t *o = realloc(ps->w_op, nc * sizeof(*o));
		int64_t *e;

		if (!o)
			return -ENOMEM;
		ps->w_op = o;
		e = realloc(ps->w_end, nc * sizeof(*e));
		if (!e)
			return -ENOMEM;
		ps->w_end = e;
		ps->cap_w = nc;
	}
	ps->written += n;
	ps->w_op[ps->n_w] = oi;
	ps->w_end[ps->n_w++] = ps->written;
	return 0;
}

static int res_grow(struct res_tab *t)
{
	struct res_tab n = { .cap = t->cap ? t->cap * 2 : 1024 };
	size_t i, j;

	if (!(n.s = rpl_table_new(n.cap * sizeof(*n.s))))
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		uint64_t k = rpl_slot_key(t->s[i].k);

		if (!k)
			continue;
		for (j = rpl_slot_first(k, n.cap); rpl_slot_key(n.s[j].k); j = (j + 1) & (n.cap - 1))
			;
		n.s[j] = t->s[i];
		n.n++;
	}
	rpl_table_free(t->s, t->cap * sizeof(*t->s));
	*t = n;
	return 0;
}

/* The state of @key (never 0), made if it has none yet (NULL: out of
 * memory); valid until the next key is made. */
static struct res_st *res_get(struct rpl_deps *d, uint64_t key)
{
	struct res_tab *t = &d->res;
	uint64_t k;
	size_t i;

	if ((t->n + 1) * 2 > t->cap && res_grow(t) < 0)
		return NULL;
	for (i = rpl_slot_first(key, t->cap); (k = rpl_slot_key(t->s[i].k)); i = (i + 1) & (t->cap - 1))
		if (k == key)
			return &t->s[i].st;
	memcpy(t->s[i].k, &key, sizeof(key));
	t->s[i].st.last = t->s[i].st.look = t->s[i].st.name = NO_OP;
	t->n++;
	return &t->s[i].st;
}

/* The last change of @key (NO_OP: none), its state not made where it
 * has none. */
uint32_t rpl_res_last(const struct rpl_deps *d, uint64_t key)
{
	const struct res_tab *t = &d->res;
	uint64_t k;
	size_t i;

	if (!t->cap)
		return NO_OP;
	for (i = rpl_slot_first(key, t->cap); (k = rpl_slot_key(t->s[i].k)); i = (i + 1) & (t->cap - 1))
		if (k == key)
			return t->s[i].st.last;
	return NO_OP;
}

/* The state of open file @id (RPL_KEY_RES), made if it has none yet
 * (NULL: out of memory). */
static struct res_st *res_file(struct rpl_deps *d, uint32_t id)
{
	struct res_st *r;
	size_t n;

	if (id >= d->n_files) {
		n = d->n_files ? d->n_files : 1024;
		while (n <= id)
			n *= 2;
		if (!(r = realloc(d->files, n * sizeof(*r))))
			return NULL;
		memset(r + d->n_files, 0xff, (n - d->n_files) * sizeof(*r));	/* NO_OP */
		d->files = r;
		d->n_files = n;
	}
	return &d->files[id];
}

/* The ops @k keeps at index @i (NO_OP: none). */
static struct lookers *kept_get(struct kept *k, uint32_t i)
{
	return i != NO_OP ? &k->v[i] : NULL;
}

/* Op @oi joins the ops @k keeps at *@i (NO_OP: none yet, then set);
 * @meet: add_looker()'s. */
static int kept_add(struct rpl_plan *p, struct kept *k, uint32_t *i, uint32_t oi, int meet)
{
	int err = 0;

	if (*i == NO_OP) {
		RPL_GROW(k->v, k->n, k->cap);
		*i = (uint32_t)k->n++;
		k->v[*i].n = 0;
		k->v[*i].meet = 0;
	}
	err = add_looker(p, &k->v[*i], oi, meet);
out:
	return err;
}

/* Op @op follows every op of @l (NULL: none). */
static int follow_all(struct rpl_plan *p, struct rpl_op *op, const struct lookers *l)
{
	uint32_t j;

	for (j = 0; l && j < l->n; j++)
		if (add_dep(p, op, l->op[j]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * Does @op read or remove a whole tree, what is under its path as well:
 * btrfs's snapshot of a subvolume (its source's) and its destroy?  No
 * key names each path under another: such an op follows the last op
 * ordered before it of every other thread (follow_threads()), those
 * under its path among them.  A snapshot of a tree another thread was
 * still writing in the replay copied it short; a destroy came before the
 * calls on the files it removed.
 */
static int tree_op(const struct rpl_op *op)
{
	int kind;

	if (op->ev.nr != SYS_ioctl || op->ev.ret < 0 || op->ev.nargs < IOT_SUBVOL_NARGS ||
	    op->ev.args[IOT_SUBVOL_FLAGS] < 0)
		return 0;
	kind = iot_subvol_call((uint32_t)op->ev.args[1], NULL, NULL);
	return kind == IOT_SUBVOL_SNAP || kind == IOT_SUBVOL_DESTROY;
}

static int follow_threads(struct rpl_plan *p, struct rpl_deps *d, struct rpl_op *op)
{
	size_t t;

	for (t = 0; t < d->n_last; t++)
		if (d->last_of[t] != NO_OP && add_dep(p, op, d->last_of[t]) < 0)
			return -ENOMEM;
	return 0;
}

/* @oi is the last op of its thread ordered so far */
static int ordered_last(struct rpl_plan *p, struct rpl_deps *d, uint32_t oi)
{
	uint32_t t = p->ops[oi].thread;

	if (t >= d->n_last) {
		size_t n = t + 16 > 2 * d->n_last ? t + 16 : 2 * d->n_last, i;
		uint32_t *v = realloc(d->last_of, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (i = d->n_last; i < n; i++)
			v[i] = NO_OP;
		d->last_of = v;
		d->n_last = n;
	}
	d->last_of[t] = oi;
	return 0;
}

/* The dependencies of op @oi, whose resource keys are @ok[0 .. @nk). */
static int order_op(struct rpl_plan *p, struct rpl_deps *d, uint32_t oi,
		    const uint64_t *ok, size_t nk)
{
	struct rpl_op *op = &p->ops[oi];
	size_t k;
	int err = 0;

	/* an op's deps are appended together: they stay side by side */
	op->dep_off = (uint32_t)p->n_deps;
	op->ndeps = 0;
	if ((tree_op(op) && follow_threads(p, d, op) < 0) || ordered_last(p, d, oi) < 0)
		goto nomem;
	for (k = 0; k < nk; k++) {
		uint64_t key = ok[k] & ~RPL_KEY_HOW;
		struct lookers *lk, *nm;
		struct res_st *r;
		uint32_t li;

		if (ok[k] & RPL_KEY_PIPE) {
			if (!rpl_map_get(&d->pipes, key, &li)) {
				RPL_GROW(d->ps, d->n_ps, d->cap_ps);
				li = (uint32_t)d->n_ps++;
				memset(&d->ps[li], 0, sizeof(d->ps[li]));
				d->ps[li].last_read = d->ps[li].last_feed = NO_OP;
				if (rpl_map_put(&d->pipes, key, li) < 0)
					goto nomem;
			}
			if (pipe_dep(p, &d->ps[li], oi, (ok[k] & RPL_KEY_LOOK) != 0,
				     (ok[k] & RPL_KEY_LOOSE) != 0) < 0)
				goto nomem;
			continue;
		}
		/* nothing else adds to d->res until this key is done */
		r = key & RPL_KEY_RES ? res_file(d, (uint32_t)(key >> 32)) : res_get(d, key);
		if (!r)
			goto nomem;
		lk = kept_get(&d->look, r->look);
		nm = kept_get(&d->name, r->name);
		if (ok[k] & RPL_KEY_NAME) {
			/* one name made or removed: after the last change
			 * and the looks since, not after the others */
			if ((r->last != NO_OP && add_dep(p, op, r->last) < 0) ||
			    follow_all(p, op, lk) < 0 || kept_add(p, &d->name, &r->name, oi, 0) < 0)
				goto nomem;
			continue;
		}
		/* A thread that looked since the last change follows it
		 * already; a look or a change follows every name made or
		 * removed since. */
		if (r->last != NO_OP &&
		    !((ok[k] & RPL_KEY_LOOK) && lk && looked(p, lk, op->thread)) &&
		    add_dep(p, op, r->last) < 0)
			goto nomem;
		if (follow_all(p, op, nm) < 0)
			goto nomem;
		if (ok[k] & RPL_KEY_LOOK) {
			if (kept_add(p, &d->look, &r->look, oi, (ok[k] & RPL_KEY_MEET) != 0) < 0)
				goto nomem;
			continue;
		}
		if (follow_all(p, op, lk) < 0)
			goto nomem;
		if (lk)
			lk->n = 0;
		if (nm)
			nm->n = 0;
		r->last = oi;
	}
	if (p->n_deps >= UINT32_MAX)
		err = -E2BIG;
	goto out;
nomem:
	err = -ENOMEM;
out:
	return err;
}

static int pend_less(const struct pend *a, const struct pend *b)
{
	return a->t != b->t ? a->t < b->t : a->op < b->op;
}

static void pend_swap(struct pend *a, struct pend *b)
{
	struct pend x = *a;

	*a = *b;
	*b = x;
}

/*
 * The most ops kept at once.  A recording has no more calls in flight at
 * once than threads in calls; a hostile trace can claim that every call
 * returned at the end (an exit time far after everything).  Past this
 * many, the op whose effect counted first is ordered at once, as if it
 * had counted now: later ops that the recording had before it then
 * follow it instead (no cycle: each op still depends on ops ordered
 * before it only), and what is kept stays bounded (5 MiB).
 */
#define RPL_PEND_MAX (1 << 16)

/* Heap entry @i moved up to its place. @return : where it is now */
static size_t sift_up(struct rpl_deps *d, size_t i)
{
	for (; i > 0 && pend_less(&d->heap[i], &d->heap[(i - 1) / 2]); i = (i - 1) / 2)
		pend_swap(&d->heap[i], &d->heap[(i - 1) / 2]);
	return i;
}

/* Heap entry @i moved down to its place */
static void sift_down(struct rpl_deps *d, size_t i)
{
	size_t c;

	for (; (c = 2 * i + 1) < d->n_heap; i = c) {
		if (c + 1 < d->n_heap && pend_less(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!pend_less(&d->heap[c], &d->heap[i]))
			break;
		pend_swap(&d->heap[i], &d->heap[c]);
	}
}

/* Heap entry @i out of @d's heap, into *@out (0: the first). */
void rpl_heap_take(struct rpl_deps *d, size_t i, struct pend *out)
{
	*out = d->heap[i];
	if (out->reads)
		d->n_looks[out->data]--;
	d->heap[i] = d->heap[--d->n_heap];
	if (i < d->n_heap)
		sift_down(d, sift_up(d, i));
}

/* Pending op @e ordered now: its dependencies, and the size of the file
 * it wrote (seen.c) */
int rpl_order_pend(struct rpl_plan *p, struct rpl_deps *d, const struct pend *e)
{
	int err = order_op(p, d, e->op, e->keys, e->nk);

	if (err == 0)
		err = rpl_locks_ordered(p, d, e);
	if (err < 0 || e->data == RPL_DATA_NONE || e->data == RPL_DATA_READ ||
	    e->data == RPL_DATA_SEEK || e->data == RPL_DATA_ACCESS || e->data == RPL_DATA_LIST)
		return err;
	return rpl_seen_done(p, d->seen, &p->ops[e->op], e->keys, e->nk, e->data, e->at);
}

/* Order the kept ops whose effect counted by @t (INT64_MAX: all), and
 * the first ones past RPL_PEND_MAX. */
static int order_until(struct rpl_plan *p, struct rpl_deps *d, int64_t t)
{
	struct pend top;
	int err;

	while (d->n_heap && (d->heap[0].t <= t || d->n_heap >= RPL_PEND_MAX)) {
		rpl_heap_take(d, 0, &top);
		if ((err = rpl_pull_seen(p, d, &top)) < 0 || (err = rpl_order_pend(p, d, &top)) < 0)
			return err;
	}
	return 0;
}

/*
 * When an exit lets a lock go for good (rpl_deps_add(): the last
 * descriptor of an open file a lock was taken through, plan_locks.c
 * rpl_held_lock()).  The kernel closes an ending process's files well after
 * its exit_group's entry, once its memory is torn down, and after its
 * exit record's event (ptrace: the tracer let it go at its exit event;
 * bpf: sched_process_exit): tries without waiting (LOCK_NB, F_SETLK) of
 * another process that entered after the exit did, and after that
 * record, up to 74 us on, were refused.  Counted from its entry, the exit
 * came before them and they were granted in the replay
 * (tests/progs/lock_letgo with exit: 99 of 100 tries, ptrace).  It counts just
 * before the first sign that the lock was free: the end of its
 * process's reap (a wait4 that began before it: rpl_proc.reaped_at, or
 * one of the next FREED_SCAN ops), or of the first lock granted to
 * another process on one of its files (pending, or among those ops);
 * from its entry where none shows.  The tries refused before then come
 * first (pulled ahead where they returned later: deps_seen.c), the lock
 * that it let through after it.  Not at its exit record: a try refused
 * after the record was granted in the replay.  Not past its reap: the
 * exit followed ops its parent made after the reap, which waits for its
 * end (a circle the replay broke after 1 s).  Only an exit that lets a
 * lock go for good: a child that inherited the locked descriptor
 * (flock(1)'s command, its children) so late came after the next
 * holder's lock, which waited for it, and its pipes' readers before it.
 */
static int64_t freed_at(const struct rpl_plan *p, const struct rpl_deps *d, const struct pend *e)
{
	struct pend q = *e;

	q.t = rpl_freed_at(p, e->op, e->keys);
	q.t = rpl_freed_pending(p, d, &q);
	return q.t != INT64_MAX && q.t - 1 > e->t ? q.t - 1 : e->t;
}

/* Pending op heap entry @i read the end of a pipe: an exit counted past
 * its entry that closed the pipe's last write end comes just before it
 * (deps_seen.c rpl_eof_of()).  A read of the end is rare: the heap (about
 * one op a thread) is looked through for those only.  An entry lowered
 * moves up only past entries already looked at. */
static void eof_lowers(const struct rpl_plan *p, struct rpl_deps *d, size_t i)
{
	struct pend r = d->heap[i];
	size_t j;

	if (p->ops[r.op].ev.ret != 0)
		return;
	for (j = 0; j < d->n_heap; j++) {
		struct pend *x = &d->heap[j];
		int64_t own = rpl_op_order_time(&p->ops[x->op]);

		if (!x->late || x->t <= r.t || !rpl_eof_of(p, &r, x))
			continue;
		x->t = r.t - 1 > own ? r.t - 1 : own;
		x->late = x->t > own;
		sift_up(d, j);
	}
}

struct rpl_deps *rpl_deps_new(void)
{
	struct rpl_deps *d = calloc(1, sizeof(struct rpl_deps));

	if (d && !(d->seen = rpl_seen_new())) {
		free(d);
		d = NULL;
	}
	return d;
}

int rpl_deps_add(struct rpl_plan *p, struct rpl_deps *d, uint32_t oi, const uint64_t *keys,
		 int frees)
{
	struct pend *e;
	int err;

	if ((err = order_until(p, d, p->ops[oi].ev.t_enter)) < 0 || !keys[0])
		goto out;	/* no key: no order to keep */
	RPL_GROW(d->heap, d->n_heap, d->cap_heap);
	e = &d->heap[d->n_heap];
	e->t = rpl_op_order_time(&p->ops[oi]);
	e->frees = frees != 0;
	e->late = 0;
	e->op = oi;
	for (e->nk = 0; e->nk < RPL_MAXRES && keys[e->nk]; e->nk++)
		e->keys[e->nk] = keys[e->nk];
	if (frees == 2) {
		int64_t t = e->t;

		e->t = freed_at(p, d, e);
		e->late = e->t > t;
	}
	if ((err = rpl_seen_add(d->seen, &p->ops[oi], e->keys, e->nk, &e->at)) < 0)
		goto out;
	e->data = (uint8_t)err;
	e->reads = (uint16_t)rpl_seen_looks(err, e->at);
	if (e->reads)
		d->n_looks[e->data]++;
	err = 0;
	eof_lowers(p, d, sift_up(d, d->n_heap++));
out:
	return err;
}

/*
 * A dependency names the op it waits for by its position in that op's
 * thread, which the executor counts (rpl_thread.n_done).  While the
 * threads are planned it names the op by its index in plan.ops, and
 * each thread's ops are in ascending order: the position is found in its
 * list.  Kept aside per op until then, the position took 4 bytes an op
 * at the plan's peak (and the pid before it, in the same word); the op
 * has no room for either.
 *
 * The deps come in about the order of the ops they name, so each
 * search starts from where the last one in that thread ended and
 * widens from there (1, 2, 4, ... ops) before it halves: a search of
 * the whole list was a cache miss a step on long traces (3.6 % of the
 * plan's time at 1 M events).  The same position either way: the first
 * one whose op is not below the dep's.
 */
size_t rpl_position_of(const struct rpl_thread *t, uint32_t on, size_t from)
{
	size_t n = t->n_ops, lo, hi, step = 1;

	if (from < n && t->ops[from] < on) {
		/* after from: all before lo are below, all from hi not */
		for (lo = hi = from + 1; hi < n && t->ops[hi] < on; step *= 2) {
			lo = hi + 1;
			hi += step;
		}
		if (hi > n)
			hi = n;
	} else {
		for (hi = lo = from < n ? from : n; lo > 0 && t->ops[lo - 1] >= on; step *= 2) {
			hi = lo - 1;
			lo = hi > step ? hi - step : 0;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ops[mid] < on)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int name_positions(struct rpl_plan *p)
{
	uint32_t *last = calloc(p->n_threads ? p->n_threads : 1, sizeof(*last));
	size_t i;

	if (!last)
		return -ENOMEM;
	for (i = 0; i < p->n_deps; i++) {
		struct rpl_dep *dep = &p->deps[i];

		dep->pos = last[dep->thread] =
			(uint32_t)rpl_position_of(&p->threads[dep->thread], dep->pos,
						  last[dep->thread]);
	}
	free(last);
	return 0;
}

int rpl_deps_finish(struct rpl_plan *p, struct rpl_deps *d)
{
	int err = order_until(p, d, INT64_MAX);

	return err < 0 ? err : name_positions(p);
}

void rpl_deps_free(struct rpl_deps *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n_ps; i++) {
		free(d->ps[i].w_op);
		free(d->ps[i].w_end);
	}
	free(d->ps);
	free(d->look.v);
	free(d->name.v);
	free(d->heap);
	free(d->last_of);
	free(d->held);
	rpl_map_free(&d->pipes);
	rpl_seen_free(d->seen);
	rpl_table_free(d->res.s, d->res.cap * sizeof(*d->res.s));
	free(d->files);
	free(d);
}
