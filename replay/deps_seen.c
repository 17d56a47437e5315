/*
 * deps_seen.c - what an op's result shows came first, for resource order
 * (deps.c): when an op is ordered, the ops still pending (running at its
 * time as recorded) of other threads that its answer shows came before
 * it are ordered first, now: a create its look-up found, or a removal
 * after which it found nothing, and the reverse seen from the change; an
 * unlock that let its lock through, a lock granted that refused it; and
 * by what seen.c models, a read's byte count, an access's answer, a
 * listing's bytes (rpl_pull_seen()).  Ordered by their ends alone, such
 * calls replayed in the order the recorder's latency gave them and got
 * other answers.  A file of its own beside deps.c, which keeps the
 * resources' last changes, the pipes and the heap of pending ops it takes
 * them from.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>

#include "rpl.h"
#include "deps_int.h"

/*
 * Two threads' calls on one path that overlapped when recorded are
 * ordered by when their effects counted, mostly their ends; but a look-up
 * that found the path, or did not, tells on which side of the other
 * call's change it came.  Two sqlite3 writers: one's stat of the journal
 * overlapped the other's create of it, both ending within a microsecond;
 * the stat, ordered first, found nothing when replayed (1 recording in
 * 10 of that pair).  So when an op is ordered, the ops still pending on
 * its path (running at its time as recorded, other threads') whose
 * effect its result shows came first are ordered before it, now: a create
 * that a look-up found (not an open with O_CREAT alone of a name that
 * the ops ordered so far left there, which makes none: seen.c), a
 * removal after which it found nothing; a look-up that missed the name a
 * create makes, or found the one a removal takes.  Each had entered by
 * then, so its effect may have counted then, and every dependency still
 * points to an earlier time.
 * Likewise a read's byte count (seen.c): a read that returned bytes past
 * the size the writes ordered so far give its file follows the pending
 * writes that make it so long (tail -f woken by an append, whose return
 * the ptrace backend's in-process path recorded 20-380 us after the
 * read's: replayed first, the read got 0 bytes), and a read that met
 * the end of the file comes before a write that makes it longer, after
 * a truncate that cut it so short; and an
 * access's answer, by the mode the chmods ordered so far give the file
 * (a watcher's access(X_OK) woken by another process's chmod 0755); and
 * a listing's byte count, by the bytes of the names the creates and
 * removals ordered so far leave in its directory (a hot folder's monitor
 * listing at each create).
 * Only the first PULL_SCAN pending ops are looked at (about one per
 * thread in a call: a few).
 */
#define PULL_SCAN 64
enum { SAW_NONE = 0, SAW_THERE, SAW_GONE };

/* What look-up @op found at its path: SAW_THERE, SAW_GONE or SAW_NONE */
static int saw_of(const struct rpl_op *op, const struct iot_syscall *sc)
{
	if (!op->ev.path || !sc || sc->cls == IOT_CLASS_PROCESS)
		return SAW_NONE;
	if (op->ev.ret == -ENOENT)
		return SAW_GONE;
	/* mkdir, link, an O_EXCL create of a name that is there */
	if (op->ev.ret == -EEXIST && (sc->flags & IOT_SCF_NAMES))
		return SAW_THERE;
	return op->ev.ret >= 0 ? SAW_THERE : SAW_NONE;
}

/* The names a successful @op makes (@made) or removes (@gone), each
 * NULL if none */
static void names_changed(const struct rpl_op *op, const struct iot_syscall *sc,
			  const char **made, const char **gone)
{
	int i;

	*made = *gone = NULL;
	if (op->ev.ret < 0 || !sc || !(sc->flags & IOT_SCF_NAMES))
		return;
	switch (op->ev.nr) {
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir:
		*gone = op->ev.path;
		return;
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
		if (op->ev.nr == SYS_renameat2 && (op->ev.args[4] & RENAME_EXCHANGE))
			return;	/* both are there before and after */
		*gone = op->ev.path;
		*made = op->ev.path2;
		return;
	case SYS_link: case SYS_linkat:
		*made = op->ev.path2;
		return;
	}
	i = rpl_open_flags_arg(sc);
	if (i < 0 || (op->ev.args[i] & O_CREAT))
		*made = op->ev.path;	/* mkdir, mknod, symlink, creat, open(O_CREAT) */
}

/*
 * Did the op whose keys are @keys (@nk of them) only look at its path?
 * A FIFO's open is a look whatever its flags say (plan_pipes.c): the shell's
 * `exec 8>fifo` opens with O_CREAT|O_TRUNC a FIFO that is there, and
 * makes no name.  Taken for one that made it, it was ordered before the
 * reader's open that found the FIFO, where the writer's open, which waits
 * for a reader, overlapped it and ended after it: the reader was held
 * until the writers' opens gave up waiting (a second each, ops_file.c).
 */
static int looked_only(const uint64_t *keys, uint32_t nk)
{
	return nk && (keys[0] & RPL_KEY_LOOK);
}

/* Whether pending op @yp came before @x on the path @x looked up or
 * changed (x_saw, or x_made / x_gone, key @k of it) */
static int came_first(const struct rpl_plan *p, const struct pend *yp, uint64_t k, int x_saw,
		      const char *x_made, const char *x_gone)
{
	const struct rpl_op *y = &p->ops[yp->op];
	const struct iot_syscall *sc = iot_syscall_by_nr(y->ev.nr);
	const char *made, *gone;
	int saw;

	if (x_saw) {
		if (looked_only(yp->keys, yp->nk))
			return 0;
		names_changed(y, sc, &made, &gone);
		if (x_saw == SAW_THERE)
			return made && rpl_path_key(made) == k;
		return gone && rpl_path_key(gone) == k;
	}
	/* @x changed its names: @y is a look-up that saw them before */
	if (!rpl_only_looks(sc, y))
		return 0;
	saw = saw_of(y, sc);
	if (!saw || rpl_path_key(y->ev.path) != k)
		return 0;
	return (saw == SAW_GONE && x_made && rpl_path_key(x_made) == k) ||
	       (saw == SAW_THERE && x_gone && rpl_path_key(x_gone) == k);
}

/*
 * Locks likewise.  Two processes' lock calls on one file that overlapped
 * as recorded: an unlock that the recorder saw return late (its exit
 * stop delayed 0.6-1.1 ms) ended after the other process's lock of the
 * same bytes that it let through; ordered by their ends, the lock was
 * replayed first and refused (sqlite3's two writers: 3 of 78 recordings
 * by the sanitized recorder, one with a late read lock and a write lock
 * it refused, granted when replayed).  So a lock granted follows the pending
 * unlocks of other owners that free bytes it asks for, and a lock
 * refused the pending locks granted to other owners that are in its way.
 * Neither can change the answer of the op it is put before: an unlock
 * only takes conflicts away, a refused lock changes nothing.
 */
enum { LK_TAKE = 1, LK_FREE };

struct lk {
	int what;		/* LK_TAKE, LK_FREE */
	int wr;			/* a write (exclusive) lock */
	int flock;		/* flock(): a lock of its own kind */
	int posix;		/* F_SETLK(W): owned by its process */
	int waits;		/* F_SETLKW, F_OFD_SETLKW, flock() without LOCK_NB */
	uint64_t lo, hi;	/* the bytes, [lo, hi) */
};

/* The lock @op takes or frees (0: none of either: a test, an error
 * other than a refusal, its struct not recorded) */
static int lock_of(const struct rpl_op *op, struct lk *l)
{
	const int64_t *a = op->ev.args;
	struct flock fl;
	int64_t start, len;
	int how;

	memset(l, 0, sizeof(*l));
	l->hi = UINT64_MAX;
	if (op->ev.nr == SYS_flock) {
		how = (int)a[1] & ~LOCK_NB;
		l->flock = 1;
		l->waits = !(a[1] & LOCK_NB);
		l->what = how == LOCK_UN ? LK_FREE : LK_TAKE;
		l->wr = how == LOCK_EX;
		return how == LOCK_UN || how == LOCK_SH || how == LOCK_EX;
	}
	if (op->ev.nr != SYS_fcntl || !iot_fcntl_lock(a[1]) || a[1] == F_GETLK ||
	    a[1] == F_OFD_GETLK || rpl_op_flock(op, &fl) < 0)
		return 0;
	l->posix = a[1] == F_SETLK || a[1] == F_SETLKW;
	l->waits = a[1] == F_SETLKW || a[1] == F_OFD_SETLKW;
	l->what = fl.l_type == F_UNLCK ? LK_FREE : LK_TAKE;
	l->wr = fl.l_type == F_WRLCK;
	if (fl.l_type != F_UNLCK && fl.l_type != F_RDLCK && fl.l_type != F_WRLCK)
		return 0;
	/* from the file's start only; from its offset or end: any byte */
	if (fl.l_whence != SEEK_SET)
		return 1;
	start = fl.l_start;
	len = fl.l_len;
	if (len < 0) {
		start += len;
		len = -len;
	}
	if (start < 0)
		return 1;
	l->lo = (uint64_t)start;
	l->hi = len ? (uint64_t)start + (uint64_t)len : UINT64_MAX;
	return 1;
}

/* Is @op a lock taken and granted? */
static int lock_granted(const struct rpl_op *op)
{
	struct lk l;

	return op->ev.ret == 0 && lock_of(op, &l) && l.what == LK_TAKE;
}

/* Does op @o, another thread's than exit @op's, show that the locks of
 * @keys that @op lets go were free by its end: @op's process reaped, or
 * one of them granted to another process? */
static int freed_by(const struct rpl_plan *p, const struct rpl_op *op, const uint64_t *keys,
		    int nk, const struct rpl_op *o)
{
	int32_t pid = p->procs[p->threads[op->thread].proc].pid;
	int j;

	if (o->ev.nr == SYS_wait4 && o->ev.ret == pid)
		return 1;
	if (o->ev.tid == op->ev.tid || !o->ev.path || !lock_granted(o))
		return 0;
	for (j = 0; j < nk && keys[j]; j++)
		if (keys[j] == rpl_locks_key(o->ev.path))
			return 1;
	return 0;
}

int64_t rpl_freed_at(const struct rpl_plan *p, uint32_t oi, const uint64_t *keys)
{
	const struct rpl_op *op = &p->ops[oi];
	int64_t at = p->procs[p->threads[op->thread].proc].reaped_at;
	size_t i;

	/* a reap that began before the exit was planned before it */
	if (at <= op->ev.t_enter)
		at = INT64_MAX;
	for (i = oi + 1; i < p->n_ops && i <= oi + FREED_SCAN && p->ops[i].ev.t_enter < at; i++)
		if (freed_by(p, op, keys, RPL_MAXRES, &p->ops[i]) && rpl_op_end(&p->ops[i]) < at)
			at = rpl_op_end(&p->ops[i]);
	return at;
}

/*
 * A read of end of file on a pipe whose last write end an exit closes is
 * a sign of its end as well: the kernel closes an ending process's files
 * together, its pipes' and its locks'.  `flock -s lk cat f | wc -l`: wc's
 * read of the end returned before the shell reaped flock; counted at the
 * reap, the exit came after that read in the pipe's order, and the read
 * waited for the end that only the exit brings until the wait was given
 * up (EAGAIN, 2 s each).  A read that entered after the exit lowers it
 * when it is planned (deps.c rpl_deps_add()).
 */
int rpl_eof_of(const struct rpl_plan *p, const struct pend *h, const struct pend *e)
{
	const struct rpl_op *o = &p->ops[h->op];
	int i, j;

	if (o->ev.ret != 0 || o->thread == p->ops[e->op].thread)
		return 0;
	for (i = 0; i < h->nk; i++) {
		if ((h->keys[i] & (RPL_KEY_PIPE | RPL_KEY_LOOK)) != (RPL_KEY_PIPE | RPL_KEY_LOOK))
			continue;
		for (j = 0; j < e->nk; j++)
			if ((e->keys[j] & (RPL_KEY_PIPE | RPL_KEY_LOOK | RPL_KEY_LOOSE)) == RPL_KEY_PIPE &&
			    (e->keys[j] & ~RPL_KEY_HOW) == (h->keys[i] & ~RPL_KEY_HOW))
				return 1;
	}
	return 0;
}

int64_t rpl_freed_pending(const struct rpl_plan *p, const struct rpl_deps *d, const struct pend *e)
{
	const struct rpl_op *op = &p->ops[e->op];
	int64_t at = e->t;
	size_t i;

	for (i = 0; i < d->n_heap; i++)
		if (d->heap[i].t < at && p->ops[d->heap[i].op].thread != op->thread &&
		    (freed_by(p, op, e->keys, e->nk, &p->ops[d->heap[i].op]) ||
		     rpl_eof_of(p, &d->heap[i], e)))
			at = d->heap[i].t;
	return at;
}

static int lk_refused(const struct rpl_op *op)
{
	return op->ev.ret == -EAGAIN || op->ev.ret == -EACCES;
}

/* Do locks @a and @b, of two owners, stand in each other's way? */
static int lk_conflict(const struct lk *a, const struct lk *b)
{
	return a->flock == b->flock && a->lo < b->hi && b->lo < a->hi && (a->wr || b->wr);
}

/*
 * Whether lock @ly, granted to pending op @y, may have waited in the
 * kernel while a refusal ordered now was answered, and so was not what
 * refused it: it is a lock that waits (F_SETLKW, flock() without
 * LOCK_NB), or it stood in the way of @held, the last change of the
 * file's locks ordered so far (NO_OP: none), another process's lock,
 * whose release is not ordered yet.  A wait pulled ahead of the refusal
 * comes before what freed its bytes, which the refusal precedes, and
 * gives up: tdb's four writers, a chain lock waited for while the others'
 * transactions took the whole-file read lock piece by piece, each piece
 * refused pulling the wait (26 mismatches, 11 s for 0.17 s).  LMDB's
 * lock file at open: the first process holds a write lock on byte 0 and
 * later makes it a read lock; the second, refused the write lock, waits
 * for a read lock (F_SETLKW); the third's write lock, refused while the
 * second waited, pulled that wait ahead of it, and so ahead of the
 * downgrade, which followed the refusal: the wait gave up after a second.
 */
static int lk_waited(const struct rpl_plan *p, const struct rpl_op *y, const struct lk *ly,
		     uint32_t held)
{
	const struct rpl_op *z;
	struct lk lz;

	if (ly->waits)
		return 1;
	if (held == NO_OP)
		return 0;
	z = &p->ops[held];
	return lock_of(z, &lz) && lz.what == LK_TAKE && z->ev.ret == 0 &&
	       p->threads[z->thread].proc != p->threads[y->thread].proc && lk_conflict(&lz, ly);
}

/*
 * Whether pending op @y (its lock @ly) frees bytes for read lock @lx,
 * granted to op @x, as an unlock would: @y makes a read lock of the
 * write lock @held, the last change of the file's locks, of its own
 * process (on bytes it overlaps), which stood in @x's way.  Recorded by
 * ptrace, LMDB's downgrade (above) returned after the two waits it let
 * through: its exit stop came later than theirs, and ordered by the
 * ends, the waits came first and gave up.
 */
static int lk_downgrade(const struct rpl_plan *p, const struct rpl_op *x, const struct lk *lx,
			const struct rpl_op *y, const struct lk *ly, uint32_t held)
{
	const struct rpl_op *z;
	struct lk lz;

	if (held == NO_OP || lx->wr || ly->wr)
		return 0;
	z = &p->ops[held];
	return lock_of(z, &lz) && lz.what == LK_TAKE && lz.wr && z->ev.ret == 0 &&
	       p->threads[z->thread].proc == p->threads[y->thread].proc &&
	       p->threads[z->thread].proc != p->threads[x->thread].proc && lk_conflict(&lz, lx) &&
	       lk_conflict(&lz, ly);
}

/*
 * And a lock let go, by an unlock or by a close, exec or exit that
 * closed what it was taken through (plan_locks.c rpl_held_lock(): struct
 * pend.frees), and another process's try without waiting that it
 * refused.  The try may have entered before the unlock took effect and
 * returned after it: recorded by ptrace, a sqlite3 writer's F_SETLK
 * entered 50 us before another's F_UNLCK of the read lock in its way and
 * returned 40 us after it; ordered by its end, it came after the unlock
 * and was granted (2 such tries among 9528 lock calls of four writers,
 * in every replay, and the writer's next locks went another way).  So a
 * lock let go comes after the pending tries of other processes that it
 * refused, on the bytes it lets go (a close's or exit's: any), and a
 * lock granted after the pending close, exec or exit that let the
 * file's locks go, as after an unlock.  An op pulled so is ordered with
 * what its own answer shows came first (up to PULL_DEPTH deep): a try
 * pulled ahead of an unlock after the lock granted in its way, a close
 * pulled ahead of a lock after the tries it refused.
 */
#define PULL_DEPTH 3

/* Does pending op @e let go the locks of key @k (a close, exec or exit:
 * plan_locks.c rpl_held_lock())? */
static int lets_go(const struct pend *e, uint64_t k)
{
	uint8_t j;

	for (j = 0; e->frees && j < e->nk; j++)
		if (e->keys[j] == k)
			return 1;
	return 0;
}

/* Whether pending op @y is a try without waiting, of another thread
 * than close, exec or exit @x (and of another process, for a record
 * lock), that the locks @x lets go refused */
static int refused_by(const struct rpl_plan *p, const struct pend *x, const struct rpl_op *y)
{
	const struct rpl_op *op = &p->ops[x->op];
	struct lk ly;

	return lk_refused(y) && lock_of(y, &ly) && ly.what == LK_TAKE && y->ev.path &&
	       (!ly.posix || p->threads[y->thread].proc != p->threads[op->thread].proc) &&
	       lets_go(x, rpl_locks_key(y->ev.path));
}

/*
 * Whether unlock @y (its lock @ly) let go no more than read locks: going
 * back through its thread, at most FREES_SCAN ops, the locks it had taken
 * and been granted on those bytes of the file since it last let all of
 * them go, or took a read lock of all of them (or since it began), were
 * read locks.  A read lock granted to
 * another process then did not wait for it, and does not show that it
 * came first.  lock_flip's readers, recorded by ptrace: a reader's unlock
 * taken off its CPU for 23 ms was pulled ahead of the next read lock
 * granted to another reader, and so ahead of the writers' tries its read
 * lock refused in those 23 ms; replayed first, it let them through, and
 * 19,000-36,000 of 170,000 lock calls went another way (1 recording in
 * 80, on a loaded machine).  Nor was a read lock refused by such an
 * unlock's lock: a reader's try taken off its CPU for 19 ms before the
 * kernel refused it, for a writer's lock granted in those 19 ms, was
 * pulled ahead of another reader's unlock, so ahead of that writer's
 * lock, and granted (1 recording in 80 more).
 */
#define FREES_SCAN 16

static int frees_reads_only(const struct rpl_plan *p, const struct rpl_op *y, const struct lk *ly)
{
	const struct rpl_thread *t = &p->threads[y->thread];
	uint32_t yi = (uint32_t)(y - p->ops);
	uint64_t ky = rpl_path_key(y->ev.path);
	size_t lo = rpl_position_of(t, yi, 0), n;
	struct lk lz;

	if (lo >= t->n_ops || t->ops[lo] != yi)
		return 0;
	for (n = 0; lo-- > 0 && n < FREES_SCAN; n++) {
		const struct rpl_op *z = &p->ops[t->ops[lo]];

		if (z->ev.ret != 0 || !lock_of(z, &lz) || lz.flock != ly->flock ||
		    lz.hi <= ly->lo || ly->hi <= lz.lo || !z->ev.path ||
		    rpl_path_key(z->ev.path) != ky)
			continue;
		if (lz.what == LK_TAKE && lz.wr)
			return 0;
		/* a read lock over all of them (it replaced what was held
		 * there), or all let go before */
		if (lz.lo <= ly->lo && ly->hi <= lz.hi)
			return 1;
	}
	return lo == (size_t)-1;	/* back to its first op */
}

/*
 * The record locks (F_SETLK, F_SETLKW: owned by their process) that the
 * ops ordered so far hold, file by file: taken by a lock granted, let go
 * by an unlock of bytes they overlap, or by a close, exec or exit that
 * lets the file's locks go (struct pend.frees).  A try refused while the
 * ops ordered hold a lock of another process in its way needs nothing
 * pulled ahead of it: that lock refused it.  A lock granted while they
 * hold one in its way follows the release of that lock's process, none
 * other's.  Before, the last change of the file's locks stood for this
 * (lk_waited()): lock_flip's writer granted a write lock, then a reader's
 * close of its descriptor at its end; a second writer's try refused by
 * the first's lock was taken for one refused by a pending third writer's
 * lock (the last change, the close, held none), which was pulled ahead
 * of the first's unlock and refused in the replay (1 recording in 150,
 * ptrace, loaded machine).  Locks let go in part count as let go whole,
 * flock()s and open file description locks are not kept (their owner
 * is the open file), and past LK_HELD_MAX locks held at once none is
 * known: each case then pulls as the rules above say.  (The table is
 * searched whole at each lock call: a trace holding thousands of locks
 * at once would make the plan's time grow with them.)
 */
#define LK_HELD_MAX 256

struct lk_held {
	uint64_t key;			/* the file's locks (rpl_locks_key()) */
	uint32_t proc;
	struct lk l;
};

/* A lock held on the file of @key that stands in the way of @l, of
 * process @proc (@mine) or of another (its NULL: none) */
static const struct lk_held *lk_held_in_way(const struct rpl_deps *d, uint64_t key,
					    uint32_t proc, int mine, const struct lk *l)
{
	size_t i;

	for (i = 0; i < d->n_held; i++) {
		const struct lk_held *h = &d->held[i];

		if (h->key == key && (h->proc == proc) == mine && lk_conflict(&h->l, l))
			return h;
	}
	return NULL;
}

/* Does a lock held by another process than @proc on the file of @key
 * stand in the way of @l (its process's own never do)?  1: one does, and
 * *@owner is its process; 0: none does; -1: not known */
static int lk_in_way(const struct rpl_deps *d, uint64_t key, uint32_t proc, const struct lk *l,
		     uint32_t *owner)
{
	const struct lk_held *h;

	if (d->held_lost || !l->posix)
		return -1;
	if (!(h = lk_held_in_way(d, key, proc, 0, l)))
		return 0;
	*owner = h->proc;
	return 1;
}

/* Does a lock held by process @owner on the file of @key stand in the
 * way of @l? */
static int lk_owner_in_way(const struct rpl_deps *d, uint64_t key, uint32_t owner,
			   const struct lk *l)
{
	return lk_held_in_way(d, key, owner, 1, l) != NULL;
}

/* Do the locks held (lk_in_way()'s @in_way) answer lock op @x as it was
 * answered: a lock in the way of a try refused, none in the way of a
 * lock granted?  Then it needs nothing more pulled ahead of it. */
static int lk_answered(int in_way, const struct rpl_op *x)
{
	return (in_way == 1 && x->ev.ret != 0) || (in_way == 0 && x->ev.ret == 0);
}

/* The locks of process @proc on the file of @key that overlap [@lo, @hi),
 * let go */
static void lk_drop(struct rpl_deps *d, uint64_t key, uint32_t proc, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < d->n_held;) {
		const struct lk_held *h = &d->held[i];

		if (h->key == key && h->proc == proc && h->l.lo < hi && lo < h->l.hi)
			d->held[i] = d->held[--d->n_held];
		else
			i++;
	}
}

int rpl_locks_ordered(const struct rpl_plan *p, struct rpl_deps *d, const struct pend *e)
{
	const struct rpl_op *op = &p->ops[e->op];
	uint32_t proc = p->threads[op->thread].proc;
	struct lk l;
	uint8_t j;
	int err = 0;

	if (e->frees)
		for (j = 0; j < e->nk; j++)
			lk_drop(d, e->keys[j], proc, 0, UINT64_MAX);
	if (op->ev.ret != 0 || !op->ev.path || !lock_of(op, &l) || !l.posix)
		return 0;
	lk_drop(d, rpl_locks_key(op->ev.path), proc, l.lo, l.hi);
	if (l.what != LK_TAKE)
		return 0;
	if (d->n_held >= LK_HELD_MAX) {
		d->held_lost = 1;
		return 0;
	}
	RPL_GROW(d->held, d->n_held, d->cap_held);
	d->held[d->n_held++] = (struct lk_held){ .key = rpl_locks_key(op->ev.path),
						 .proc = proc, .l = l };
out:
	return err;
}

/*
 * Whether lock @ly, granted to pending op @y, waited for a lock the ops
 * ordered hold (rpl_locks_ordered()), of a process none of whose pending
 * ops lets it go: 1 it did, 0 it did not, -1 not known.  Where one of
 * them does, @y pulled ahead pulls it too (pull_one()).  lock_flip under
 * ptrace without the fast path: a writer's lock granted while a reader's
 * read lock, ordered, was being let go, and a reader's try refused in its
 * time; the last change of the file's locks, that read lock, kept the
 * write lock from being pulled (lk_waited()), and the try was granted.
 */
static int lk_held_waited(const struct rpl_plan *p, const struct rpl_deps *d,
			  const struct rpl_op *y, const struct lk *ly, uint64_t kl)
{
	uint32_t own = 0;
	int64_t t = rpl_op_order_time(y);
	size_t i;
	int in = lk_in_way(d, kl, p->threads[y->thread].proc, ly, &own);

	if (in <= 0)
		return in;
	for (i = 0; i < d->n_heap && i < PULL_SCAN; i++) {
		const struct rpl_op *o = &p->ops[d->heap[i].op];
		struct lk lo;

		if (p->threads[o->thread].proc != own || o->ev.t_enter >= t)
			continue;
		if (lets_go(&d->heap[i], kl) ||
		    (o->ev.ret == 0 && lock_of(o, &lo) && lo.what == LK_FREE && lo.posix &&
		     lo.lo < ly->hi && ly->lo < lo.hi && o->ev.path &&
		     rpl_locks_key(o->ev.path) == kl))
			return 0;
	}
	return 1;
}

/* Whether lock op @x (its lock @lx, on the file of key @k, whose locks'
 * last change ordered is @held) shows that pending op @y, another
 * thread's, came first */
static int lock_came_first(const struct rpl_plan *p, const struct rpl_deps *d,
			   const struct rpl_op *x, const struct lk *lx, uint64_t k, uint32_t held,
			   const struct rpl_op *y)
{
	struct lk ly;
	int w;

	if (!lock_of(y, &ly) || ly.flock != lx->flock ||
	    ly.hi <= lx->lo || lx->hi <= ly.lo || !y->ev.path ||
	    ((lx->posix || ly.posix) &&
	     p->threads[y->thread].proc == p->threads[x->thread].proc) ||
	    rpl_path_key(y->ev.path) != k)
		return 0;
	if (lx->what == LK_FREE && x->ev.ret == 0)
		return ly.what == LK_TAKE && lk_refused(y) && (ly.wr || !frees_reads_only(p, x, lx));
	if (y->ev.ret != 0)
		return 0;
	if (lx->what == LK_TAKE && x->ev.ret == 0)
		return (ly.what == LK_FREE && (lx->wr || !frees_reads_only(p, y, &ly))) ||
		       lk_downgrade(p, x, lx, y, &ly, held);
	if (!(lx->what == LK_TAKE && lk_refused(x) && ly.what == LK_TAKE && (lx->wr || ly.wr)))
		return 0;
	if (ly.waits)
		return !lk_waited(p, y, &ly, held);
	w = lk_held_waited(p, d, y, &ly, rpl_locks_key(y->ev.path));
	return w < 0 ? !lk_waited(p, y, &ly, held) : !w;
}

/* Whether pending op @y wrote bytes that read @x returned, or read to
 * the end of the file before write @x made it longer, or the like of a
 * chmod and an access (seen.c) */
static int data_first(const struct rpl_plan *p, const struct rpl_deps *d, const struct pend *x,
		      const struct pend *y)
{
	/* a name made or removed has its directory's key second
	 * (plan_fds.c), which a listing of it has first */
	int ky = x->data == RPL_DATA_LIST && (y->data == RPL_DATA_NAME || y->data == RPL_DATA_CREATE);
	int kx = y->data == RPL_DATA_LIST && (x->data == RPL_DATA_NAME || x->data == RPL_DATA_CREATE);

	return y->data != RPL_DATA_NONE && y->nk > ky && x->nk > kx &&
	       !(y->keys[0] & (RPL_KEY_RES | RPL_KEY_PIPE)) &&
	       !((y->keys[ky] ^ x->keys[kx]) & ~RPL_KEY_HOW) &&
	       rpl_seen_first(p, d->seen, &p->ops[x->op], x->keys, x->nk, x->data, x->at,
			      &p->ops[y->op], y->data, y->at);
}

static int pull(struct rpl_plan *p, struct rpl_deps *d, const struct pend *x, int depth);

/* Pending op @i of the heap, which the op being ordered shows came first,
 * ordered now: after what its own shows came first where it is a lock's
 * (@locks), up to PULL_DEPTH deep */
static int pull_one(struct rpl_plan *p, struct rpl_deps *d, size_t i, int locks, int depth)
{
	struct pend y;
	int err;

	rpl_heap_take(d, i, &y);
	p->order_pulled++;
	if (locks && depth + 1 < PULL_DEPTH && (err = pull(p, d, &y, depth + 1)) < 0)
		return err;
	return rpl_order_pend(p, d, &y);
}

/* Close, exec or exit @x lets locks go: the pending tries they refused
 * ordered first (above) */
static int pull_refused(struct rpl_plan *p, struct rpl_deps *d, const struct pend *x, int depth)
{
	const struct rpl_op *op = &p->ops[x->op];
	uint32_t proc = p->threads[op->thread].proc;
	size_t i;
	int err;

	for (i = 0; i < d->n_heap && i < PULL_SCAN; i++) {
		const struct rpl_op *o = &p->ops[d->heap[i].op];
		struct lk lo;

		if (o->thread == op->thread || o->ev.t_enter >= x->t || !refused_by(p, x, o))
			continue;
		/* a record lock's try: where the locks held are known, only
		 * one that a lock of @x's process stood in the way of (a
		 * reader's close does not let a read lock through) */
		if (!d->held_lost && lock_of(o, &lo) && lo.posix &&
		    !lk_owner_in_way(d, rpl_locks_key(o->ev.path), proc, &lo))
			continue;
		if ((err = pull_one(p, d, i, 1, depth)) < 0)
			return err;
		i = (size_t)-1;	/* the heap moved: from its start again */
	}
	return 0;
}

/* Before op @x is ordered: the pending ops its result shows came first,
 * ordered (above). */
int rpl_pull_seen(struct rpl_plan *p, struct rpl_deps *d, const struct pend *x)
{
	return pull(p, d, x, 0);
}

static int pull(struct rpl_plan *p, struct rpl_deps *d, const struct pend *x, int depth)
{
	const struct rpl_op *op = &p->ops[x->op];
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	const char *made = NULL, *gone = NULL;
	uint64_t km = 0, kg = 0, k = 0, kl = 0;
	uint32_t held = NO_OP, owner = 0;
	struct lk lx;
	size_t i, best;
	int saw = SAW_NONE, is_lock, err, in_way = -1, pick;
	/* a write looks for the reads that met the end of its file (none
	 * pending: most writes), a chmod for the accesses, a name made or
	 * removed for the listings */
	int data = x->reads || d->n_looks[rpl_seen_changes(x->data, x->at)];

	if (!d->n_heap || !sc)
		return 0;
	if (x->frees && (err = pull_refused(p, d, x, depth)) < 0)
		return err;
	if (!d->n_heap || !op->ev.path)
		return 0;
	is_lock = lock_of(op, &lx);
	if (is_lock) {
		k = rpl_path_key(op->ev.path);
		kl = rpl_locks_key(op->ev.path);
		held = rpl_res_last(d, kl);
		in_way = lx.what == LK_TAKE && (op->ev.ret == 0 || lk_refused(op)) ?
				 lk_in_way(d, kl, p->threads[op->thread].proc, &lx, &owner) : -1;
		/* refused by a lock the ops ordered hold; granted with none
		 * held in its way: nothing to pull for it */
		if (lk_answered(in_way, op))
			return 0;
	} else if (!looked_only(x->keys, x->nk)) {
		names_changed(op, sc, &made, &gone);
	}
	if (!is_lock && !made && !gone) {
		/* a look-up: not an open that creates or truncates */
		if (x->keys[0] & RPL_KEY_LOOK)
			saw = saw_of(op, sc);
		if (!saw && !data)
			return 0;
		if (saw)
			k = rpl_path_key(op->ev.path);
	}
	if (made)
		km = rpl_path_key(made);
	if (gone)
		kg = rpl_path_key(gone);
	/* a try refused with no lock held in its way: of the pending locks
	 * that could have refused it, the one that ended first (two
	 * writers' locks granted in one reader's try under ptrace without
	 * the fast path, the first one's 1.1 ms long: pulled, it came
	 * before the other's, which had come and gone in its time) */
	pick = is_lock && in_way == 0 && op->ev.ret != 0;
again:
	best = SIZE_MAX;
	for (i = 0; i < d->n_heap && i < PULL_SCAN; i++) {
		const struct rpl_op *o = &p->ops[d->heap[i].op];
		int first;

		if (o->thread == op->thread || o->ev.t_enter >= x->t)
			continue;
		first = is_lock ? (lock_came_first(p, d, op, &lx, k, held, o) ||
				   (lx.what == LK_TAKE && op->ev.ret == 0 &&
				    lets_go(&d->heap[i], kl) &&
				    (!lx.posix || p->threads[o->thread].proc !=
						  p->threads[op->thread].proc))) &&
				  /* granted: only the release of what stood in its way */
				  (in_way != 1 || p->threads[o->thread].proc == owner) :
			saw ? came_first(p, &d->heap[i], k, saw, NULL, NULL) &&
			      !(saw == SAW_THERE && rpl_seen_found(d->seen, o)) :
			(made && came_first(p, &d->heap[i], km, 0, made, NULL)) ||
			(gone && came_first(p, &d->heap[i], kg, 0, NULL, gone));
		if (!first && (!data || !data_first(p, d, x, &d->heap[i])))
			continue;
		if (pick) {
			if (best == SIZE_MAX || d->heap[i].t < d->heap[best].t)
				best = i;
			continue;
		}
		if ((err = pull_one(p, d, i, is_lock, depth)) < 0)
			return err;
		if (is_lock) {
			held = rpl_res_last(d, kl);
			/* a try refused: until a lock is in its way; a lock
			 * granted: until none is */
			if (in_way >= 0 && (in_way == 0 || !lk_owner_in_way(d, kl, owner, &lx)))
				in_way = lk_in_way(d, kl, p->threads[op->thread].proc, &lx,
						   &owner);
			if (lk_answered(in_way, op))
				break;
		}
		i = (size_t)-1;	/* the heap moved: from its start again */
	}
	if (pick && best != SIZE_MAX) {
		if ((err = pull_one(p, d, best, 1, depth)) < 0)
			return err;
		held = rpl_res_last(d, kl);
		if (lk_in_way(d, kl, p->threads[op->thread].proc, &lx, &owner) == 0)
			goto again;
	}
	return 0;
}
