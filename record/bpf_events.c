/*
 * bpf_events.c - the BPF programs' records (bpf/event.h) into the events,
 * process records and path states the ptrace backend writes, through the
 * same decoders (decode.c) with a view of each record standing in for the
 * program's memory, as the fast path does (fastpath.c).
 *
 * A call is decoded when its exit record is read, not at its entry: its
 * result tells what its paths were before it ran (see pre_of_call()).
 * Fork, clone, exit and exit_group are decoded at entry (the fork record
 * comes before their exit and needs them); execve waits for its exec
 * record, which brings the kernel's copy of its file name.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"

/* The strings of @e (and, for those unread at entry, of the exit's
 * retry @x) by argument index.  @return : 1 if one stayed unreadable */
static int view_of(struct rec_ctx *c, const struct be_enter *e, const struct be_exit *x,
		   struct rec_view *v)
{
	uint32_t j, off = 0, xoff = 0, len = (uint32_t)(e->h.len - sizeof(*e));
	uint32_t xlen = x ? (uint32_t)(x->h.len - sizeof(*x)) : 0;
	int fault = 0;

	rec_zero(v, sizeof(*v));
	for (j = 0; j < e->nstr && j < 2; j++) {
		uint32_t n = e->slen[j], a = e->sarg[j];
		const char *s = NULL;

		if (n == BE_FAULT && x && j < x->nstr && x->slen[j] < BE_STR_MAX &&
		    xoff + x->slen[j] < xlen) {
			s = x->data + xoff;
			n = x->slen[j];
			xoff += (n + 1 + 7) & ~7u;
			c->st.bpf_reread++;
		} else if (n < BE_STR_MAX && off + n < len) {
			s = e->data + off;
			off += (n + 1 + 7) & ~7u;
		} else if (n == BE_FAULT) {
			fault = 1;
		}
		if (a < IOT_MAX_ARGS && s) {
			v->str[a] = s;
			v->slen[a] = n;
		}
	}
	v->no_mem = 1;
	return fault;
}

static void pre_absent(struct rec_pre *pre)
{
	memset(pre, 0, sizeof(*pre));
	pre->err = ENOENT;
	pre->missing = 1;
}

/* The path argument @i of @t's call, which entered at @when, made
 * absolute, or NULL. */
static char *abs_arg(struct rec_task *t, const struct iot_syscall *sc,
		     const struct rec_view *v, int i, uint32_t *len, int64_t when)
{
	const char *base = t->fs ? t->fs->cwd : NULL;

	if (!v->str[i])
		return NULL;
	if (i > 0 && sc->arg[i - 1] == IOT_ARG_DIRFD && (int32_t)t->raw[i - 1] != AT_FDCWD)
		base = rec_fd_path_at(t, (int32_t)t->raw[i - 1], NULL, when);
	if (v->str[i][0] != '/' && !base)
		return NULL;
	return rec_task_path_abs(t, base, v->str[i], len);
}

/* Does the call follow a symlink at the end of its path?  If so, ENOENT
 * may have come from a dangling one. */
static int follows_leaf(const struct iot_syscall *sc, const uint64_t *args)
{
	int fl = iot_syscall_arg(sc, IOT_ARG_AT_FLAGS);

	switch (sc->nr) {
	case SYS_lstat: case SYS_lgetxattr: case SYS_llistxattr: case SYS_lremovexattr:
	case SYS_lsetxattr: case SYS_lchown: case SYS_readlink: case SYS_readlinkat:
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir: case SYS_mkdir: case SYS_mkdirat:
	case SYS_mknod: case SYS_mknodat: case SYS_symlink: case SYS_symlinkat:
		return 0;
	}
	return !(fl >= 0 && (args[fl] & AT_SYMLINK_NOFOLLOW));
}

/*
 * The cwd the program started in, as it was before it ran.  Workloads
 * name paths under it all the time, and change it (make, unlink there):
 * its state must not wait for the drain.  Given to paths.c as the state
 * the first call that names it or something below it saw.
 */
static void cwd_state(struct rec_ctx *c, const char *p, uint32_t len)
{
	struct rec_bpf *b = c->bpf;

	if (b->cwd_done || !b->cwd || len < b->cwd_len || strncmp(p, b->cwd, b->cwd_len) ||
	    (len > b->cwd_len && p[b->cwd_len] != '/'))
		return;
	b->cwd_done = 1;
	rec_path_state(c, b->cwd, b->cwd_len, &b->cwd_pre);
}

/* Does open-family call @sc with (decoded) @args truncate what it
 * opens?  creat always does; openat2's flags are its decoded open_how. */
static int open_truncates(const struct iot_syscall *sc, const uint64_t *args)
{
	int fl = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);

	if (fl < 0)
		fl = iot_syscall_arg(sc, IOT_ARG_OPENHOW);
	return fl < 0 || (args[fl] & O_TRUNC);
}

/* The file an open found, as the kernel held it at its exit (@st), for
 * the path's state (states.c: as_opened()). */
static void pre_opened(struct rec_pre *pre, const struct be_istate *st)
{
	memset(pre, 0, sizeof(*pre));
	pre->opened = 1;
	pre->op.ino = st->ino;
	pre->op.size = st->size;
	pre->op.mode = st->mode;
	pre->op.uid = st->uid;
	pre->op.gid = st->gid;
	pre->op.nlink = st->nlink;
	pre->op.times = (st->flags & BE_IST_TIMES) != 0;
	pre->op.atime_ns = st->atime;
	pre->op.mtime_ns = st->mtime;
	pre->op.ctime_ns = st->ctime;
}

/*
 * What the call's paths were before it ran, from what it did: a file an
 * open created (FMODE_CREATED) did not exist; a file an open found and
 * did not truncate was what the kernel's inode held at the open's exit;
 * a file a stat found, what it returned; a path a call did not find
 * did not exist (unless it is a symlink now and the call follows it: a
 * dangling one fails the same way).  Left NULL: the recorder lstat()s it
 * now.  (Calls that make, remove or rename names were stopped before they
 * ran and their paths taken then: bpf_guard.c.)
 */
static void pre_of_call(struct rec_ctx *c, struct rec_task *t, const struct be_enter *e,
			const struct be_exit *x, struct rec_view *v, struct rec_pre pre[2])
{
	const struct iot_syscall *sc = iot_syscall_by_nr(e->nr);
	int64_t ret = x ? x->ret : 0;
	struct stat sb;
	uint32_t len;
	int ip, ip2, enoent;
	char *p;

	if (!sc)
		return;
	ip = iot_syscall_path_arg(sc);
	ip2 = iot_syscall_arg(sc, IOT_ARG_PATH2);
	memcpy(t->raw, e->args, sizeof(t->raw));
	if (x && ret >= 0 && (x->created & BE_CREATED) && ip >= 0 &&
	    (sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES)) {
		pre_absent(&pre[0]);
		v->pre[ip] = &pre[0];
	} else if (x && ret >= 0 && (x->st.flags & BE_IST_VALID) && ip >= 0 &&
		   (sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES) &&
		   !open_truncates(sc, t->raw)) {
		pre_opened(&pre[0], &x->st);
		v->pre[ip] = &pre[0];
	} else if (x && ret == 0 && (x->st.flags & BE_IST_VALID) && ip >= 0 &&
		   (e->nr == SYS_stat || e->nr == SYS_lstat || e->nr == SYS_newfstatat ||
		    e->nr == SYS_statx)) {
		/* what the stat returned stands for the file it found
		 * (as_opened(): if the path still names that inode) */
		pre_opened(&pre[0], &x->st);
		v->pre[ip] = &pre[0];
	}
	if (ip < 0)
		return;
	enoent = x && ret == -ENOENT && ip2 < 0 && !v->pre[ip];
	/* the path made absolute only if it is needed here: most calls
	 * need it for neither (decode.c makes it again for the event) */
	if ((c->bpf->cwd_done || !c->bpf->cwd) && !enoent)
		return;
	p = abs_arg(t, sc, v, ip, &len, (int64_t)e->h.t);
	if (!p)
		return;
	cwd_state(c, p, len);
	/* a path whose state the trace has already is not taken again: no
	 * lstat() to tell what it was (each program start's ENOENT of
	 * /etc/ld.so.preload: 503 lstat()s for 400 starts) */
	if (enoent && (!follows_leaf(sc, t->raw) || rec_pset_has(&c->seen, p, len) ||
		       rec_fuse_under_now(p) || lstat(p, &sb) < 0 || !S_ISLNK(sb.st_mode))) {
		pre_absent(&pre[0]);
		v->pre[ip] = &pre[0];
	}
	free(p);
}

static uint32_t u32_sat(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * A call whose entry the BPF programs wrote but that the trace does not
 * hold (a munmap of anonymous memory, an mremap of it: decode.c tells
 * them from the recorder's table of file mappings): the programs gave it
 * its gap's times (its sleeps on a disk and voluntary ones, its last
 * wake-up, its waits for a CPU, the guard's hold), and those go with the
 * next recorded call of its thread, whose gap holds that one's.  Lost,
 * they hid rustc's join of its compile thread: glibc unmaps a thread's
 * stack larger than its cache after the join, and the main thread's
 * 137 ms wait before its exit_group showed as computing, which the
 * replay's CPU budget cut with the rest.
 */
static void gap_keep(struct rec_task *t, const struct be_enter *e)
{
	t->gap.slept += e->slept;
	t->gap.waited += e->waited;
	t->gap.ready += e->ready;
	t->gap.held += e->held;
	if (e->woke) {
		t->gap.woke_at = (int64_t)e->h.t - (int64_t)e->woke;
		t->gap.gwaker = e->gwaker;
	}
}

/* The gap's times of the recorded call @ev (its entry's @e) with those
 * kept of calls not recorded before it (gap_keep()). */
static void gap_take(struct rec_task *t, struct iot_event *ev, const struct be_enter *e)
{
	ev->pre_ns = u32_sat((uint64_t)e->held + t->gap.held);
	ev->slept_ns = u32_sat((uint64_t)e->slept + t->gap.slept);
	ev->waited_ns = u32_sat((uint64_t)e->waited + t->gap.waited);
	ev->ready_ns = u32_sat((uint64_t)e->ready + t->gap.ready);
	ev->woke_ns = e->woke;
	ev->gap_waker = e->woke ? e->gwaker : 0;
	if (!e->woke && t->gap.woke_at > 0 && (int64_t)e->h.t > t->gap.woke_at) {
		ev->woke_ns = u32_sat((uint64_t)((int64_t)e->h.t - t->gap.woke_at));
		ev->gap_waker = t->gap.gwaker;
	}
	memset(&t->gap, 0, sizeof(t->gap));
}

static void decode_enter(struct rec_ctx *c, struct rec_task *t, const struct be_enter *e,
			 const struct be_exit *x)
{
	struct rec_pre pre[2];
	struct rec_view v;
	int fault = view_of(c, e, x, &v);

	v.aio = rec_bpf_aio_view(c, t->tid, e->h.t);

	pre_of_call(c, t, e, x, &v, pre);
	t->view = &v;
	if (rec_decode_entry(c, t, e->nr, (const uint64_t *)e->args, (int64_t)e->h.t)) {
		t->ev.flags |= IOT_EV_BPF | (fault ? IOT_EV_NOSTR : 0);
		/* pre_ns: the guard's stop before the entry, the recorder's
		 * time, which the replay takes out of the think time as the
		 * fast path's; slept_ns: asleep on a disk or a page-in before
		 * the entry, outside any recorded call, the program's, slept
		 * again by the replay; woke_ns, waited_ns: woken from a
		 * voluntary sleep that long before the entry, what woke it
		 * came before that (replay/wakes.c), and how long it slept so;
		 * ready_ns: runnable, waiting for a CPU, in that gap, not its
		 * think time; gap_waker: the followed thread that woke it,
		 * from a call that wakes others */
		gap_take(t, &t->ev, e);
		c->st.bpf_slept_ns += t->ev.slept_ns;
		if (t->ev.pre_ns) {
			c->st.guard_held_ns += t->ev.pre_ns;
			c->st.guard_held++;
		}
		c->st.bpf_events++;
	} else if (!t->sc) {
		gap_keep(t, e);
	}
	t->view = NULL;
}

static struct pend *pend_of(struct rec_ctx *c, pid_t tid)
{
	return tid > 0 && tid <= c->bpf->pid_max ? c->bpf->pending[tid] : NULL;
}

/* A call's entry is done with: its buffer is kept for the next one (a
 * calloc, a malloc and two frees for each call with a path cost the
 * recorder ~0.1 us of CPU a call: 200,000 fstatat(), 0.47 -> 0.45 s) */
static void pend_free(struct rec_ctx *c, pid_t tid)
{
	struct rec_bpf *b = c->bpf;
	struct pend *pd = pend_of(c, tid);

	if (!pd)
		return;
	b->pending[tid] = NULL;
	b->npend--;
	if (b->nspare < PEND_SPARE_MAX) {
		pd->next = b->spare;
		b->spare = pd;
		b->nspare++;
	} else {
		free(pd->e);
		free(pd);
	}
}

/* a buffer for an entry of @size bytes: a spare one, or a new one */
static struct pend *pend_new(struct rec_bpf *b, size_t size)
{
	struct pend *pd = b->spare;

	if (pd) {
		b->spare = pd->next;
		b->nspare--;
	} else if (!(pd = calloc(1, sizeof(*pd)))) {
		return NULL;
	}
	if (pd->cap < size) {
		struct be_enter *e = realloc(pd->e, size);

		if (!e) {
			free(pd->e);
			free(pd);
			return NULL;
		}
		pd->e = e;
		pd->cap = size;
	}
	return pd;
}

static void on_enter(struct rec_ctx *c, const struct be_enter *e, size_t size)
{
	pid_t tid = (pid_t)e->h.tid;
	struct rec_task *t = rec_task_get(c, tid);
	struct pend *pd;

	if (!t || size < sizeof(*e)) {
		c->st.dropped++;
		return;
	}
	pend_free(c, tid);
	if (t->in_syscall)
		rec_emit_unfinished(c, t, (int64_t)e->h.t);
	/* process calls are decoded now: their fork records come before
	 * their exit, and need them (execve waits for its exec record) */
	switch (e->nr) {
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
	case SYS_exit: case SYS_exit_group:
		decode_enter(c, t, e, NULL);
		return;
	}
	pd = pend_new(c->bpf, size);
	if (!pd) {
		decode_enter(c, t, e, NULL);
		return;
	}
	memcpy(pd->e, e, size);
	pd->size = size;
	c->bpf->pending[tid] = pd;
	c->bpf->npend++;
}

/*
 * Whether the thread that woke call @nr, which returned @ret, is kept as
 * its waker: a wait for other tasks that ended because of one (a poll or
 * select that did not time out, a lock, a child's end), or any call a
 * signal interrupted.  Not a wait that timed out, nor a disk's (a read,
 * an fsync): a timer's or a device's interrupt names whatever task it
 * interrupted, and a journal's commit is a kernel thread's.
 */
static int waker_kept(int32_t nr, int64_t ret)
{
	if (rec_cut_by_signal(ret))
		return 1;
	switch (nr) {
	case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
	case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return ret > 0;
	case SYS_flock: case SYS_fcntl: case SYS_wait4: case SYS_waitid:
		return 1;
	default:
		return 0;
	}
}

/* the result @x of @t's call in flight */
static void ret_of(struct rec_ctx *c, struct rec_task *t, const struct be_exit *x)
{
	uint64_t events = iot_writer_events(c->w);
	struct rec_view v;

	rec_zero(&v, sizeof(v));
	v.no_mem = 1;
	v.pipe_fd[0] = x->pipe_fd[0];
	v.pipe_fd[1] = x->pipe_fd[1];
	v.pipe_ino[0] = x->pipe_ino[0];
	v.pipe_ino[1] = x->pipe_ino[1];
	t->view = &v;
	/* the call's time on a CPU, measured between the program's
	 * switches (iotape.bpf.c): what the replay's think time leaves to
	 * the call */
	t->ev.cpu_ns = x->cpu_ns;
	/* who woke it in the call (replay/wakes.c), where that says what
	 * it waited for */
	t->ev.waker = waker_kept(t->ev.nr, x->ret) ? x->cwaker : 0;
	rec_bpf_uring_call(c, t);
	v.aio = rec_bpf_aio_view(c, t->tid, (uint64_t)t->ev.t_enter);
	rec_decode_exit(c, t, x->ret, (int64_t)x->h.t);
	if (c->aio)
		rec_bpf_uring_polled(c, t, events);
	t->view = NULL;
	rec_bpf_aio_done(c, t->tid);
}

/* an entry held for its exit, decoded with what the exit brought (@x
 * NULL: it never returned) */
static void flush_pending(struct rec_ctx *c, struct rec_task *t, pid_t tid,
			  const struct be_exit *x)
{
	struct pend *pd = pend_of(c, tid);

	if (!pd)
		return;
	decode_enter(c, t, pd->e, x);
	pend_free(c, tid);
}

static void on_ret(struct rec_ctx *c, const struct be_exit *x, size_t size)
{
	struct rec_task *t = rec_task_get(c, (pid_t)x->h.tid);

	if (!t || size < sizeof(*x))
		return;
	/* a vfork returns once its child has let go of the memory (exec or
	 * end), which may be before the child's exec record: the calls
	 * after it are the parent's again */
	if (t->vfork_child) {
		struct rec_task *ch = rec_task_get(c, t->vfork_child);

		if (ch && ch->vfork_parent == t->tid)
			ch->vfork_parent = 0;
		t->vfork_child = 0;
	}
	flush_pending(c, t, t->tid, x);
	if (!t->in_syscall)
		return;
	if (x->created & BE_KILLED)
		rec_emit_unfinished(c, t, (int64_t)x->h.t);
	else
		ret_of(c, t, x);
}

_Static_assert(sizeof(struct be_callstr) == BE_CALLSTR_HDR, "the programs' BE_CALLSTR header");
_Static_assert(sizeof(struct be_callstr) % 8 == 0, "its strings start 8-aligned");

/* One record for a call's entry and exit: BE_CALL, a call without
 * strings, or whose strings were empty (estr) or NULL; BE_CALLSTR (@ks,
 * @size bytes), one whose strings follow the record, as an entry
 * record's would.  Decoded as that entry and exit record would be. */
static void on_call(struct rec_ctx *c, const struct be_call *k, const struct be_callstr *ks,
		    size_t size)
{
	struct rec_task *t = rec_task_get(c, (pid_t)k->h.tid);
	/* the entry record and its strings' data: for BE_CALL, the empty
	 * ones, 8 bytes each (a struct with be_enter's flexible data[] not
	 * at its end is a GNU extension) */
	_Alignas(struct be_enter) unsigned char en[sizeof(struct be_enter) + BE_CREC_STR];
	struct be_enter *ep = (struct be_enter *)en;
	size_t dlen = ks ? size - sizeof(*ks) : 16;
	struct be_exit x;
	uint32_t i;

	if (!t || dlen > BE_CREC_STR) {
		c->st.dropped++;
		return;
	}
	pend_free(c, t->tid);
	if (t->in_syscall)
		rec_emit_unfinished(c, t, (int64_t)k->t_enter);
	rec_zero(en, sizeof(*ep) + dlen);
	ep->h = k->h;
	ep->h.type = BE_ENTER;
	ep->h.len = (uint32_t)(sizeof(*ep) + dlen);
	ep->h.t = k->t_enter;
	ep->nr = k->nr;
	ep->held = k->held;
	ep->slept = k->slept;
	ep->woke = k->woke;
	ep->waited = k->waited;
	ep->ready = k->ready;
	ep->gwaker = k->gwaker;
	memcpy(ep->args, k->args, sizeof(ep->args));
	ep->slen[0] = ep->slen[1] = BE_NOSTR;
	if (ks) {
		ep->nstr = ks->nstr;
		ep->slen[0] = ks->slen[0];
		ep->slen[1] = ks->slen[1];
		ep->sarg[0] = ks->sarg[0];
		ep->sarg[1] = ks->sarg[1];
		memcpy(ep->data, ks->data, dlen);
	}
	/* as the entry record would have them: in argument order, each ""
	 * (the data is zeros) */
	for (i = 0; !ks && i < IOT_MAX_ARGS && i < 8 && ep->nstr < 2; i++) {
		if (!(k->estr & (1u << i)))
			continue;
		ep->slen[ep->nstr] = 0;
		ep->sarg[ep->nstr] = (uint8_t)i;
		ep->nstr++;
	}
	rec_zero(&x, sizeof(x));
	x.h = k->h;
	x.h.type = BE_EXIT;
	x.h.len = sizeof(x);
	x.ret = k->ret;
	x.pipe_fd[0] = k->pipe_fd[0];
	x.pipe_fd[1] = k->pipe_fd[1];
	x.pipe_ino[0] = k->pipe_ino[0];
	x.pipe_ino[1] = k->pipe_ino[1];
	x.slen[0] = x.slen[1] = BE_NOSTR;
	x.created = k->created & ~BE_STATED;
	if (k->created & BE_STATED) {
		x.st.ino = k->pipe_ino[0];
		x.st.size = k->pipe_ino[1];
		x.st.mode = (uint32_t)k->pipe_fd[0];
		x.st.nlink = (uint32_t)k->pipe_fd[1];
		x.st.uid = x.st.gid = (uint32_t)-1;
		x.st.flags = BE_IST_VALID;
		x.pipe_fd[0] = x.pipe_fd[1] = -1;
		x.pipe_ino[0] = x.pipe_ino[1] = 0;
	}
	x.cpu_ns = k->cpu_ns;
	x.cwaker = k->cwaker;
	decode_enter(c, t, ep, &x);
	if (t->in_syscall && (k->created & BE_KILLED))
		rec_emit_unfinished(c, t, (int64_t)k->h.t);
	else if (t->in_syscall)
		ret_of(c, t, &x);
}

static void on_fork(struct rec_ctx *c, const struct be_fork *f)
{
	struct rec_task *t = rec_task_get(c, (pid_t)f->h.tid), *ch;
	uint64_t flags;

	if (!t) {
		c->st.dropped++;
		return;
	}
	/* the flags the ptrace path takes: the call's, as ptrace's event
	 * kind (vfork, fork, clone) makes them */
	if (t->in_syscall && t->sc && (t->sc->nr == SYS_clone || t->sc->nr == SYS_clone3 ||
				       t->sc->nr == SYS_fork || t->sc->nr == SYS_vfork))
		flags = t->clone_flags;
	else
		flags = f->flags | SIGCHLD;
	if (flags & CLONE_VFORK)
		flags |= CLONE_VM | CLONE_VFORK;
	else if ((flags & 0xff) == SIGCHLD)
		flags &= ~(uint64_t)(CLONE_THREAD | CLONE_FILES | CLONE_FS | CLONE_VM);
	ch = rec_emit_fork(c, t, (pid_t)f->child_tid, flags, (int64_t)f->h.t);
	if (ch)
		ch->attached = 1;
	/* until the child execs or ends, the fast path's records in this
	 * thread's ring are the child's (fp_drain.c drops them) */
	if (ch && (flags & CLONE_VFORK)) {
		t->vfork_child = ch->tid;
		ch->vfork_parent = t->tid;
	}
}

/* @t, a vfork child, no longer shares its parent's memory */
static void vfork_end(struct rec_ctx *c, struct rec_task *t)
{
	struct rec_task *p = t->vfork_parent ? rec_task_get(c, t->vfork_parent) : NULL;

	if (p && p->vfork_child == t->tid)
		p->vfork_child = 0;
	t->vfork_parent = 0;
}

void rec_bpf_emit_exit(struct rec_ctx *c, struct rec_task *t, int64_t now, int status,
		       int64_t ut, int64_t st, int64_t rec_ns)
{
	flush_pending(c, t, t->tid, NULL);
	rec_bpf_aio_done(c, t->tid);
	if (t->tid == t->pid) {
		rec_aio_proc_gone(c, t);
		rec_fmap_proc_gone(c, t);
	}
	rec_emit_exit(c, t, now, status, ut, st, rec_ns);
}

static void on_exec(struct rec_ctx *c, const struct be_exec *x, size_t size)
{
	pid_t tid = (pid_t)x->h.tid, old = (pid_t)x->old_tid;
	struct rec_task *t = rec_task_get(c, old);
	uint32_t elen = x->exe_len, alen = x->argv_len, i, n = 0;
	const char *argv[256];
	uint32_t lens[256];
	struct iot_process p;
	char exe[BE_STR_MAX + 1];

	if (!t || size < sizeof(*x) || elen > BE_STR_MAX ||
	    (uint64_t)elen + alen + x->fname_len > size - sizeof(*x)) {
		c->st.dropped++;
		return;
	}
	/* the execve, held for its result: it succeeded; its file name, if
	 * its page was not in at entry, is the kernel's copy */
	if (pend_of(c, old)) {
		union {
			struct be_exit x;
			char b[sizeof(struct be_exit) + BE_STR_MAX + 8];
		} u;

		memset(&u.x, 0, sizeof(u.x));
		u.x.h.len = (uint32_t)(sizeof(u.x) + x->fname_len + 1);
		u.x.nstr = 1;
		u.x.slen[0] = x->fname_len < BE_STR_MAX ? x->fname_len : BE_FAULT;
		u.x.slen[1] = BE_NOSTR;
		if (x->fname_len < BE_STR_MAX) {
			memcpy(u.x.data, x->data + elen + alen, x->fname_len);
			u.x.data[x->fname_len] = 0;
		}
		flush_pending(c, t, old, &u.x);
	}
	vfork_end(c, t);
	/* the old image's rings (the new one claims its own) */
	rec_bpf_release(c, old, x->h.t, 0);
	if (old != tid)
		rec_bpf_release(c, tid, x->h.t, 0);
	if (old != tid) {
		/* exec from a thread: it takes the leader's tid; the leader
		 * is gone without a record of its own */
		struct rec_task *leader = rec_task_get(c, tid);

		if (leader)
			rec_bpf_emit_exit(c, leader, (int64_t)x->h.t, 0, 0, 0, 0);
		rec_task_retid(c, t, tid);
	}
	rec_aio_proc_gone(c, t);
	rec_fmap_proc_gone(c, t);
	rec_fd_exec(t);
	rec_mm_exec(t);
	memcpy(exe, x->data, elen);
	exe[elen] = 0;
	for (i = 0; i < alen && n < 256; ) {
		const char *s = x->data + elen + i;
		uint32_t l = (uint32_t)strnlen(s, alen - i);

		argv[n] = s;
		lens[n++] = l;
		i += l + 1;
	}
	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_EXEC;
	p.t_ns = (int64_t)x->h.t;
	p.pid = t->pid;
	p.tid = t->tid;
	p.old_tid = old != tid ? old : 0;
	p.argc = n;
	p.argv = argv;
	p.argv_len = lens;
	if (elen) {
		p.exe = exe;
		p.exe_len = elen;
	}
	if (t->fs && t->fs->cwd) {
		p.cwd = t->fs->cwd;
		p.cwd_len = (uint32_t)strlen(t->fs->cwd);
	}
	rec_emit_process(c, &p);
}

/* The CPU time of a task that ended, exact as the ptrace path reads it
 * (rec_read_cputime()): its run time (the scheduler's, to the
 * nanosecond) split as the tick-sampled user and system times split. */
static void on_gone(struct rec_ctx *c, const struct be_gone *g)
{
	struct rec_task *t = rec_task_get(c, (pid_t)g->h.tid);
	double ut = (double)g->utime_ns, st = (double)g->stime_ns;
	int64_t sys = ut + st > 0 ? (int64_t)((double)g->run_ns * st / (ut + st)) : 0;

	c->st.bpf_rec_ns += g->rec_ns;
	c->st.bpf_rec_runs += g->rec_runs;
	if (t) {
		vfork_end(c, t);
		rec_bpf_release(c, t->tid, g->h.t + 1, t->tid == t->pid);
		rec_bpf_emit_exit(c, t, (int64_t)g->h.t, g->status, (int64_t)g->run_ns - sys,
				  sys, (int64_t)g->rec_ns);
	}
}

int rec_bpf_record(void *ctx, void *data, size_t size)
{
	struct rec_ctx *c = ctx;
	const struct be_hdr *h = data;

	if (size < sizeof(*h) || h->len > size) {
		c->st.dropped++;
		return 0;
	}
	if (!c->bpf->t_first)
		c->bpf->t_first = h->t;
	c->bpf->t_last = h->t;
	switch (h->type) {
	case BE_ENTER: on_enter(c, data, h->len); break;
	case BE_EXIT: on_ret(c, data, h->len); break;
	case BE_FORK: if (h->len >= sizeof(struct be_fork)) on_fork(c, data); break;
	case BE_EXEC: on_exec(c, data, h->len); break;
	case BE_GONE: if (h->len >= sizeof(struct be_gone)) on_gone(c, data); break;
	case BE_CALL: if (h->len >= sizeof(struct be_call)) on_call(c, data, NULL, 0); break;
	case BE_CALLSTR:
		if (h->len >= sizeof(struct be_callstr))
			on_call(c, data, data, h->len);
		break;
	case BE_FLUSH: break;	/* it woke the drain: that was all */
	case BE_URING_SETUP: case BE_URING_SQE: case BE_URING_CQE: case BE_URING_REG:
	case BE_URING_READY:
		rec_bpf_uring_record(c, data, h->len);
		break;
	case BE_FMAP: if (h->len >= sizeof(struct be_fmap)) rec_bpf_fmap(c, data); break;
	case BE_MPAGE: if (h->len >= sizeof(struct be_mpage)) rec_bpf_mpage(c, data); break;
	case BE_AIO_IOCB: case BE_AIO_EVENTS: case BE_AIO_CTX:
		rec_bpf_aio_record(c, data, h->len);
		break;
	default: c->st.dropped++; break;
	}
	return 0;
}

#endif
