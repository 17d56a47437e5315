/*
 * moves.c - which renames move no directory, from the recorded calls.
 *
 * A rename of a file or a symlink, onto a name that is no directory,
 * leaves every cached parent reached without symlinks naming what it
 * named (dcache.c); a rename of a directory, or over one, does not.  The
 * replay must know which without asking the filesystem (a stat before
 * each rename would be a call the program never made), so the plan walks
 * the ops in recorded order and keeps, per path, what it last named as
 * the calls that changed it say: a regular file (an exclusive create,
 * mknod, a file renamed there), something that is no directory (any
 * create), nothing (unlink, rmdir, renamed away); for a path not changed
 * since, its path state (taken when the workload first named it).
 *
 * Only a mkdir, a rename of what may be a directory, a symlink or hard
 * link made (another spelling of a path may then lead elsewhere), a
 * symlink renamed, an io_uring batch or a call of unknown effect can make
 * a directory appear under a name, or a path lead somewhere new: each
 * forgets all that was known (a new epoch).  What is kept is thus true
 * until then, whatever spelling changed it; what is not known counts as
 * a directory.  A trace with dropped events marks no rename.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

enum { K_UNKNOWN, K_FILE, K_NODIR, K_NONE };	/* K_NODIR: a file or a symlink */

struct moves {
	struct rpl_map m;		/* path hash -> epoch << 2 | K_* */
	uint32_t epoch;
	int64_t t_forgot;		/* entry time of the op that began it */
};

static uint64_t path_key(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return iot_hash(s, n, 5);
}

static int forget(struct moves *v, int64_t t)
{
	v->t_forgot = t;
	if (++v->epoch < (1u << 30))
		return 0;
	rpl_map_free(&v->m);		/* epochs would repeat: start afresh */
	memset(&v->m, 0, sizeof(v->m));
	v->epoch = 1;
	return 0;
}

static int set(struct moves *v, const char *path, uint32_t kind)
{
	return rpl_map_put(&v->m, path_key(path), v->epoch << 2 | kind);
}

static uint32_t kind_of(const struct rpl_plan *p, const struct moves *v, const char *path)
{
	const struct iot_path_state *ps;
	uint32_t val;

	if (rpl_map_get(&v->m, path_key(path), &val) && val >> 2 == v->epoch)
		return val & 3;
	ps = rpl_path_state(p, path);
	if (!ps || (ps->flags & IOT_PS_LISTED) || ps->t_ns < v->t_forgot)
		return K_UNKNOWN;
	switch (ps->type & S_IFMT) {
	case 0:
		return K_NONE;
	case S_IFDIR:
		return K_UNKNOWN;
	case S_IFLNK:
		return K_NODIR;
	default:
		return K_FILE;
	}
}

/* A create by open: what it leaves at @path.  It succeeded, so @path is
 * no directory (O_CREAT on one fails, EISDIR). */
static int opened(const struct rpl_plan *p, struct moves *v, const struct rpl_op *op,
		  int64_t fl)
{
	uint32_t k = kind_of(p, v, op->ev.path);

	if (fl & O_EXCL)		/* made afresh: not even a symlink was there */
		return set(v, op->ev.path, K_FILE);
	return set(v, op->ev.path, k == K_FILE || k == K_NONE ? K_FILE : K_NODIR);
}

/* A rename: mark it RPL_OPF_NODIR if it moved no directory, over none. */
static int renamed(const struct rpl_plan *p, struct moves *v, struct rpl_op *op)
{
	uint64_t fl = op->ev.nr == SYS_renameat2 ? (uint64_t)op->ev.args[4] : 0;
	uint32_t a = kind_of(p, v, op->ev.path), b = K_FILE;
	int err;

	if (fl & RENAME_EXCHANGE)
		b = kind_of(p, v, op->ev.path2);
	if ((a != K_FILE && a != K_NODIR) || (b != K_FILE && b != K_NODIR))
		return forget(v, op->ev.t_enter);
	op->rflags |= RPL_OPF_NODIR;
	/* a symlink moved may change where the paths below its new name lead */
	if (a != K_FILE || b != K_FILE)
		return forget(v, op->ev.t_enter);
	if (fl & RENAME_EXCHANGE)
		return 0;
	err = set(v, op->ev.path, fl & RENAME_WHITEOUT ? K_FILE : K_NONE);
	return err < 0 ? err : set(v, op->ev.path2, K_FILE);
}

static int absolute(const char *s)
{
	return s && s[0] == '/';
}

int rpl_plan_moves(struct rpl_plan *p)
{
	const struct iot_summary *sum = iot_reader_summary(p->rd);
	struct moves v = { .epoch = 1, .t_forgot = INT64_MIN };
	const struct iot_syscall *sc;
	struct rpl_op *op;
	size_t i;
	int err = 0, k;

	if (!sum || !sum->has_index || sum->index_damaged || sum->dropped_events)
		goto out;
	for (i = 0; i < p->n_ops && err >= 0; i++) {
		op = &p->ops[i];
		sc = iot_syscall_by_nr(op->ev.nr);
		if (op->ev.nr == SYS_io_uring_enter) {
			err = forget(&v, op->ev.t_enter);
			continue;
		}
		if (!sc || !(sc->flags & IOT_SCF_NAMES) ||
		    (op->ev.ret < 0 && !(op->ev.flags & IOT_EV_UNFINISHED)))
			continue;		/* a failed call changed nothing */
		if ((op->ev.flags & (IOT_EV_UNFINISHED | IOT_EV_NOSTR)) || !absolute(op->ev.path)) {
			err = forget(&v, op->ev.t_enter);
			continue;
		}
		switch (op->ev.nr) {
		case SYS_open:
		case SYS_openat:
		case SYS_openat2:
		case SYS_creat:
			k = rpl_open_flags_arg(sc);
			if (op->ev.nr == SYS_creat)
				err = opened(p, &v, op, O_CREAT);
			else if (k < 0 || (op->ev.args[k] & O_DIRECTORY))
				err = forget(&v, op->ev.t_enter);	/* O_TMPFILE, or unknown */
			else if (op->ev.args[k] & O_CREAT)
				err = opened(p, &v, op, op->ev.args[k]);
			break;
		case SYS_unlink:
		case SYS_unlinkat:
		case SYS_rmdir:
			err = set(&v, op->ev.path, K_NONE);
			break;
		case SYS_mknod:
		case SYS_mknodat:
			err = set(&v, op->ev.path, K_FILE);
			break;
		case SYS_rename:
		case SYS_renameat:
		case SYS_renameat2:
			if (!absolute(op->ev.path2))
				err = forget(&v, op->ev.t_enter);
			else
				err = renamed(p, &v, op);
			break;
		default:			/* mkdir, symlink, link, anything else */
			err = forget(&v, op->ev.t_enter);
			break;
		}
	}
out:
	rpl_map_free(&v.m);
	return err < 0 ? err : 0;
}
