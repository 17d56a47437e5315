/*
 * creds.c - each replayed thread makes its file calls as the user its
 * recorded thread was.  The replayer runs as root; a workload whose
 * processes run as another account (a server started through setpriv
 * --reuid) got EACCES where root gets through, and made files owned by
 * that account, not by root.
 *
 * A thread starts with its parent thread's credentials at the clone, the
 * first ones with the header's (record.uid, record.gid, record.groups:
 * record/header.c); a recorded set*id call that succeeded changes its
 * thread's, computed as the kernel does (setresuid(r, e, s) sets the
 * filesystem id to e where e is not -1, ...).  Only the filesystem ids and
 * the groups reach the kernel, and only the replay thread's own: the raw
 * SYS_setfsuid, SYS_setfsgid and SYS_setgroups are per thread (glibc's
 * wrappers would change every thread of the replayer).  The file calls
 * check permissions with those, and files they make get them as owners.
 *
 * Capabilities are followed as one flag, whether the thread's file access
 * capabilities are effective (CAP_DAC_OVERRIDE, ...: root's permission
 * checks, files owned by its filesystem ids), as the kernel changes them
 * at a uid change: lost when the effective (or filesystem) uid leaves 0,
 * back when it returns, kept by root at an exec and lost by others, and
 * raised by a capset() that succeeded (its sets are not recorded): setpriv
 * --reuid changes the uid with PR_SET_KEEPCAPS and raises them again, so
 * that until it execs the program it searches $PATH as root (through a
 * 0700 /root: ENOENT, not EACCES).  A replay thread that is capable with
 * a filesystem uid not 0 raises its own effective set to its permitted
 * one (raw capset, per thread).  The flag stands for CAP_SETUID and
 * CAP_SETGID as well, for the set*id calls' rules.
 *
 * What the recorder cannot give: setgroups' list (its length only is
 * kept: no argument kind holds an array), so a setgroups() leaves the
 * thread with no supplementary groups, its filesystem gid alone; what a
 * capset() set (taken as a raise); PR_SET_KEEPCAPS; and the credentials
 * an exec of a set-user-ID program takes.
 *
 * The replayer's own work in a replay thread (pages of a mapping opened
 * again by name, the root opened for a sync) runs with root's filesystem
 * ids around it (rpl_creds_root()).  Old traces, which have neither the
 * header's keys nor set*id calls, run as before: nothing here is done.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

/* "A B C D" into @v (@n of them). @return : 0, or -1 if it is not that */
static int parse_ids(const char *s, uint32_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *e;
		unsigned long x;

		errno = 0;
		x = strtoul(s, &e, 10);
		if (errno || e == s || x > UINT32_MAX)
			return -1;
		v[i] = (uint32_t)x;
		s = e;
	}
	return 0;
}

static int parse_groups(struct rpl_plan *p, const char *s)
{
	size_t cap = 1, n = 0;
	const char *q;

	for (q = s; *q; q++)
		cap += *q == ' ';
	p->groups0 = calloc(cap, sizeof(uint32_t));
	if (!p->groups0)
		return -ENOMEM;
	while (*s) {
		char *e;
		unsigned long x;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		errno = 0;
		x = strtoul(s, &e, 10);
		if (errno || e == s || x > UINT32_MAX || n == cap)
			return -EINVAL;
		p->groups0[n++] = (uint32_t)x;
		s = e;
	}
	p->cred0.ngroups = (uint32_t)n;
	p->cred0.groups = p->groups0;
	return 0;
}

/* The replayer's own credentials, for what the header does not say. */
static void own_cred(struct rpl_plan *p)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;
	int n;

	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	p->cred0.uid[0] = r, p->cred0.uid[1] = e, p->cred0.uid[2] = s, p->cred0.uid[3] = e;
	p->cred0.gid[0] = rg, p->cred0.gid[1] = eg, p->cred0.gid[2] = sg, p->cred0.gid[3] = eg;
	n = getgroups(0, NULL);
	free(p->groups0);
	p->groups0 = n > 0 ? calloc((size_t)n, sizeof(uint32_t)) : NULL;
	if (p->groups0)
		n = getgroups(n, (gid_t *)p->groups0);
	p->cred0.ngroups = p->groups0 && n > 0 ? (uint32_t)n : 0;
	p->cred0.groups = p->groups0;
	p->cred0.capable = e == 0;
}

int rpl_creds_call(int nr)
{
	switch (nr) {
	case SYS_setuid: case SYS_setgid: case SYS_setreuid: case SYS_setregid:
	case SYS_setresuid: case SYS_setresgid: case SYS_setfsuid: case SYS_setfsgid:
	case SYS_setgroups: case SYS_capset:
		return 1;
	}
	return 0;
}

void rpl_creds_free(struct rpl_plan *p)
{
	free(p->groups0);
	p->groups0 = NULL;
	memset(&p->cred0, 0, sizeof(p->cred0));
}

void rpl_creds_init(struct rpl_plan *p)
{
	const char *env = getenv("IOTAPE_REPLAY_CREDS");
	const char *u = p->hdr ? iot_header_get(p->hdr, "record.uid") : NULL;
	const char *g = p->hdr ? iot_header_get(p->hdr, "record.gid") : NULL;
	const char *gr = p->hdr ? iot_header_get(p->hdr, "record.groups") : NULL;
	int calls = p->setid_calls;
	struct stat st;

	p->creds = RPL_CREDS_OFF;
	atomic_store(&p->creds_not_taken, 0);
	atomic_store(&p->creds_threads, 0);
	atomic_store(&p->creds_calls, 0);
	own_cred(p);
	if ((env && strcmp(env, "0") == 0) || (!u && !g && !calls))
		return;
	/* a key that does not parse is as if it were not there */
	if (u && parse_ids(u, p->cred0.uid, 4) < 0)
		own_cred(p);
	if (g && parse_ids(g, p->cred0.gid, 4) < 0)
		own_cred(p);
	if (gr) {
		free(p->groups0);
		p->groups0 = NULL;
		if (parse_groups(p, gr) < 0)
			own_cred(p);
	}
	p->cred0.capable = p->cred0.uid[1] == 0;
	/* recorded as the replayer runs, and never changed: as before */
	if (!calls && p->cred0.uid[RPL_CRED_FS] == geteuid() &&
	    p->cred0.gid[RPL_CRED_FS] == getegid())
		return;
	if (geteuid() != 0)
		p->creds = RPL_CREDS_CANNOT;
	else if (fstat(p->root_fd, &st) == 0 && !(st.st_mode & S_IXOTH))
		/* another user could not reach anything under it: the
		 * user's directory is never chmod'ed; the summary says so */
		p->creds = RPL_CREDS_ROOT_CLOSED;
	else
		p->creds = RPL_CREDS_ON;
}

/* @t runs (or would run) with ids other than the replayer's: counted once */
static void count_thread(struct rpl_plan *p, struct rpl_thread *t)
{
	/* the replayer's ids: root's, but where it cannot take others' */
	uint32_t u = p->creds == RPL_CREDS_CANNOT ? (uint32_t)geteuid() : 0;
	uint32_t g = p->creds == RPL_CREDS_CANNOT ? (uint32_t)getegid() : 0;

	if (t->cred_refused || (t->cred.uid[RPL_CRED_FS] == u && t->cred.gid[RPL_CRED_FS] == g))
		return;
	t->cred_refused = 1;
	atomic_fetch_add(p->creds == RPL_CREDS_ON ? &p->creds_threads : &p->creds_not_taken, 1);
}

void rpl_creds_inherit(struct rpl_plan *p, struct rpl_thread *t, const struct rpl_thread *parent)
{
	t->cred = parent ? parent->cred : p->cred0;
	t->cred_set = RPL_CRED_UNSET;
	t->cred_refused = 0;
	if (p->creds != RPL_CREDS_OFF)
		count_thread(p, t);
}

/* the calling thread's effective capabilities set to its permitted ones
 * (all of root's): those of file access, which a filesystem uid not 0
 * took away */
static void raise_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) != 0)
		return;
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	syscall(SYS_capset, &h, d);
}

void rpl_creds_apply(struct rpl_ctx *c)
{
	struct rpl_thread *t = c->t;
	uint32_t fsuid = t->cred.uid[RPL_CRED_FS];

	if (c->p->creds != RPL_CREDS_ON || t->cred_set == RPL_CRED_THREAD)
		return;
	/* groups first: changing them needs CAP_SETGID, which a thread
	 * keeps with any filesystem ids (setfsuid drops only the
	 * capabilities of file access); the filesystem uid through 0, which
	 * gives those back, so that the one set takes them away again */
	if (t->cred_set == RPL_CRED_UNSET)
		syscall(SYS_setgroups, (size_t)t->cred.ngroups, t->cred.groups);
	if (t->cred_set != RPL_CRED_ROOT)
		syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, t->cred.gid[RPL_CRED_FS]);
	syscall(SYS_setfsuid, fsuid);
	if (fsuid && t->cred.capable)
		raise_caps();
	t->cred_set = RPL_CRED_THREAD;
}

void rpl_creds_root(struct rpl_ctx *c)
{
	if (!rpl_creds_other(c))
		return;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	c->t->cred_set = RPL_CRED_ROOT;
}

/* ---- the set*id calls ---- */

#define KEEP UINT32_MAX			/* -1: the id is left as it is */

/* setuid/setgid: with privilege every id, else the effective one
 * (and the filesystem one with it) */
static void set_one(uint32_t *id, uint32_t v, int priv)
{
	if (priv)
		id[0] = id[2] = v;
	id[1] = id[3] = v;
}

/* setreuid/setregid: the saved id becomes the new effective one where
 * the real one is set, or the effective one is set to other than the
 * real one (setreuid(2)) */
static void set_re(uint32_t *id, uint32_t r, uint32_t e)
{
	uint32_t old_r = id[0];

	if (r != KEEP)
		id[0] = r;
	if (e != KEEP)
		id[1] = e;
	if (r != KEEP || (e != KEEP && e != old_r))
		id[2] = id[1];
	id[3] = id[1];
}

static void set_res(uint32_t *id, uint32_t r, uint32_t e, uint32_t s)
{
	if (r != KEEP)
		id[0] = r;
	if (e != KEEP)
		id[1] = e;
	if (s != KEEP)
		id[2] = s;
	id[3] = id[1];
}

/* setfsuid/setfsgid return the id before, whether or not they changed
 * it: that is the recorded thread's, taken over ours; the new one holds
 * with privilege or where it is one of the others (setfsuid(2)) */
static void set_fs(uint32_t *id, int64_t before, uint32_t v, int priv)
{
	if (before >= 0 && before <= UINT32_MAX)
		id[3] = (uint32_t)before;
	if (v == KEEP)
		return;
	if (priv || v == id[0] || v == id[1] || v == id[2] || v == id[3])
		id[3] = v;
}

/* @old -> @t's cred changed what its file calls run as: apply it (and
 * with @call, count the call that did) */
static void changed(struct rpl_ctx *c, const struct rpl_cred *old, int call)
{
	struct rpl_thread *t = c->t;
	const struct rpl_cred *cr = &t->cred;

	if (cr->uid[RPL_CRED_FS] == old->uid[RPL_CRED_FS] &&
	    cr->gid[RPL_CRED_FS] == old->gid[RPL_CRED_FS] && cr->capable == old->capable &&
	    cr->ngroups == old->ngroups && cr->groups == old->groups)
		return;
	if (call)
		atomic_fetch_add(&c->p->creds_calls, 1);
	count_thread(c->p, t);
	if (c->p->creds != RPL_CREDS_ON)
		return;
	if (cr->ngroups != old->ngroups || cr->groups != old->groups)
		t->cred_set = RPL_CRED_UNSET;
	else if (t->cred_set == RPL_CRED_THREAD)
		t->cred_set = RPL_CRED_IDS;
	/* parents it opened as the ids before may be out of its reach now */
	rpl_dcache_drop(t->dcache);
	RPL_TIMED(c, (rpl_creds_apply(c), 0));
}

static int64_t h_setid(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_cred *cr = &c->t->cred, old = *cr;
	const int64_t *a = op->ev.args;
	int priv = cr->capable;
	int fs = op->ev.nr == SYS_setfsuid || op->ev.nr == SYS_setfsgid;

	if (c->p->creds == RPL_CREDS_OFF || (!fs && op->ev.ret != 0))
		return op->ev.ret;
	switch (op->ev.nr) {
	case SYS_setuid: set_one(cr->uid, (uint32_t)a[0], priv); break;
	case SYS_setgid: set_one(cr->gid, (uint32_t)a[0], priv); break;
	case SYS_setreuid: set_re(cr->uid, (uint32_t)a[0], (uint32_t)a[1]); break;
	case SYS_setregid: set_re(cr->gid, (uint32_t)a[0], (uint32_t)a[1]); break;
	case SYS_setresuid:
		set_res(cr->uid, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2]);
		break;
	case SYS_setresgid:
		set_res(cr->gid, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2]);
		break;
	case SYS_setfsuid: set_fs(cr->uid, op->ev.ret, (uint32_t)a[0], priv); break;
	case SYS_setfsgid: set_fs(cr->gid, op->ev.ret, (uint32_t)a[0], priv); break;
	case SYS_setgroups:
		/* the list is not recorded: none (above) */
		cr->ngroups = 0;
		cr->groups = NULL;
		break;
	case SYS_capset:
		cr->capable = 1;	/* its sets are not recorded: a raise (above) */
		break;
	}
	/* the kernel's rules for the effective set at a uid change
	 * (capabilities(7), "Effect of user ID changes on capabilities") */
	if (old.uid[1] == 0 && cr->uid[1] != 0)
		cr->capable = 0;
	else if (old.uid[1] != 0 && cr->uid[1] == 0)
		cr->capable = 1;
	if (old.uid[RPL_CRED_FS] == 0 && cr->uid[RPL_CRED_FS] != 0)
		cr->capable = 0;
	else if (old.uid[RPL_CRED_FS] != 0 && cr->uid[RPL_CRED_FS] == 0)
		cr->capable = 1;
	changed(c, &old, 1);
	return op->ev.ret;
}

void rpl_creds_exec(struct rpl_ctx *c)
{
	struct rpl_cred *cr = &c->t->cred, old = *cr;

	if (c->p->creds == RPL_CREDS_OFF)
		return;
	cr->uid[2] = cr->uid[RPL_CRED_FS] = cr->uid[1];
	cr->gid[2] = cr->gid[RPL_CRED_FS] = cr->gid[1];
	cr->capable = cr->uid[1] == 0;
	changed(c, &old, 0);
}

void rpl_ops_creds(rpl_handler *h)
{
	h[SYS_setuid] = h_setid;
	h[SYS_setgid] = h_setid;
	h[SYS_setreuid] = h_setid;
	h[SYS_setregid] = h_setid;
	h[SYS_setresuid] = h_setid;
	h[SYS_setresgid] = h_setid;
	h[SYS_setfsuid] = h_setid;
	h[SYS_setfsgid] = h_setid;
	h[SYS_setgroups] = h_setid;
	h[SYS_capset] = h_setid;
}
