/*
 * umask.c - each replayed process makes its files and directories with
 * the mask its recorded process had.  The kernel takes a new file's mode
 * (open's, mkdir's, mknod's, a Unix socket's bind) less the process's
 * umask; the replayer ran every process with its own, so a program that
 * set `umask 077` made 0600 files when recorded and 0644 ones replayed,
 * and a replay run from a shell with another mask made other modes again.
 *
 * The first process starts with the header's mask (record.umask: the
 * recorder's, which the program inherits, or with -p the process's, from
 * /proc/PID/status); a process starts with its parent's mask at the clone
 * (rpl_thread_start() runs in the parent's thread, at its clone); a
 * recorded umask() sets its process's, and returns the mask before, which
 * the replay compares with the recorded result like any other.  The mask
 * is the process's (the kernel keeps it in the filesystem context its
 * threads share); a clone that shared it between two processes
 * (CLONE_FS without CLONE_THREAD) is taken as a copy.
 *
 * The replayer is one process, so each replay thread unshares its
 * filesystem context (unshare(CLONE_FS): its own umask; paths are
 * resolved from the root's descriptor, never from a working directory)
 * and sets its process's mask in it; before each op it takes the mask
 * again if another thread of its process changed it.  io_uring requests
 * take the mask of the thread that submitted them (its workers share its
 * context).  A trace without record.umask and without umask calls (every
 * trace before this one), or whose mask is the replayer's with no umask
 * call, replays as before: nothing is unshared or set.
 * IOTAPE_REPLAY_UMASK=0: the replayer's own mask for every process.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

/* The replayer's own mask, from /proc/self/status: read without setting
 * it, as umask() would for a moment while other threads (clients of
 * --clients, each planning in its thread) may make files.  Where the
 * kernel does not say (before 4.7), set and put back. */
static uint32_t own_mask(void)
{
	char line[256];
	uint32_t m;
	mode_t old;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "Umask:", 6) == 0 &&
		    rpl_umask_parse(line + 6 + strspn(line + 6, " \t"), &m) == 0) {
			fclose(f);
			return m;
		}
	if (f)
		fclose(f);
	old = umask(022);
	umask(old);
	return (uint32_t)old;
}

int rpl_umask_parse(const char *s, uint32_t *mask)
{
	unsigned long m;
	char *e;

	if (!s || !*s)
		return -1;
	errno = 0;
	m = strtoul(s, &e, 8);
	if (!errno && e != s)
		e += strspn(e, " \t\n");	/* a status line's end */
	if (errno || e == s || *e || m > 0777)
		return -1;
	*mask = (uint32_t)m;
	return 0;
}

void rpl_umask_init(struct rpl_plan *p)
{
	const char *env = getenv("IOTAPE_REPLAY_UMASK");
	const char *v = p->hdr ? iot_header_get(p->hdr, "record.umask") : NULL;
	uint32_t own = own_mask();

	p->umask_on = 0;
	p->umask0 = own;
	p->umask_known = 0;
	atomic_store(&p->umask_calls_done, 0);
	atomic_store(&p->umask_not_taken, 0);
	/* a key that does not parse is as if it were not there */
	if (v && rpl_umask_parse(v, &p->umask0) == 0)
		p->umask_known = 1;
	else
		p->umask0 = own;
	if (env && strcmp(env, "0") == 0) {
		p->umask0 = own;
		return;
	}
	/* the replayer's mask, and no call changes it: as before */
	if (!p->umask_calls && p->umask0 == own)
		return;
	p->umask_on = 1;
}

void rpl_umask_inherit(struct rpl_plan *p, struct rpl_proc *pr)
{
	const struct rpl_proc *pa;

	if (!p->umask_on || pr->umask_set)
		return;
	pa = pr->parent >= 0 ? &p->procs[pr->parent] : NULL;
	atomic_store(&pr->umask, pa && pa->umask_set ? atomic_load(&pa->umask) : p->umask0);
	pr->umask_set = 1;
}

void rpl_umask_start(struct rpl_ctx *c)
{
	struct rpl_thread *t = c->t;

	t->umask_now = -1;
	if (!c->p->umask_on)
		return;
	if (unshare(CLONE_FS) != 0) {
		/* its files take the replayer's mask: counted, never the
		 * replayer's own mask changed for every thread */
		atomic_fetch_add(&c->p->umask_not_taken, 1);
		return;
	}
	t->umask_now = (int32_t)atomic_load(&c->pr->umask);
	umask((mode_t)t->umask_now);
}

void rpl_umask_take(struct rpl_ctx *c)
{
	uint32_t m = atomic_load_explicit(&c->pr->umask, memory_order_relaxed);

	if ((int32_t)m != c->t->umask_now) {
		umask((mode_t)m);
		c->t->umask_now = (int32_t)m;
	}
}

static int64_t h_umask(struct rpl_ctx *c, struct rpl_op *op)
{
	uint32_t m = (uint32_t)op->ev.args[0] & 0777, old;

	if (c->t->umask_now < 0)
		return op->ev.ret;	/* not followed: the replayer's mask stays */
	old = atomic_exchange(&c->pr->umask, m);
	RPL_TIMED(c, umask((mode_t)m));
	c->t->umask_now = (int32_t)m;
	atomic_fetch_add(&c->p->umask_calls_done, 1);
	return (int64_t)old;
}

void rpl_ops_umask(rpl_handler *h)
{
	h[SYS_umask] = h_umask;
}
