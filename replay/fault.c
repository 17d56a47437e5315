/*
 * fault.c - faults of the filesystem under test.
 *
 * A replayed call that fails with ENOSPC, EDQUOT, EIO, EROFS, ESTALE or
 * ENOTCONN where the recording had another result no longer measures
 * the workload: the filesystem is full, broken, read-only or gone, and
 * every call after it measures how fast that filesystem fails.  By
 * default the first such fault stops the replay through the stop word a
 * SIGINT sets (rpl_stop_sig = RPL_STOP_FAULT): every thread finishes the
 * call it is in, the ops not reached are skipped as interrupted, and the
 * profile holds what ran, marked failed (header key replay.failed).
 * --on-error continue only counts them (a stress run).
 *
 * A root lazily unmounted (umount -l) under a running replay gives no
 * error at all: the open root keeps the detached filesystem alive and
 * every call succeeds on a tree nobody can see any more, which is freed
 * when the replay ends.  rpl_fault_watch() notices that --root no longer
 * leads to the directory the replay holds, and stops the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

static const int target_errnos[RPL_FAULT_KINDS] = {
	ENOSPC, EDQUOT, EIO, EROFS, ESTALE, ENOTCONN,
};

int rpl_fault_kind(int64_t r)
{
	int k;

	for (k = 0; k < RPL_FAULT_KINDS; k++)
		if (r == -target_errnos[k])
			return k;
	return -1;
}

int rpl_fault_errno(int kind)
{
	return kind >= 0 && kind < RPL_FAULT_KINDS ? target_errnos[kind] : 0;
}

/*
 * Is @op a call on a descriptor that names no file: a socket's?  Of a
 * call without a path argument, the event's path is its descriptor's
 * file (op_path()); both backends name none for a socket or a pipe.  A
 * socket whose connect gave up here meets ENOTCONN at its next send or
 * write: a forking server's clients, 3-5 of them blocked on its full
 * listen backlog (socat, 20 clients on a backlog of 5), replayed by
 * ptrace and stopped there as if the filesystem had gone away (exit 5),
 * until 2026-12-07.  A file of a FUSE mount whose daemon is gone has
 * its path; an async request's call (io_submit, io_uring_enter) is the
 * ring's, not its files'.
 */
static int on_socket(const struct iot_syscall *sc, const struct rpl_op *op)
{
	return sc && sc->cls != IOT_CLASS_ASYNC && iot_syscall_path_arg(sc) < 0 &&
	       iot_syscall_arg(sc, IOT_ARG_FD) >= 0 && (!op->ev.path || !op->ev.path[0]);
}

int rpl_fault_of(const struct rpl_op *op, int64_t r)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int k = rpl_fault_kind(r);

	/* ENOSPC from setxattr (the xattr calls with set flags) is a value
	 * larger than the filesystem keeps for one file's xattrs (ext4: a
	 * block), not a full filesystem */
	if (k >= 0 && (r == -ENOSPC || r == -EDQUOT) && sc && sc->cls == IOT_CLASS_XATTR &&
	    iot_syscall_arg(sc, IOT_ARG_XATTR_FLAGS) >= 0)
		return -1;
	/* a socket not connected: a mismatch, no filesystem's fault */
	if (r == -ENOTCONN && on_socket(sc, op))
		return -1;
	return k;
}

/* The path an op worked on: its path argument, else that of its last
 * descriptor argument (write(fd): the file; copy_file_range: the
 * destination; the event's own path is the first descriptor's). */
static void op_path(struct rpl_ctx *c, const struct rpl_op *op, char *buf, size_t len)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	struct rpl_fd e;
	int i;

	snprintf(buf, len, "%s", op->ev.path ? op->ev.path : "?");
	if (iot_syscall_path_arg(sc) >= 0)
		return;
	for (i = sc ? sc->nargs - 1 : -1; i >= 0; i--) {
		if (sc->arg[i] != IOT_ARG_FD)
			continue;
		if (c->pr->tab && rpl_fdtab_get(c->pr->tab, (long)op->ev.args[i], &e) == 0 &&
		    e.path)
			snprintf(buf, len, "%s", e.path);
		return;
	}
}

/* Claim the first fault: @return : 1 if this one is it. */
static int claim(struct rpl_plan *p)
{
	int none = 0;

	return atomic_compare_exchange_strong(&p->fault_claimed, &none, 1);
}

static void stop_replay(struct rpl_plan *p)
{
	int none = 0;

	if (p->o->on_error == RPL_ON_ERROR_STOP)
		atomic_compare_exchange_strong(&rpl_stop_sig, &none, RPL_STOP_FAULT);
}

void rpl_fault_seen(struct rpl_ctx *c, struct rpl_op *op, int64_t r)
{
	struct rpl_plan *p = c->p;
	struct rpl_fault *f = &p->fault;

	if (!claim(p))
		return;
	f->err = (int)-r;
	f->op = (uint32_t)(op - p->ops);
	f->t_ns = p->t0 ? iot_now_ns() - p->t0 : 0;
	op_path(c, op, f->path, sizeof(f->path));
	stop_replay(p);
}

void rpl_fault_watch_start(struct rpl_plan *p)
{
	struct stat st;

	p->root_dev = p->root_ino = 0;
	if (fstat(p->root_fd, &st) == 0) {
		p->root_dev = st.st_dev;
		p->root_ino = st.st_ino;
	}
}

int rpl_fault_watch(struct rpl_plan *p, uint64_t ops_done)
{
	struct rpl_fault *f = &p->fault;
	struct stat st;

	if (!p->root_ino || atomic_load(&p->fault_claimed))
		return 0;
	if (stat(p->o->root, &st) == 0) {
		if (st.st_dev == p->root_dev && st.st_ino == p->root_ino)
			return 0;
	} else if (errno != ENOENT && errno != ENOTDIR) {
		/* a FUSE daemon gone (ENOTCONN), a server gone (ESTALE): the
		 * replay's next call gets the same error, and names itself */
		return 0;
	}
	if (!claim(p))
		return 0;
	f->err = 0;
	f->unmounted = 1;
	f->op = (uint32_t)(ops_done < p->n_ops ? ops_done : p->n_ops);
	f->t_ns = iot_now_ns() - p->t0;
	snprintf(f->path, sizeof(f->path), "%s", p->o->root);
	/* no call failed: whatever --on-error says, nothing more can be
	 * measured that anyone will see */
	{
		int none = 0;

		atomic_compare_exchange_strong(&rpl_stop_sig, &none, RPL_STOP_FAULT);
	}
	return 1;
}

void rpl_fault_result(const struct rpl_plan *p, struct rpl_result *res)
{
	const struct rpl_fault *f = &p->fault;
	double pct;

	res->fault[0] = 0;
	if (!atomic_load(&p->fault_claimed))
		return;
	pct = p->n_ops ? 100.0 * (double)f->op / (double)p->n_ops : 100.0;
	res->fault_stopped = p->o->on_error == RPL_ON_ERROR_STOP || f->unmounted;
	res->fault_unmounted = f->unmounted;
	res->fault_errno = f->err;
	if (f->unmounted) {
		snprintf(res->fault, sizeof(res->fault),
			 "unmounted at %.0f %% (the root %.200s was detached %.3f s into the replay)",
			 pct, f->path, (double)f->t_ns / 1e9);
	} else {
		const struct rpl_op *op = &p->ops[f->op];
		const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
		int64_t at = p->n_ops ? op->ev.t_enter - p->ops[0].ev.t_enter : 0;
		const char *en = iot_errno_name(f->err);

		snprintf(res->fault, sizeof(res->fault), "%s at %.0f %% (%.20s %.200s at %.3f s)",
			 en ? en : "error", pct, sc ? sc->name : "call", f->path, (double)at / 1e9);
	}
}

void rpl_fault_counts(const struct rpl_result *res, char *buf, size_t len)
{
	const char *sep = " (";
	size_t n;
	int k;

	n = (size_t)snprintf(buf, len, "%llu", (unsigned long long)res->target_faults);
	for (k = 0; k < RPL_FAULT_KINDS && n < len; k++) {
		if (!res->target_by[k])
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %llu", sep,
				      iot_errno_name(target_errnos[k]),
				      (unsigned long long)res->target_by[k]);
		sep = ", ";
	}
	if (*sep == ',' && n < len)
		snprintf(buf + n, len - n, ")");
}
