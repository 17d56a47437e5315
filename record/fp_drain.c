/*
 * fp_drain.c - the recorder's side of the in-process fast path: the shared
 * memory the preload library (record/fastpath/, libiotape-fast.so) logs
 * calls into, and the drain that turns its records into the same events
 * the ptrace path writes.
 *
 * Records go through the same decoders as ptrace stops (decode.c), with a
 * view of the record (struct rec_view) standing in for the tracee's
 * memory, so both paths write the same events: only their times differ
 * (no stops around a fast call) and the flag IOT_EV_FASTPATH.
 *
 * When records are drained:
 *   - at every seccomp stop, before that call is decoded: a thread's
 *     in-process calls come before its next traced one, and the descriptor
 *     tables are up to date;
 *   - at fork/clone/vfork/exec events and before a thread's exit;
 *   - when a ring is full (the program's close(FP_FLUSH_FD), not recorded);
 *   - on the writer's flush tick, so a killed recorder loses at most one
 *     tick of in-process calls.
 * Across rings, records are merged by entry time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "fastpath/fp.h"
#include "rec.h"
#include "fp_int.h"

#define LIB_NAME "libiotape-fast.so"

const char *rec_fast_lib(const struct rec_ctx *c)
{
	return c->fast ? c->fast->lib : NULL;
}

uint64_t rec_fast_ip(const struct rec_ctx *c)
{
	return c->fast ? FP_STUB_ADDR + FP_STUB_RET_OFF : 0;
}

/* The library sits next to the binary (a build tree) or in
 * ../lib/iotape/ (an installed tree); IOTAPE_FASTPATH_LIB overrides. */
static int find_lib(char *out, size_t cap)
{
	const char *env = getenv("IOTAPE_FASTPATH_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK) < 0)
			return -ENOENT;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	if ((size_t)snprintf(out, cap, "%s/%s", exe, LIB_NAME) < cap && access(out, R_OK) == 0)
		return 0;
	if ((size_t)snprintf(out, cap, "%s/../lib/iotape/%s", exe, LIB_NAME) < cap) {
		char real[PATH_MAX];

		if (realpath(out, real) && access(real, R_OK) == 0) {
			snprintf(out, cap, "%s", real);
			return 0;
		}
	}
	return -ENOENT;
}

int rec_fast_setup(struct rec_ctx *c, const char **why)
{
	struct rec_fast *f = calloc(1, sizeof(*f));
	struct fp_shm *h;
	int err;

	*why = NULL;
	if (!f)
		return -ENOMEM;
	f->fd = -1;
	err = find_lib(f->lib, sizeof(f->lib));
	if (err < 0) {
		*why = "no " LIB_NAME " next to iotape or in ../lib/iotape/";
		goto fail;
	}
	f->fd = memfd_create("iotape-fast", MFD_CLOEXEC);
	if (f->fd < 0 || ftruncate(f->fd, (off_t)FP_SHM_BYTES) < 0) {
		err = -errno;
		*why = "cannot create its shared memory";
		goto fail;
	}
	f->base = mmap(NULL, FP_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->base == MAP_FAILED) {
		err = -errno;
		f->base = NULL;
		*why = "cannot map its shared memory";
		goto fail;
	}
	h = f->base;
	h->version = FP_VERSION;
	h->nslots = FP_NSLOTS;
	h->ring_bytes = FP_RING_BYTES;
	h->data_max = (uint32_t)c->o->data_max;
	h->stub_ret_ip = FP_STUB_ADDR + FP_STUB_RET_OFF;
	__atomic_store_n(&h->magic, FP_MAGIC, __ATOMIC_RELEASE);
	snprintf(f->shm_env, sizeof(f->shm_env), "/proc/%d/fd/%d", (int)getpid(), f->fd);
	c->fast = f;
	return 0;
fail:
	if (f->fd >= 0)
		close(f->fd);
	free(f);
	return err;
}

void rec_fast_free(struct rec_ctx *c)
{
	struct rec_fast *f = c->fast;

	if (!f)
		return;
	if (f->base)
		munmap(f->base, FP_SHM_BYTES);
	if (f->fd >= 0)
		close(f->fd);
	free(f->items);
	free(f);
	c->fast = NULL;
}

/* In the child, before exec.  Ours goes last in LD_PRELOAD: a preload the
 * user asked for keeps its place in front of libc. */
void rec_fast_env(struct rec_ctx *c)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;

	if (!c->fast)
		return;
	if (old && *old) {
		v = malloc(strlen(old) + strlen(c->fast->lib) + 2);
		if (!v)
			return;
		sprintf(v, "%s:%s", old, c->fast->lib);
		setenv("LD_PRELOAD", v, 1);
		free(v);
	} else {
		setenv("LD_PRELOAD", c->fast->lib, 1);
	}
	setenv(FP_ENV, c->fast->shm_env, 1);
}

int rec_fast_is_flush(const struct rec_ctx *c, int nr, const uint64_t *args)
{
	return c->fast && nr == SYS_close && (int32_t)args[0] == FP_FLUSH_FD;
}

void rec_fast_hold(struct rec_ctx *c, struct rec_task *t, int on)
{
	struct fp_shm *h;

	if (!c->fast || !t || t->vfork_hold == on)
		return;
	h = c->fast->base;
	t->vfork_hold = on;
	if (on)
		__atomic_add_fetch(&h->hold, 1, __ATOMIC_ACQ_REL);
	else
		__atomic_sub_fetch(&h->hold, 1, __ATOMIC_ACQ_REL);
}

/* ---- reading one record ---- */

static void pst_to_pre(const struct fp_pst *ps, const char *target, struct rec_pre *pre)
{
	memset(pre, 0, sizeof(*pre));
	pre->err = ps->err;
	pre->missing = ps->err == ENOENT ? ps->missing : 0;
	if (ps->err)
		return;
	pre->sb.st_mode = ps->mode;
	pre->sb.st_uid = ps->uid;
	pre->sb.st_gid = ps->gid;
	pre->sb.st_nlink = ps->nlink;
	pre->sb.st_size = (off_t)ps->size;
	pre->sb.st_blocks = (blkcnt_t)ps->blocks;
	pre->sb.st_ino = ps->ino;
	pre->sb.st_dev = ps->dev;
	pre->sb.st_rdev = ps->rdev;
	pre->sb.st_atim.tv_sec = ps->atime_ns / 1000000000;
	pre->sb.st_atim.tv_nsec = ps->atime_ns % 1000000000;
	pre->sb.st_mtim.tv_sec = ps->mtime_ns / 1000000000;
	pre->sb.st_mtim.tv_nsec = ps->mtime_ns % 1000000000;
	pre->sb.st_ctim.tv_sec = ps->ctime_ns / 1000000000;
	pre->sb.st_ctim.tv_nsec = ps->ctime_ns % 1000000000;
	if (target) {
		pre->target = target;
		pre->target_len = ps->tlen;
	}
}

/*
 * The record's strings and states by argument index, as the preload laid
 * them out (fp_gather in record/fastpath/preload.c).  The ring is the
 * program's memory: every length is checked against the record's.
 * @return : 0, or -EINVAL for a record that does not parse
 */
static int view_of(const struct fp_rec *r, const struct iot_syscall *sc,
		   struct rec_view *v, struct rec_pre pre[4])
{
	const char *d = r->data;
	uint32_t dlen = r->len - (uint32_t)sizeof(*r), off = 0, poff, i;
	int ns = 0, np = 0;

	rec_zero(v, sizeof(*v));
	v->zero = (r->flags & FP_RF_ZERO) != 0;
	if (r->pst_off > dlen)
		return -EINVAL;
	if (r->flags & FP_RF_DATA) {
		/* the bytes the call asked to write (fp_data_asked()): its
		 * length argument, or the iovecs' sum gathered into args */
		int w = iot_syscall_wbuf(sc);
		uint64_t n = w < 0 ? 0 : sc->arg[w] == IOT_ARG_PTR ? r->args[w + 1] : r->args[w];

		if (w < 0 || r->data_off > dlen || n > dlen - r->data_off)
			return -EINVAL;
		v->data = d + r->data_off;
		v->data_len = (uint32_t)n;
	}
	poff = r->pst_off;
	for (i = 0; i < (uint32_t)sc->nargs; i++) {
		int kind = sc->arg[i];
		uint32_t n;

		if (kind != IOT_ARG_PATH && kind != IOT_ARG_PATH2 && kind != IOT_ARG_STR2) {
			if (kind == IOT_ARG_OPENHOW)
				i++;
			continue;
		}
		if (ns++ >= r->nstr || off + 4 > r->pst_off)
			return -EINVAL;
		memcpy(&n, d + off, 4);
		off += 4;
		if (n == FP_NOSTR)
			continue;
		if (n >= REC_PATH_MAX || off + n + 1 > r->pst_off || d[off + n] != 0)
			return -EINVAL;
		v->str[i] = d + off;
		v->slen[i] = n;
		off += (n + 1 + 3) & ~3u;
		if (kind != IOT_ARG_STR2 && n > 0 && np < 2 && np < r->npst) {
			struct fp_pst ps;
			const char *target = NULL;

			if (poff + sizeof(ps) > dlen)
				return -EINVAL;
			memcpy(&ps, d + poff, sizeof(ps));
			poff += (uint32_t)sizeof(ps);
			if (ps.tspace) {
				struct fp_pst tps;

				if (ps.tspace > dlen - poff || ps.tlen >= ps.tspace ||
				    d[poff + ps.tlen] != 0)
					return -EINVAL;
				if (ps.tlen)
					target = d + poff;
				poff += ps.tspace;
				if (sizeof(tps) > dlen - poff)
					return -EINVAL;
				memcpy(&tps, d + poff, sizeof(tps));
				poff += (uint32_t)sizeof(tps);
				pst_to_pre(&tps, NULL, &pre[2 + np]);
			}
			pst_to_pre(&ps, target, &pre[np]);
			if (ps.tspace)
				pre[np].through = &pre[2 + np];
			if (ps.err != FP_PST_UNKNOWN)
				v->pre[i] = &pre[np];
			np++;
		}
	}
	return 0;
}

/* The call fields of a task, kept aside while a fast record of the same
 * thread is decoded (a signal handler's call inside a traced one). */
struct saved_call {
	struct iot_event ev;
	const struct iot_syscall *sc;
	uint64_t raw[IOT_MAX_ARGS];
	char *path, *path2, **argv, *exec_path;
	uint32_t argc;
	uint64_t clone_flags;
	int in_syscall, want_exit, hidden;
};

static void save_call(struct rec_task *t, struct saved_call *s)
{
	s->ev = t->ev;
	s->sc = t->sc;
	memcpy(s->raw, t->raw, sizeof(s->raw));
	s->path = t->path;
	s->path2 = t->path2;
	s->argv = t->argv;
	s->exec_path = t->exec_path;
	s->argc = t->argc;
	s->clone_flags = t->clone_flags;
	s->in_syscall = t->in_syscall;
	s->want_exit = t->want_exit;
	s->hidden = t->hidden;
	t->path = t->path2 = t->exec_path = NULL;
	t->argv = NULL;
	t->argc = 0;
	t->in_syscall = 0;
}

static void restore_call(struct rec_task *t, const struct saved_call *s)
{
	t->ev = s->ev;
	t->sc = s->sc;
	memcpy(t->raw, s->raw, sizeof(t->raw));
	t->path = s->path;
	t->path2 = s->path2;
	t->argv = s->argv;
	t->exec_path = s->exec_path;
	t->argc = s->argc;
	t->clone_flags = s->clone_flags;
	t->in_syscall = s->in_syscall;
	t->want_exit = s->want_exit;
	t->hidden = s->hidden;
}

/* A write to a pipe with no reader returns EPIPE and raises SIGPIPE, and
 * when that kills the thread it dies before its library can write the
 * result down.  The ptrace path sees the return at the exit stop; here the
 * death says what the call returned. */
static int died_of_epipe(const struct iot_syscall *sc, int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE && (sc->flags & IOT_SCF_PIPE);
}

void rec_fast_decode_rec(struct rec_ctx *c, const struct fp_rec *r, int unfinished,
		       int status)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(r->nr);
	struct rec_task *t = rec_task_get(c, r->tid);
	struct saved_call sv;
	struct rec_view v;
	struct rec_pre pre[4];

	/* the ring is the program's memory: times that cannot be are a
	 * record the program wrote over, counted as lost, not written */
	/* the bpf backend: a vfork child's calls land in its parent's ring
	 * (it shares its memory and TLS), and the programs log them under
	 * its own tid (iotape.bpf.c) */
	if (c->bpf && t && t->vfork_child)
		return;
	if (!sc || !t || view_of(r, sc, &v, pre) < 0 || r->t_enter == 0 ||
	    (int64_t)r->t_enter > iot_now_ns() ||
	    (!unfinished && r->t_exit < r->t_enter)) {
		c->st.dropped++;
		return;
	}
	save_call(t, &sv);
	t->view = &v;
	if (rec_decode_entry(c, t, r->nr, r->args, (int64_t)r->t_enter)) {
		t->ev.flags |= IOT_EV_FASTPATH;
		/* the library's own work before the call: tracing, not think
		 * time (a record that cannot have it leaves it unknown) */
		if (r->t_wrap && r->t_wrap <= r->t_enter && r->t_enter - r->t_wrap < UINT32_MAX)
			t->ev.pre_ns = (uint32_t)(r->t_enter - r->t_wrap);
		c->st.fast_events++;
		if (unfinished && died_of_epipe(sc, status))
			rec_decode_exit(c, t, -EPIPE, iot_now_ns());
		else if (unfinished && t->left_nr == (long)r->nr + 1)
			rec_decode_exit(c, t, t->left_rv, iot_now_ns());
		else if (unfinished && t->sig_nr == (long)r->nr + 1 &&
			 (int64_t)r->t_enter <= t->sig_ns)
			/* returned into a handler that never came back */
			rec_decode_exit(c, t, t->sig_rv, t->sig_ns);
		else if (unfinished)
			rec_emit_unfinished(c, t, iot_now_ns());
		else
			rec_decode_exit(c, t, r->ret, (int64_t)r->t_exit);
	}
	t->view = NULL;
	rec_task_clear_call(t);
	restore_call(t, &sv);
}

/* ---- draining ---- */

static int add_item(struct rec_fast *f, struct fp_rec *r, struct fp_slot *s, uint64_t pos)
{
	if (f->n_items == f->cap_items) {
		size_t cap = f->cap_items ? f->cap_items * 2 : 4096;
		struct fast_item *it = realloc(f->items, cap * sizeof(*it));

		if (!it)
			return -ENOMEM;
		f->items = it;
		f->cap_items = cap;
	}
	f->items[f->n_items].rec = r;
	f->items[f->n_items].slot = s;
	f->items[f->n_items].pos = pos;
	f->n_items++;
	return 0;
}

int rec_fast_cmp_item(const void *a, const void *b)
{
	const struct fast_item *x = a, *y = b;

	if (x->rec->t_enter != y->rec->t_enter)
		return x->rec->t_enter < y->rec->t_enter ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Collect the complete records of @s from its tail: up to the first one
 * still in flight (ENTERED, or reserved and not yet written), unless
 * @last, when the thread is gone and a call it was in counts as
 * unfinished.  @return : where collection stopped (ever-offset)
 */
uint64_t rec_fast_collect(struct rec_ctx *c, struct fp_slot *s, int last, uint64_t cut)
{
	struct rec_fast *f = c->fast;
	char *ring = fp_ring_of(s);
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
	uint64_t pos = s->tail;

	while (pos < head) {
		uint64_t at = pos % FP_RING_BYTES;
		struct fp_rec *r = (struct fp_rec *)(ring + at);
		uint32_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		uint32_t len = r->len;

		if (st == FP_REC_EMPTY || (st == FP_REC_ENTERED && !last))
			break;
		if (st != FP_REC_PAD && len >= sizeof(*r) && r->t_enter >= cut)
			break;
		if (len < (st == FP_REC_PAD ? 8 : sizeof(*r)) || (len & 7) ||
		    len > FP_RING_BYTES - at || pos + len > head) {
			/* not a record: the program wrote over its ring */
			c->st.dropped++;
			return head;
		}
		if (st != FP_REC_PAD && add_item(f, r, s, pos) < 0)
			break;
		pos += len;
	}
	return pos;
}

/*
 * Zero the consumed bytes and hand them back.  All of them, not only the
 * record states: the producer moves head before it writes a record, and
 * records of other lengths start at other offsets, so a state word read
 * at a new record's place before it is written must read EMPTY, never a
 * stale byte pattern of an older record (an old args value of 1 read as
 * DONE made one event 5,000 s long).
 */
void rec_fast_consume(struct fp_slot *s, uint64_t upto)
{
	char *ring = fp_ring_of(s);
	uint64_t pos = s->tail, at = pos % FP_RING_BYTES, n = upto - pos;

	if (n > FP_RING_BYTES)
		n = FP_RING_BYTES;
	if (at + n <= FP_RING_BYTES) {
		memset(ring + at, 0, n);
	} else {
		memset(ring + at, 0, FP_RING_BYTES - at);
		memset(ring, 0, n - (FP_RING_BYTES - at));
	}
	__atomic_store_n(&s->tail, upto, __ATOMIC_RELEASE);
}

static void drain(struct rec_ctx *c, pid_t last_tid, int status)
{
	struct rec_fast *f = c->fast;
	uint64_t upto[FP_NSLOTS];
	size_t i;
	unsigned k;

	if (!f)
		return;
	f->n_items = 0;
	for (k = 0; k < FP_NSLOTS; k++) {
		struct fp_slot *s = fp_slot_at(f->base, k);

		upto[k] = 0;
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FP_SLOT_OWNED)
			continue;
		upto[k] = rec_fast_collect(c, s, last_tid && s->tid == last_tid, UINT64_MAX);
	}
	if (f->n_items > 1)
		qsort(f->items, f->n_items, sizeof(*f->items), rec_fast_cmp_item);
	for (i = 0; i < f->n_items; i++) {
		struct fp_rec *r = f->items[i].rec;

		rec_fast_decode_rec(c, r, __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) ==
			   FP_REC_ENTERED, status);
	}
	for (k = 0; k < FP_NSLOTS; k++) {
		struct fp_slot *s = fp_slot_at(f->base, k);

		if (upto[k] > s->tail)
			rec_fast_consume(s, upto[k]);
	}
	f->n_items = 0;
}

static void drain_all(struct rec_ctx *c)
{
	drain(c, 0, 0);
}

void rec_fast_drain(struct rec_ctx *c)
{
	drain(c, 0, 0);
}

void rec_fast_release(struct rec_ctx *c, pid_t tid, int status)
{
	if (!c->fast)
		return;
	drain(c, tid, status);
	rec_fast_free_slots(c, tid, UINT64_MAX);
}

/* ---- a program unmapping the rings ---- */

static struct fp_proc *proc_of(struct rec_ctx *c, pid_t pid)
{
	struct fp_shm *h = c->fast->base;
	unsigned i;

	for (i = 0; i < FP_NPROCS; i++)
		if (__atomic_load_n(&h->procs[i].pid, __ATOMIC_ACQUIRE) == pid)
			return &h->procs[i];
	return NULL;
}

void rec_fast_proc_gone(struct rec_ctx *c, pid_t pid)
{
	struct fp_proc *p;

	if (!c->fast || !(p = proc_of(c, pid)))
		return;
	p->map = p->state = 0;
	__atomic_store_n(&p->pid, 0, __ATOMIC_RELEASE);
}

/*
 * @t is about to unmap or map over [@addr, @addr+@len).  If that hits its
 * process's view of the rings, drain them and switch its library off
 * (its on/off word := -1) before the call runs: from then on its calls
 * stop in the recorder, and no wrapper writes into the hole.
 */
void rec_fast_unmapping(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len)
{
	/* the bpf backend decodes the call after it ran: too late; its
	 * guard stops it before (rec_fast_switch_off()) */
	if (!c->fast || c->bpf)
		return;
	rec_fast_switch_off(c, t, addr, len, drain_all);
}

void rec_fast_switch_off(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len,
			 void (*drain_first)(struct rec_ctx *))
{
	struct fp_proc *p;
	struct iovec local, remote;
	int32_t off = -1;

	if (!c->fast || !(p = proc_of(c, t->pid)) || !p->map)
		return;
	if (addr >= p->map + FP_SHM_BYTES || addr + len <= p->map)
		return;
	if (drain_first)
		drain_first(c);
	local.iov_base = &off;
	local.iov_len = sizeof(off);
	remote.iov_base = (void *)(uintptr_t)p->state;
	remote.iov_len = sizeof(off);
	process_vm_writev(t->tid, &local, 1, &remote, 1, 0);
	rec_fast_proc_gone(c, t->pid);
}
