/*
 * listings.c - a directory listing's getdents calls judged as one listing
 * (verify: the tally, profile.c).
 *
 * A listing returns the same entries on any filesystem, but in that
 * filesystem's order: ext4 by name hash, xfs and btrfs a small directory
 * in the order its entries were made, tmpfs in another.  Where a listing
 * takes more than one call, each call returns the entries that fit its
 * buffer in that order, so each call's byte count differs from the
 * recorded one though the listing is the same set (a directory two
 * processes filled at once, listed by ls: every getdents a mismatch
 * before).  The trace keeps what each call returned, a byte count, not
 * the names; a dirent64 record's length depends on its name's length
 * alone, so the bytes summed over a listing, from its first call to the
 * recorded end (getdents returned 0), are the same in any order.  That
 * total is compared: equal, the calls whose counts differ are a listing
 * in another order, counted apart (the summary's "listings"); not equal,
 * entries are missing or added, and those calls are mismatches.  The
 * limit: a listing whose names differ but add up to the same length (one
 * entry for another of as long a name) is not seen.
 *
 * A listing is a process's descriptor, from its first getdents to the
 * recorded end.  One the trace does not end (closed before, the descriptor
 * made anew, a seek, a call that failed on either side, the trace's end)
 * has its calls judged one by one, as every call was before, but for a
 * call that filled its buffer both times (both_full()).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "rpl.h"

/* listings going on at once; more are judged call by call */
#define LS_MAX 64

struct held {
	struct rpl_op *op;
	int64_t ret;
};

struct listing {
	int32_t pid;
	uint32_t thread;		/* the plan's thread of its last call */
	int64_t fd;
	const char *path;		/* the directory, as recorded */
	int64_t rec, rpl;		/* bytes returned, recorded and here */
	struct held *held;		/* calls whose counts differ */
	size_t n_held, cap_held;
};

struct rpl_listings {
	struct listing v[LS_MAX];
	size_t n;
	rpl_judge_fn *judge;
	void *arg;
	uint64_t reordered, calls, differ;
};

struct rpl_listings *rpl_listings_new(rpl_judge_fn *judge, void *arg)
{
	struct rpl_listings *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->judge = judge;
	l->arg = arg;
	return l;
}

static int is_getdents(const struct rpl_op *op)
{
	return op->ev.nr == SYS_getdents || op->ev.nr == SYS_getdents64;
}

/* The longest record a getdents64 returns: its 19 bytes, a name of 255
 * and its NUL, aligned to 8. */
#define DIRENT_MAX 280

/* Did both getdents @op when recorded and its replay (@ret) fill their
 * buffers, each as far as the next entry would not fit?  Then they say
 * the same: more entries than one call takes, in either order.  rm -rf
 * reads one buffer of a directory to see that it is not empty, closes
 * it and lists it again: that first call, 32,752 bytes recorded and
 * 32,768 on another ext4 (its names in another order), was a mismatch. */
static int both_full(const struct rpl_op *op, int64_t ret)
{
	int64_t cap = op->ev.args[2];

	return cap > DIRENT_MAX && op->ev.ret > cap - DIRENT_MAX && ret > cap - DIRENT_MAX &&
	       op->ev.ret <= cap && ret <= cap;
}

/* Listing @i is over: its held calls are judged one by one (@each), or
 * not at all (the listing's total matched).  Of a listing the trace does
 * not end (@each UNFINISHED), a call that filled its buffer both times
 * counts as a listing in another order; of one whose total differs,
 * every call whose count differs is judged. */
#define UNFINISHED 2

static void drop(struct rpl_listings *l, size_t i, int each)
{
	struct listing *s = &l->v[i];
	uint64_t full = 0;
	size_t k;

	for (k = 0; each && k < s->n_held; k++) {
		if (each == UNFINISHED && both_full(s->held[k].op, s->held[k].ret))
			full++;
		else
			l->judge(l->arg, s->held[k].op, s->held[k].ret);
	}
	if (full) {
		l->reordered++;
		l->calls += full;
	}
	free(s->held);
	l->v[i] = l->v[--l->n];
}

static long find(const struct rpl_listings *l, int32_t pid, int64_t fd)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].pid == pid && l->v[i].fd == fd)
			return (long)i;
	return -1;
}

/*
 * Does @sc name the descriptor it makes (dup2, dup3), closing what that
 * number was?  Another call can return the number of a listing's
 * descriptor only once that descriptor is closed, and that close is a
 * call of its own, which ends the listing; in entry order (the tally's)
 * such a call of another thread can come first: Go's build, recorded by
 * ptrace, opened the next package's directory in one thread (entered
 * 23.215263, returned 23.215528, descriptor 37) while another read its
 * listing of src/syscall on 37 to the end and closed it (23.215483): that
 * listing was judged unfinished, its last call a mismatch (5832 bytes,
 * 5856 here) though its total matched, in 3 of 3 replays.
 */
static int names_target(const struct iot_syscall *sc)
{
	return sc->nargs >= 2 && sc->arg[0] == IOT_ARG_FD && sc->arg[1] == IOT_ARG_FD;
}

/* A call of process @pid that is no getdents: does it end a listing
 * unfinished (closes its descriptor, makes that number anew, seeks)? */
static void ends(struct rpl_listings *l, const struct rpl_op *op, int32_t pid)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	size_t i;

	if (!sc)
		return;
	for (i = l->n; i-- > 0;) {
		const struct listing *s = &l->v[i];

		if (s->pid != pid)
			continue;
		if (((sc->flags & IOT_SCF_CLOSE) || op->ev.nr == SYS_lseek) && sc->nargs &&
		    sc->arg[0] == IOT_ARG_FD && op->ev.args[0] == s->fd)
			drop(l, i, UNFINISHED);
		else if ((sc->flags & IOT_SCF_RETFD) && op->ev.ret == s->fd &&
			 (op->thread == s->thread || names_target(sc)))
			drop(l, i, UNFINISHED);
		else if (op->ev.nr == SYS_close_range && op->ev.ret == 0 &&
			 (uint64_t)s->fd >= (uint64_t)op->ev.args[0] &&
			 (uint64_t)s->fd <= (uint64_t)op->ev.args[1])
			drop(l, i, UNFINISHED);
	}
}

/* rpl_listings_op() but for its first test, apart: the tally calls it
 * for every op, and inlined there, this made each call save and restore
 * the registers it uses (30 instructions an op; 11 apart, callgrind) */
static __attribute__((noinline)) int take(struct rpl_listings *l, const struct rpl_plan *p,
					  struct rpl_op *op, int64_t ret)
{
	int32_t pid = p->threads[op->thread].pid;
	struct listing *s;
	long i;

	if (!is_getdents(op)) {
		ends(l, op, pid);
		return 0;
	}
	i = find(l, pid, op->ev.args[0]);
	if (i >= 0 && (op->skip || op->ev.ret < 0 || ret < 0 || !op->ev.path || !l->v[i].path ||
		       strcmp(op->ev.path, l->v[i].path) != 0)) {
		drop(l, (size_t)i, UNFINISHED);	/* not the same listing, or one failed */
		i = -1;
	}
	if (op->skip || op->ev.ret < 0 || ret < 0)
		return 0;
	if (i < 0) {
		if (op->ev.ret == 0 && ret == 0)
			return 0;	/* an end alone: nothing to add up */
		if (l->n == LS_MAX)
			return 0;
		i = (long)l->n++;
		l->v[i] = (struct listing){ .pid = pid, .fd = op->ev.args[0], .path = op->ev.path };
	}
	s = &l->v[i];
	s->thread = op->thread;
	s->rec += op->ev.ret;
	s->rpl += ret;
	if (op->ev.ret != ret) {
		if (s->n_held == s->cap_held) {
			size_t cap = s->cap_held ? 2 * s->cap_held : 8;
			struct held *h = realloc(s->held, cap * sizeof(*h));

			if (!h) {
				/* judged one by one, this call too */
				drop(l, (size_t)i, 1);
				return 0;
			}
			s->held = h;
			s->cap_held = cap;
		}
		s->held[s->n_held++] = (struct held){ op, ret };
	}
	if (op->ev.ret == 0) {		/* the recorded end: the listing judged */
		if (s->rec != s->rpl) {
			l->differ++;
			drop(l, (size_t)i, 1);
		} else {
			if (s->n_held) {
				l->reordered++;
				l->calls += s->n_held;
			}
			drop(l, (size_t)i, 0);
		}
	}
	return op->ev.ret != ret;
}

int rpl_listings_op(struct rpl_listings *l, const struct rpl_plan *p, struct rpl_op *op,
		    int64_t ret)
{
	if (!l || (!l->n && !is_getdents(op)))
		return 0;		/* most calls: nothing to see */
	return take(l, p, op, ret);
}

void rpl_listings_end(struct rpl_listings *l, struct rpl_result *res)
{
	if (!l)
		return;
	while (l->n)
		drop(l, l->n - 1, UNFINISHED);
	res->listings_reordered += l->reordered;
	res->listing_calls += l->calls;
	res->listings_differ += l->differ;
	free(l);
}
