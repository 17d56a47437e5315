/*
 * fdtab.c - recorded descriptor -> live descriptor, per recorded process.
 *
 * The same table serves the plan (entries carry open-file resource ids,
 * no live descriptor) and the run (entries own live descriptors, which a
 * fork copy dups and a drop closes).  Recorded numbers are indices; the
 * live numbers never need to match them.  The plan's tables also count,
 * across all of them, the entries that hold each pipe end (rpl_fdends:
 * one more as an entry is set, dup'ed or copied with its table, one
 * fewer as it is dropped: a close, exec, a dup2 over it, the table's
 * end), so that the planner asks it of a close instead of reading every
 * table (plan_fds.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

/* The tables made so far: each one's serial number (rpl_fdtab.serial). */
static _Atomic uint64_t tables_made;

struct rpl_fdtab *rpl_fdtab_new(int real)
{
	struct rpl_fdtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	atomic_init(&t->refs, 1);
	t->real = real;
	t->serial = atomic_fetch_add(&tables_made, 1) + 1;
	return t;
}

struct rpl_fdtab *rpl_fdtab_ref(struct rpl_fdtab *t)
{
	atomic_fetch_add(&t->refs, 1);
	return t;
}

/*
 * Every call locks the table, unless only one thread can be using it: a
 * table made for a process of one recorded thread (rpl_fdtab_single())
 * that no other process shares (refs 1).  Another process takes a
 * reference only in that one thread's clone op, before its own thread
 * starts, and drops it as the last thing it does with the table, so the
 * count read here is that thread's to trust.  The mutex costs two atomic
 * operations per call, some 12 ns on every op that names a descriptor.
 * A plan table (not real) is the planner's alone, one thread's: never
 * locked (the plan's ops name descriptors too).
 */
static int tab_lock(struct rpl_fdtab *t)
{
	if (!t->real ||
	    (t->single && atomic_load_explicit(&t->refs, memory_order_acquire) == 1))
		return 0;
	pthread_mutex_lock(&t->lock);
	return 1;
}

static void tab_unlock(struct rpl_fdtab *t, int locked)
{
	if (locked)
		pthread_mutex_unlock(&t->lock);
}

void rpl_fdtab_single(struct rpl_fdtab *t)
{
	t->single = 1;
}

/* One more (@d 1) or one fewer (-1) entry holding @e's pipe end, in
 * the count plan tables keep (rpl_fdends). */
static inline void count_end(const struct rpl_fdtab *t, const struct rpl_fd *e, int d)
{
	if (t->ends && e->end && e->state != RPL_FD_FREE)
		t->ends->n[e->end] += (uint32_t)d;
}

static void drop_entry(struct rpl_fdtab *t, struct rpl_fd *e)
{
	if (t->real && e->state == RPL_FD_LIVE && e->live >= 0)
		close(e->live);
	count_end(t, e, -1);
	memset(e, 0, sizeof(*e));
}

void rpl_fdtab_unref(struct rpl_fdtab *t)
{
	uint32_t i;
	int last;

	if (!t)
		return;
	last = atomic_fetch_sub(&t->refs, 1) == 1;
	if (!last)
		return;
	for (i = 0; i < t->n; i++)
		drop_entry(t, &t->v[i]);
	free(t->v);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Make room for index @fd; the caller holds the lock. */
static int grow(struct rpl_fdtab *t, long fd)
{
	uint32_t n = t->n ? t->n : 16;
	struct rpl_fd *v;

	if (fd < 0 || fd >= RPL_FD_MAX)
		return -EBADF;
	if ((uint32_t)fd < t->n)
		return 0;
	while (n <= (uint32_t)fd)
		n *= 2;
	v = realloc(t->v, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + t->n, 0, (n - t->n) * sizeof(*v));
	t->v = v;
	t->n = n;
	return 0;
}

/* A live copy of @e for another table or number. */
static int copy_entry(struct rpl_fdtab *t, const struct rpl_fd *e, struct rpl_fd *out)
{
	*out = *e;
	if (t->real && e->state == RPL_FD_LIVE && e->live >= 0) {
		out->live = fcntl(e->live, F_DUPFD_CLOEXEC, 0);
		if (out->live < 0)
			return -errno;
	}
	return 0;
}

/* The copy of @t, which the caller has locked; @dup: live entries get
 * descriptors of their own, else they keep @t's numbers. */
static struct rpl_fdtab *copy_locked(struct rpl_fdtab *t, int dup)
{
	struct rpl_fdtab *c = rpl_fdtab_new(t->real);
	uint32_t i;

	if (!c)
		return NULL;
	if (t->n) {
		c->v = calloc(t->n, sizeof(*c->v));
		if (!c->v) {
			rpl_fdtab_unref(c);
			return NULL;
		}
		c->n = t->n;
	}
	c->ends = t->ends;
	for (i = 0; i < t->n; i++) {
		if (t->v[i].state == RPL_FD_FREE)
			continue;
		if (!dup) {
			c->v[i] = t->v[i];
		} else if (copy_entry(t, &t->v[i], &c->v[i]) < 0) {
			/* Out of descriptors: the child sees this one as not replayed. */
			c->v[i] = t->v[i];
			c->v[i].state = RPL_FD_SKIP;
			c->v[i].live = -1;
		}
		count_end(c, &c->v[i], 1);
	}
	return c;
}

struct rpl_fdtab *rpl_fdtab_copy(struct rpl_fdtab *t)
{
	struct rpl_fdtab *c;

	pthread_mutex_lock(&t->lock);
	c = copy_locked(t, 1);
	pthread_mutex_unlock(&t->lock);
	return c;
}

/*
 * The replayer is one process: its threads share one kernel descriptor
 * table, and the kernel then takes a reference on the open file in every
 * call on a descriptor (fdget/fput), which a single-threaded program does
 * not pay: a native `cp -a` with one idle thread beside it ran 3 % slower
 * here.  So each replayed process's first thread takes a table of its own
 * (unshare(CLONE_FILES)), as a forked process has one: the copy holds the
 * parent's descriptors under the numbers its entries name.  @parent is
 * locked meanwhile, so that a sibling thread of the parent's cannot close
 * or reuse a number between the two copies (its parent thread waits for
 * this one in rpl_thread_start(), as fork returns to it after the copy).
 */
struct rpl_fdtab *rpl_fdtab_fork(struct rpl_fdtab *parent, int *own)
{
	struct rpl_fdtab *c;

	*own = 0;
	if (!parent) {
		*own = unshare(CLONE_FILES) == 0;
		return rpl_fdtab_new(1);
	}
	pthread_mutex_lock(&parent->lock);
	*own = unshare(CLONE_FILES) == 0;
	c = copy_locked(parent, !*own);
	pthread_mutex_unlock(&parent->lock);
	return c;
}

/*
 * fd's worker threads each make close-on-exec pipes and spawn a child
 * that dups them onto 1 and 2 and execs: a child forked here after the
 * other thread's pipe2, which when recorded came after the fork, held
 * that thread's write ends until its exec, which the plan puts after the
 * other thread's read of end of file, as recorded: the read met EAGAIN
 * after 2 s of waiting (136-154 mismatches, the replay twice as long).
 */
void rpl_fdtab_drop_after(struct rpl_fdtab *t, int64_t t_ns)
{
	uint32_t i;

	if (!t || !t->real || t_ns <= 0)
		return;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->n; i++)
		if (t->v[i].state != RPL_FD_FREE && t->v[i].made_ns > t_ns)
			drop_entry(t, &t->v[i]);
	pthread_mutex_unlock(&t->lock);
}

void rpl_fdtab_drop_closed(struct rpl_fdtab *t, const struct rpl_fork_closes *fc)
{
	uint32_t k;
	int64_t i;

	if (!t || !t->real || !fc->n)
		return;
	pthread_mutex_lock(&t->lock);
	for (k = 0; k < fc->n; k++)
		for (i = fc->v[k].lo < 0 ? 0 : fc->v[k].lo; i <= fc->v[k].hi && i < (int64_t)t->n; i++)
			if (t->v[i].state != RPL_FD_FREE && t->v[i].made_ns < fc->v[k].t_ns)
				drop_entry(t, &t->v[i]);
	pthread_mutex_unlock(&t->lock);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void rpl_fdtab_close_others(struct rpl_fdtab *t, int keep, int keep2, int keep3,
			    const int *more, uint32_t n_more)
{
	int *k = malloc((t->n + 4 + (size_t)n_more) * sizeof(*k));
	unsigned int from = 3;
	uint32_t i, n = 0;

	if (!k)
		return;		/* they stay open: nothing but a leak */
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->n; i++)
		if (t->v[i].state == RPL_FD_LIVE && t->v[i].live > 2)
			k[n++] = t->v[i].live;
	pthread_mutex_unlock(&t->lock);
	if (keep > 2)
		k[n++] = keep;
	if (keep2 > 2)
		k[n++] = keep2;
	if (keep3 > 2)
		k[n++] = keep3;
	for (i = 0; i < n_more; i++)
		if (more[i] > 2)
			k[n++] = more[i];
	qsort(k, n, sizeof(*k), cmp_int);
	for (i = 0; i < n; i++) {
		if ((unsigned int)k[i] > from)
			syscall(SYS_close_range, from, (unsigned int)k[i] - 1, 0);
		if ((unsigned int)k[i] >= from)
			from = (unsigned int)k[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0);
	free(k);
}

__thread int64_t rpl_fd_made_ns;

int rpl_fdtab_set(struct rpl_fdtab *t, long fd, const struct rpl_fd *e)
{
	int locked;
	int err;

	locked = tab_lock(t);
	err = grow(t, fd);
	if (err == 0) {
		drop_entry(t, &t->v[fd]);
		t->v[fd] = *e;
		t->v[fd].made_ns = t->real ? rpl_fd_made_ns : t->made_ns;
		count_end(t, e, 1);
	}
	tab_unlock(t, locked);
	return err;
}

int rpl_fdtab_get(struct rpl_fdtab *t, long fd, struct rpl_fd *e)
{
	int locked;
	int err = -EBADF;

	locked = tab_lock(t);
	if (fd >= 0 && fd < (long)t->n && t->v[fd].state != RPL_FD_FREE) {
		*e = t->v[fd];
		err = 0;
	}
	tab_unlock(t, locked);
	return err;
}

int rpl_fdtab_close(struct rpl_fdtab *t, long fd)
{
	int locked;
	int err = -EBADF;

	locked = tab_lock(t);
	if (fd >= 0 && fd < (long)t->n && t->v[fd].state != RPL_FD_FREE) {
		drop_entry(t, &t->v[fd]);
		err = 0;
	}
	tab_unlock(t, locked);
	return err;
}

int rpl_fdtab_dup(struct rpl_fdtab *t, long oldfd, long newfd, int cloexec)
{
	int locked;
	struct rpl_fd e;
	int err;

	locked = tab_lock(t);
	err = -EBADF;
	if (oldfd < 0 || oldfd >= (long)t->n || t->v[oldfd].state == RPL_FD_FREE)
		goto out;
	err = 0;
	if (oldfd == newfd)		/* dup2(fd, fd): nothing changes */
		goto out;
	err = grow(t, newfd);
	if (err)
		goto out;
	err = copy_entry(t, &t->v[oldfd], &e);
	if (err)
		goto out;
	e.cloexec = cloexec != 0;
	e.made_ns = t->real ? rpl_fd_made_ns : t->made_ns;
	drop_entry(t, &t->v[newfd]);
	t->v[newfd] = e;
	count_end(t, &e, 1);
out:
	tab_unlock(t, locked);
	return err;
}

int rpl_fdtab_close_range(struct rpl_fdtab *t, unsigned long first,
			  unsigned long last, unsigned int flags)
{
	int locked;
	unsigned long i;

	locked = tab_lock(t);
	for (i = first; i <= last && i < t->n; i++) {
		if (t->v[i].state == RPL_FD_FREE)
			continue;
		if (flags & CLOSE_RANGE_CLOEXEC)
			t->v[i].cloexec = 1;
		else
			drop_entry(t, &t->v[i]);
	}
	tab_unlock(t, locked);
	return 0;
}

int rpl_fdtab_set_cloexec(struct rpl_fdtab *t, long fd, int on)
{
	int locked;
	int err = -EBADF;

	locked = tab_lock(t);
	if (fd >= 0 && fd < (long)t->n && t->v[fd].state != RPL_FD_FREE) {
		t->v[fd].cloexec = on != 0;
		err = 0;
	}
	tab_unlock(t, locked);
	return err;
}

int rpl_fdtab_mark(struct rpl_fdtab *t, long fd, int flags)
{
	int locked;
	int err = -EBADF;

	locked = tab_lock(t);
	if (fd >= 0 && fd < (long)t->n && t->v[fd].state != RPL_FD_FREE) {
		t->v[fd].marks |= (uint8_t)flags;
		err = 0;
	}
	tab_unlock(t, locked);
	return err;
}

void rpl_fdtab_each_live(struct rpl_fdtab *t, unsigned long first, unsigned long last,
			 int cloexec, void (*fn)(void *arg, int live), void *arg)
{
	int locked;
	unsigned long i;

	locked = tab_lock(t);
	for (i = first; i <= last && i < t->n; i++)
		if (t->v[i].state == RPL_FD_LIVE && t->v[i].live >= 0 &&
		    (!cloexec || t->v[i].cloexec))
			fn(arg, t->v[i].live);
	tab_unlock(t, locked);
}

int rpl_fdtab_exec(struct rpl_fdtab *t)
{
	int locked;
	uint32_t i;
	int n = 0;

	locked = tab_lock(t);
	for (i = 0; i < t->n; i++) {
		if (t->v[i].state != RPL_FD_FREE && t->v[i].cloexec) {
			drop_entry(t, &t->v[i]);
			n++;
		}
	}
	tab_unlock(t, locked);
	return n;
}
