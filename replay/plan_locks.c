/*
 * plan_locks.c - record locks and flock()s in the plan: each file's
 * locks a key of their own, the open files a lock was taken through,
 * and the closes, execs and exits that let locks go as an unlock does.
 * Their order across processes: deps.c, deps_seen.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "plan.h"

/* The locks of the file at path-hash @h (flock's and fcntl's record
 * locks: rpl_is_lock()), a key of their own, made as plan_fds.c's names_of() is. */
uint64_t rpl_locks_of(uint64_t h)
{
	h = (h ^ 0x9e3779b97f4a7c15ULL) * IOT_HASH_M;
	return rpl_key_norm(h ^ (h >> 31));
}

uint64_t rpl_locks_key(const char *path)
{
	return rpl_locks_of(rpl_path_hash(path, strlen(path)));
}

/* Does @op take, release or test a lock?  The locks of a file keep their
 * recorded order across processes: a process that waited for another's
 * unlock follows it, a lock refused (EAGAIN) or tested (F_GETLK) comes
 * before the next change, so that the replay's locks give the recorded
 * answers (ops_file.c take_lock()).  The file's data keys are not
 * involved: what a lock guards follows it in its own thread. */
int rpl_is_lock(const struct rpl_ev *ev)
{
	return ev->nr == SYS_flock || (ev->nr == SYS_fcntl && iot_fcntl_lock(ev->args[1]));
}

/*
 * A lock goes with the descriptors that hold it: a flock() when its open
 * file's last descriptor closes, a process's record locks at its close
 * of any descriptor of the file, all of them at its exit, and those of
 * close-on-exec descriptors at an exec.  Such a close, exit or exec
 * changes the file's locks as an unlock does: the other processes' locks
 * refused before it come before it, those granted after it follow it.
 * Before, such a close was no lock call and kept no order with them:
 * a try without waiting (LOCK_NB, F_SETLK) that the holder's close had
 * refused when recorded was replayed after it, or the reverse, as the
 * replay's timing fell (tests/progs/lock_letgo).  An open file is marked
 * when a lock is first taken through it (rpl_mark_locked()), so that the
 * closes of open files never locked keep no order of locks.  The kernel
 * closes an exiting process's files tens of microseconds after its exit
 * is traced: an exit that lets a lock go for good (rpl_lets_go_for_good())
 * counts later than its entry (deps.c freed_at()), and such a close,
 * exec or exit, and an unlock, comes after the tries it refused that
 * returned after it (deps_seen.c).
 */
uint64_t rpl_held_lock(const struct rpl_planner *pl, const struct rpl_fd *f)
{
	uint32_t i;

	if (!pl->locked.n || f->state != RPL_FD_LIVE || !f->res ||
	    !rpl_map_get(&pl->locked, RPL_IK(f->res), &i) || i >= pl->n_lock_keys)
		return 0;
	return pl->lock_keys[i];
}

/* A lock granted through the open file of entry @f: its lock key @k
 * goes with that open file from now on. */
int rpl_mark_locked(struct rpl_planner *pl, const struct rpl_fd *f, uint64_t k)
{
	uint32_t i;
	int err = 0;

	if (!f->res || rpl_map_get(&pl->locked, RPL_IK(f->res), &i))
		return 0;
	RPL_GROW(pl->lock_keys, pl->n_lock_keys, pl->cap_lock_keys);
	pl->lock_keys[pl->n_lock_keys] = k;
	if (rpl_map_put(&pl->locked, RPL_IK(f->res), (uint32_t)pl->n_lock_keys) < 0)
		return -ENOMEM;
	pl->n_lock_keys++;
out:
	return err;
}

/* The lock keys of the files of @tab's descriptors that an exit or an
 * exec (@cloexec) closes (rpl_held_lock()), after the @n in @keys. */
int rpl_held_locks(const struct rpl_planner *pl, const struct rpl_fdtab *tab, int cloexec,
		      uint64_t *keys, int n)
{
	uint32_t i;
	uint64_t k;

	for (i = 0; pl->locked.n && i < tab->n && n < RPL_MAXRES; i++)
		if (rpl_closes_at(&tab->v[i], cloexec) && (k = rpl_held_lock(pl, &tab->v[i])) &&
		    !rpl_has_key(keys, n, k))
			keys[n++] = k;
	return n;
}

/* Does an exit that closes @tab's descriptors let go a lock for good:
 * is the open file of one of them a lock was taken through (rpl_held_lock())
 * in no other table of the plan, a live process's or a forked child's
 * not yet started?  A child that inherited its parent's locked
 * descriptor (flock(1)'s command) lets nothing go at its end. */
int rpl_lets_go_for_good(const struct rpl_plan *p, const struct rpl_planner *pl,
			    const struct rpl_fdtab *tab)
{
	uint32_t i, j;
	size_t k;

	for (i = 0; pl->locked.n && i < tab->n; i++) {
		uint32_t res = tab->v[i].res;
		int elsewhere = 0;

		if (!rpl_closes_at(&tab->v[i], 0) || !rpl_held_lock(pl, &tab->v[i]))
			continue;
		for (k = 0; !elsewhere && k < p->n_procs + pl->n_snap; k++) {
			const struct rpl_fdtab *t = k < p->n_procs ? p->procs[k].tab :
								     pl->snap[k - p->n_procs];

			for (j = 0; t && t != tab && !elsewhere && j < t->n; j++)
				elsewhere = t->v[j].state == RPL_FD_LIVE && t->v[j].res == res;
		}
		if (!elsewhere)
			return 1;
	}
	return 0;
}
