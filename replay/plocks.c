/*
 * plocks.c - POSIX record locks, each recorded process's own.
 *
 * A record lock (fcntl F_SETLK, F_SETLKW, F_GETLK) belongs to a process:
 * two opens of one file in one process never conflict, a child that
 * inherited the descriptor its parent locked through does, and the
 * process's close of any descriptor of the file releases every lock it
 * holds there.  The replay's threads are one process, so it takes such a
 * lock as a lock of an open file (F_OFD_SETLK): one open per recorded
 * process and file stands for the process, made at its first lock there
 * through the descriptor the call names (/proc/thread-self/fd/N: the
 * same file, whatever its name is now; read-write where allowed, else as
 * that descriptor is), kept until the process closes a descriptor of the
 * file or ends, which releases its locks as the kernel did.  Before
 * (2026-12-06), the lock was taken on the descriptor's own open file:
 * two opens in one process conflicted, a child was granted its parent's
 * bytes, and a close did not release them (tests/progs/lock_owner: 3 of
 * 4 answers otherwise).  A close_range, a dup2 onto a descriptor of the
 * file and an exec's close-on-exec release them too, as closes
 * (rpl_plock_closing_fds(); since 2026-12-07).  Locks of a file the
 * replay has no /proc for are taken on the descriptor, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl.h"

struct rpl_plock {
	dev_t dev;
	ino_t ino;
	int fd;
};

struct rpl_plocks {
	pthread_mutex_t lock;
	struct rpl_plock *v;
	size_t n, cap;
};

static struct rpl_plocks *plocks_of(struct rpl_proc *pr, int make)
{
	struct rpl_plocks *s = atomic_load(&pr->plocks), *none = NULL;

	if (s || !make)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	if (atomic_compare_exchange_strong(&pr->plocks, &none, s))
		return s;
	pthread_mutex_destroy(&s->lock);
	free(s);
	return none;
}

/* (the open that holds the process's locks, made at its first use; its
 * descriptor, or @live where none can be made: no /proc, no memory) */
int rpl_plock_fd(struct rpl_ctx *c, int live)
{
	struct rpl_plocks *s = plocks_of(c->pr, 1);
	char link[64];
	struct stat st;
	size_t i;
	int fd = -1, fl;

	if (!s || fstat(live, &st) < 0)
		return live;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n; i++)
		if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino) {
			fd = s->v[i].fd;
			goto out;
		}
	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", live);
	fd = open(link, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	fl = fcntl(live, F_GETFL);
	if (fd < 0 && fl >= 0)
		fd = open(link, (fl & O_ACCMODE) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		goto out;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		struct rpl_plock *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			close(fd);
			fd = -1;
			goto out;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct rpl_plock){ st.st_dev, st.st_ino, fd };
out:
	pthread_mutex_unlock(&s->lock);
	return fd >= 0 ? fd : live;
}

/* @pr is closing @live (still open): its locks of that file go */
static void closing(void *pr, int live)
{
	struct rpl_plocks *s = plocks_of(pr, 0);
	struct stat st;
	size_t i;

	if (!s || fstat(live, &st) < 0)
		return;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n; i++)
		if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino) {
			close(s->v[i].fd);
			s->v[i] = s->v[--s->n];
			break;
		}
	pthread_mutex_unlock(&s->lock);
}

void rpl_plock_closing_fds(struct rpl_proc *pr, unsigned long first, unsigned long last,
			   int cloexec)
{
	if (atomic_load(&pr->plocks) && pr->tab)
		rpl_fdtab_each_live(pr->tab, first, last, cloexec, closing, pr);
}

void rpl_plock_drop(struct rpl_proc *pr)
{
	struct rpl_plocks *s = atomic_exchange(&pr->plocks, NULL);
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		close(s->v[i].fd);
	free(s->v);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
