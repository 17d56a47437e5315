/*
 * uring.c - io_uring rings, followed in the program's memory: their
 * set-up, where the program mapped them (or gave their memory,
 * IORING_SETUP_NO_MMAP), the SQEs each io_uring_enter consumed, the
 * CQEs the kernel posted, and what was registered with them (files,
 * buffers, eventfds, the ring's descriptor in the thread's table).
 * record/aio.c says why each is read where it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "aio_int.h"

/* The ring a call of @t names by @arg: its descriptor, or with
 * @registered the index @t's thread registered it under. */
struct rec_actx *rec_uring_ring_of(struct rec_ctx *c, struct rec_task *t, uint64_t arg,
				int registered)
{
	uint32_t i, k;

	if (!registered)
		return rec_actx_find(c, IOT_AIO_URING, t->pid, (uint32_t)arg, NULL);
	for (i = 0; c->aio && i < c->aio->n; i++) {
		struct rec_actx *a = c->aio->c[i];

		if (a->api != IOT_AIO_URING || a->pid != t->pid)
			continue;
		for (k = 0; k < a->n_reg; k++)
			if (a->reg[k].tid == t->tid && a->reg[k].idx == (uint32_t)arg)
				return a;
	}
	return NULL;
}

struct rec_actx *rec_uring_ring_new(struct rec_ctx *c, pid_t pid, int fd, uint32_t flags,
				    uint32_t sq_entries, uint32_t cq_entries)
{
	struct rec_actx *a = rec_actx_new(c, IOT_AIO_URING, pid, (uint64_t)fd);

	if (!a)
		return NULL;
	a->flags = flags;
	a->sq_entries = sq_entries;
	a->cq_entries = cq_entries;
	if (flags & IORING_SETUP_SQPOLL)
		c->st.uring_sqpoll++;
	return a;
}

static void setup_emit(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		       uint64_t event)
{
	struct iot_aio r;

	rec_aio_init(&r, IOT_AIO_SETUP, IOT_AIO_URING, event, t->ev.t_exit, t, a->ctx);
	r.fd = (int32_t)a->ctx;
	r.len = a->sq_entries;
	r.res = a->cq_entries;
	r.flags = a->flags;
	rec_aio_emit(c, &r);
	a->setup_done = 1;
}

void rec_uring_setup_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct io_uring_params p;
	struct rec_actx *a;
	int fd = (int)t->ev.ret;

	if (fd < 0)
		return;
	rec_fd_set(t, fd, RING_PATH, sizeof(RING_PATH) - 1, 0);
	if (c->bpf) {
		/* the bpf backend: the kernel's io_uring_create said it */
		a = rec_actx_find(c, IOT_AIO_URING, t->pid, (uint64_t)fd, NULL);
		if (a && a->bpf && !a->setup_done)
			setup_emit(c, t, a, event);
		return;
	}
	if (rec_read_mem(t->tid, t->raw[1], &p, sizeof(p)) != sizeof(p))
		return;
	if (!(a = rec_uring_ring_new(c, t->pid, fd, p.flags, p.sq_entries, p.cq_entries)))
		return;
	a->features = p.features;
	a->sq_off = p.sq_off;
	a->cq_off = p.cq_off;
	if (p.flags & IORING_SETUP_NO_MMAP) {
		/* the rings are in memory the program gave: sq_off.user_addr
		 * holds the SQEs, cq_off.user_addr both rings (the field is
		 * resv2 in headers before Linux 6.5) */
		a->sqes = p.sq_off.resv2;
		a->sq_ring = a->cq_ring = p.cq_off.resv2;
	}
	setup_emit(c, t, a, event);
}

int rec_aio_mmap(struct rec_ctx *c, struct rec_task *t, uint64_t addr, int fd,
		 uint64_t off)
{
	struct rec_actx *a = rec_actx_find(c, IOT_AIO_URING, t->pid, (uint64_t)(uint32_t)fd, NULL);

	if (!a)
		return 0;
	if (off == IORING_OFF_SQ_RING) {
		a->sq_ring = addr;
		/* one mapping holds both rings */
		if (a->features & IORING_FEAT_SINGLE_MMAP)
			a->cq_ring = addr;
	} else if (off == IORING_OFF_CQ_RING) {
		a->cq_ring = addr;
	} else if (off == IORING_OFF_SQES) {
		a->sqes = addr;
	}
	return 1;
}

static int read_u32(struct rec_task *t, uint64_t addr, uint32_t *v)
{
	return rec_read_mem(t->tid, addr, v, 4) == 4 ? 0 : -EFAULT;
}

/* The path @str of @t, against @dirfd, made absolute (and with @state
 * its state taken): @return : it (malloc'd, *@len set), or NULL */
static char *path_abs(struct rec_ctx *c, struct rec_task *t, int dirfd, const char *str,
		      int state, uint32_t *len)
{
	char *p;

	if (!str)
		return NULL;
	p = rec_task_path_abs(t, dirfd == AT_FDCWD || str[0] == '/' ?
			      (t->fs ? t->fs->cwd : NULL) : rec_fd_path(t, dirfd, NULL),
			      str, len);
	if (p && state) {
		c->state_task = t;
		rec_path_state(c, p, *len, NULL);
		c->state_task = NULL;
	}
	return p;
}

/* ... with the path at @addr of @t's memory, or @k's @i-th (the bpf
 * backend's: its state is taken when its batch is written,
 * rec_uring_held_take()) */
static char *sqe_path(struct rec_ctx *c, struct rec_task *t, int dirfd, uint64_t addr,
		      const struct rec_uring_kern *k, int i, uint32_t *len)
{
	if (k)
		return path_abs(c, t, dirfd, k->str[i], 0, len);
	if (rec_read_str(t->tid, addr, c->buf, REC_PATH_MAX) < 0)
		return NULL;
	return path_abs(c, t, dirfd, c->buf, 1, len);
}

int rec_uring_sqe_req(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		      const struct io_uring_sqe *s, struct rec_aio_req *r,
		      const struct rec_uring_kern *k)
{
	uint32_t len = 0;

	r->a.kind = IOT_AIO_SUBMIT;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.opcode = s->opcode;
	r->a.fd = s->fd;
	r->a.off = s->off;
	r->a.len = s->len;
	r->a.flags = s->flags;
	r->a.rw_flags = s->rw_flags;
	r->a.user_data = s->user_data;
	r->a.buf_index = s->buf_index;
	switch (s->opcode) {
	case IORING_OP_NOP:
		/* a NOP takes no file, no buffer, no offset: what the SQE
		 * holds there is whatever the program left in it (liburing:
		 * fd -1), and the kernel keeps none of it where the bpf
		 * backend reads the request (its fd field is another
		 * request's completion flags).  Written as the kernel runs
		 * it, so that both backends write the same record */
		r->a.fd = -1;
		r->a.off = r->a.len = 0;
		r->a.rw_flags = 0;
		r->a.buf_index = 0;
		return 1;
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
		if (!k) {
			r->a.len = rec_aio_req_iovecs(t, r, s->addr, s->len);
			break;
		}
		r->a.len = k->vec_bytes;
		if (k->niov && (r->vals = calloc(k->niov, sizeof(*r->vals)))) {
			for (uint32_t i = 0; i < k->niov; i++)
				r->vals[i] = (int64_t)k->iov[i];
			r->a.vals = r->vals;
			r->a.nvals = k->niov;
		}
		break;
	case IORING_OP_FALLOCATE:
		/* the length travels in addr, the mode in len */
		r->a.len = s->addr;
		r->a.rw_flags = s->len;
		break;
	case IORING_OP_OPENAT:
	case IORING_OP_STATX:
	case IORING_OP_UNLINKAT:
	case IORING_OP_MKDIRAT:
	case IORING_OP_RENAMEAT:
		/* path ops: a dirfd in fd, the path at addr; renameat's new
		 * dirfd in len, its new path at addr2 (off) */
		if (k && !k->str[0])
			return 0;
		if ((r->path = sqe_path(c, t, s->fd, s->addr, k, 0, &len))) {
			r->a.path = r->path;
			r->a.path_len = len;
		}
		if (s->opcode == IORING_OP_RENAMEAT &&
		    (r->path2 = sqe_path(c, t, (int)s->len, s->addr2, k, 1, &len))) {
			r->a.path2 = r->path2;
			r->a.path2_len = len;
		}
		return 1;
	}
	if (s->flags & IOSQE_FIXED_FILE) {
		if ((uint32_t)s->fd < a->n_files && a->files[s->fd])
			rec_aio_req_path(r, a->files[s->fd], (uint32_t)strlen(a->files[s->fd]));
	} else {
		const char *fp = rec_fd_path(t, s->fd, &len);

		rec_aio_req_path(r, fp, len);
	}
	return 1;
}

/* A call that waits for completions waits for min_complete in the ring,
 * those the program left there (not yet reaped) included: how many it
 * left, as it enters (written only when some were). */
static void cq_ready(struct rec_task *t, struct rec_actx *a)
{
	uint32_t head, tail;
	struct rec_aio_req *r;

	if (!(t->raw[3] & IORING_ENTER_GETEVENTS) || !t->raw[2] || !a->cq_ring ||
	    (a->flags & IORING_SETUP_SQPOLL) ||
	    read_u32(t, a->cq_ring + a->cq_off.head, &head) ||
	    read_u32(t, a->cq_ring + a->cq_off.tail, &tail) ||
	    tail == head || tail - head > a->cq_entries || !(r = rec_aio_req_add(t)))
		return;
	r->a.kind = IOT_AIO_CQ_READY;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.len = tail - head;
}

void rec_uring_enter_entry(struct rec_ctx *c, struct rec_task *t)
{
	struct rec_actx *a;
	uint32_t head, tail, mask, n, i, idx;
	size_t sqe_size;

	a = rec_uring_ring_of(c, t, t->raw[0], (t->raw[3] & IORING_ENTER_REGISTERED_RING) != 0);
	if (!a) {
		if (t->raw[3] & IORING_ENTER_REGISTERED_RING)
			c->st.uring_unknown++;
		return;
	}
	/* what completed before this call: the program may have reaped it
	 * already and now submits under the same user_data again */
	rec_uring_reap(c, t, a, 0, 1);
	cq_ready(t, a);
	if (!t->raw[1])
		return;
	if (a->flags & IORING_SETUP_SQPOLL)
		return;		/* the kernel's thread consumes the ring */
	if (!a->sq_ring || !a->sqes) {
		c->st.uring_unknown++;
		return;
	}
	if (read_u32(t, a->sq_ring + a->sq_off.head, &head) ||
	    read_u32(t, a->sq_ring + a->sq_off.tail, &tail) ||
	    read_u32(t, a->sq_ring + a->sq_off.ring_mask, &mask))
		return;
	n = tail - head;
	if (n > (uint32_t)t->raw[1])
		n = (uint32_t)t->raw[1];
	if (n > MAX_BATCH)
		n = MAX_BATCH;
	sqe_size = (a->flags & IORING_SETUP_SQE128) ? 128 : 64;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe s;
		struct rec_aio_req *r;

		idx = (head + i) & mask;
		if (!(a->flags & IORING_SETUP_NO_SQARRAY) &&
		    read_u32(t, a->sq_ring + a->sq_off.array + idx * 4, &idx))
			return;
		idx &= mask;
		if (rec_read_mem(t->tid, a->sqes + idx * sqe_size, &s, sizeof(s)) != sizeof(s))
			return;
		if (!(r = rec_aio_req_add(t)))
			return;
		rec_uring_sqe_req(c, t, a, &s, r, NULL);
		/* --data: what a write will write, there until it completes */
		if (s.opcode == IORING_OP_WRITE || s.opcode == IORING_OP_WRITE_FIXED ||
		    s.opcode == IORING_OP_WRITEV)
			rec_data_req(c, t, r, s.opcode == IORING_OP_WRITEV, s.addr, s.len);
	}
}

void rec_uring_reap(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		     uint64_t event, int collect)
{
	uint32_t tail, mask, n, i;
	size_t cqe_size;

	if (a->bpf)
		return;		/* its completions come from the kernel */
	if (a->sq_ring && !read_u32(t, a->sq_ring + a->sq_off.head, &a->sq_head))
		a->head_known = 1;
	if (!a->cq_ring || read_u32(t, a->cq_ring + a->cq_off.tail, &tail) ||
	    read_u32(t, a->cq_ring + a->cq_off.ring_mask, &mask))
		return;
	n = tail - a->cq_seen;
	if (n > a->cq_entries) {
		/* overwritten before the recorder could read them */
		c->st.aio_lost += n - a->cq_entries;
		a->cq_seen = tail - a->cq_entries;
		n = a->cq_entries;
	}
	cqe_size = (a->flags & IORING_SETUP_CQE32) ? 32 : 16;
	for (i = 0; i < n; i++) {
		struct io_uring_cqe q;
		uint64_t at = a->cq_ring + a->cq_off.cqes + ((a->cq_seen + i) & mask) * cqe_size;

		if (rec_read_mem(t->tid, at, &q, sizeof(q)) != sizeof(q))
			break;
		if (collect) {
			struct rec_aio_req *r = rec_aio_req_add(t);

			if (!r)
				break;
			r->a.kind = IOT_AIO_COMPLETE;
			r->a.api = IOT_AIO_URING;
			r->a.user_data = q.user_data;
			r->a.res = q.res;
			continue;
		}
		rec_aio_emit_complete(c, t, a, event, q.user_data, q.user_data, q.res,
			      t->ev.t_exit ? t->ev.t_exit : t->ev.t_enter);
	}
	a->cq_seen += i;
}

void rec_uring_reg_req(struct rec_actx *a, uint32_t op, struct rec_aio_req *r)
{
	r->a.kind = IOT_AIO_REGISTER;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.opcode = op;
	r->a.fd = (int32_t)a->ctx;
}

void rec_uring_register_entry(struct rec_ctx *c, struct rec_task *t)
{
	uint32_t op = (uint32_t)t->raw[1] & ~IOT_URING_REG_USE_RING, nr = (uint32_t)t->raw[3], i;
	struct rec_actx *a = rec_uring_ring_of(c, t, t->raw[0],
					       ((uint32_t)t->raw[1] & IOT_URING_REG_USE_RING) != 0);
	struct rec_aio_req *r;

	if (!a || (op != IORING_REGISTER_FILES && op != IORING_REGISTER_BUFFERS &&
		   op != IORING_REGISTER_EVENTFD && op != IORING_REGISTER_EVENTFD_ASYNC) ||
	    nr > 65536 || !(r = rec_aio_req_add(t)))
		return;
	rec_uring_reg_req(a, op, r);
	if (op == IORING_REGISTER_EVENTFD || op == IORING_REGISTER_EVENTFD_ASYNC)
		nr = 1;		/* one int: the eventfd */
	if (op == IORING_REGISTER_BUFFERS) {
		r->a.len = rec_aio_req_iovecs(t, r, t->raw[2], nr);
		return;
	}
	if (!nr || !(r->vals = calloc(nr, sizeof(*r->vals))))
		return;
	for (i = 0; i < nr; i++) {
		int32_t fd;

		if (rec_read_mem(t->tid, t->raw[2] + i * 4, &fd, 4) != 4)
			break;
		r->vals[i] = fd;
	}
	r->a.vals = r->vals;
	r->a.nvals = i;
}

/* IORING_(UN)REGISTER_RING_FDS: which index @u's ring descriptor got
 * in @t's thread, or lost; written as a REGISTER record of the ring
 * (vals: the index), so that a replay finds the ring its enters name */
static void ring_fd_reg(struct rec_ctx *c, struct rec_task *t, uint64_t event, int reg,
			const struct io_uring_rsrc_update *u)
{
	struct rec_actx *a;
	struct iot_aio r;
	int64_t idx;
	uint32_t k;

	if (reg) {
		if (!(a = rec_actx_find(c, IOT_AIO_URING, t->pid, (uint32_t)u->data, NULL)))
			return;
		if (a->n_reg < REG_MAX) {
			a->reg[a->n_reg].tid = t->tid;
			a->reg[a->n_reg++].idx = u->offset;
		}
	} else if (!(a = rec_uring_ring_of(c, t, u->offset, 1))) {
		return;
	} else {
		for (k = 0; k < a->n_reg; k++)
			if (a->reg[k].tid == t->tid && a->reg[k].idx == u->offset) {
				a->reg[k] = a->reg[--a->n_reg];
				break;
			}
	}
	rec_aio_init(&r, IOT_AIO_REGISTER, IOT_AIO_URING, event, t->ev.t_exit, t, a->ctx);
	r.opcode = reg ? IORING_REGISTER_RING_FDS : IORING_UNREGISTER_RING_FDS;
	r.fd = (int32_t)a->ctx;
	idx = u->offset;
	r.vals = &idx;
	r.nvals = 1;
	rec_aio_emit(c, &r);
}

/* ... each update the call made: read from @t's memory, or with the bpf
 * backend from its record (vals: index and descriptor pairs) */
static void ring_fds_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event, int reg)
{
	struct io_uring_rsrc_update u;
	uint32_t i, n = reg ? (uint32_t)t->ev.ret : (uint32_t)t->raw[3];

	for (i = 0; i < n && i < 16; i++) {
		memset(&u, 0, sizeof(u));
		if (c->bpf) {
			const struct iot_aio *g = t->n_aio ? &t->aio[0].a : NULL;

			if (!g || g->kind != IOT_AIO_REGISTER || 2 * i + 1 >= g->nvals)
				return;
			u.offset = (uint32_t)g->vals[2 * i];
			u.data = (uint64_t)g->vals[2 * i + 1];
		} else if (rec_read_mem(t->tid, t->raw[2] + i * sizeof(u), &u, sizeof(u)) !=
			   sizeof(u)) {
			return;
		}
		ring_fd_reg(c, t, event, reg, &u);
	}
}

void rec_uring_register_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	uint32_t op = (uint32_t)t->raw[1] & ~IOT_URING_REG_USE_RING;
	struct rec_actx *a = rec_uring_ring_of(c, t, t->raw[0],
					       ((uint32_t)t->raw[1] & IOT_URING_REG_USE_RING) != 0);
	struct iot_aio *r;
	uint32_t i;

	if (op == IORING_REGISTER_RING_FDS || op == IORING_UNREGISTER_RING_FDS) {
		if (t->ev.ret >= 0)
			ring_fds_exit(c, t, event, op == IORING_REGISTER_RING_FDS);
		return;
	}
	if (!a || !t->n_aio || t->ev.ret < 0)
		return;
	r = &t->aio[0].a;
	r->event = event;
	r->t_ns = t->ev.t_exit;
	rec_aio_emit(c, r);
	if (r->opcode != IORING_REGISTER_FILES)
		return;
	for (i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	a->n_files = 0;
	if (!(a->files = calloc(r->nvals + 1, sizeof(*a->files))))
		return;
	for (i = 0; i < r->nvals; i++) {
		uint32_t len;
		const char *p = rec_fd_path(t, r->vals[i], &len);

		a->files[i] = p ? strndup(p, len) : NULL;
	}
	a->n_files = r->nvals;
}

/* ---- the bpf backend's records, waiting for their call's event ---- */

struct rec_aio_req *rec_uring_held_add(struct rec_actx *a, pid_t pid, pid_t tid)
{
	struct rec_uring_held *h;

	if (a->n_held == a->cap_held) {
		uint32_t nc = a->cap_held ? a->cap_held * 2 : 64;
		struct rec_uring_held *v = realloc(a->held, nc * sizeof(*v));

		if (!v)
			return NULL;
		a->held = v;
		a->cap_held = nc;
	}
	h = &a->held[a->n_held++];
	memset(h, 0, sizeof(*h));
	h->tid = tid;
	h->r.a.resfd = -1;
	h->r.a.pid = pid;
	h->r.a.tid = tid ? tid : pid;
	return &h->r;
}

/*
 * The bpf backend's path requests: their paths' states, taken when their
 * batch is written (the ptrace backend takes them at the entry stop,
 * before the kernel ran them; here the kernel may have run them when the
 * record is read).  What a completion in the batch says stands in for a
 * look before: a directory or a file it made (FMODE_CREATED, read by
 * the BPF program at the completion) was not there; a name removed was there (a file, or with AT_REMOVEDIR a
 * directory: its attributes are gone, an empty one is written); a name
 * renamed was what the new name is now.
 */
static void path_states(struct rec_ctx *c, struct rec_task *t, uint32_t from)
{
	uint32_t i, j;

	for (i = from; i < t->n_aio; i++) {
		const struct iot_aio *s = &t->aio[i].a, *done = NULL;
		struct rec_pre pre, *pp = NULL;
		int created = 0;

		if (s->kind != IOT_AIO_SUBMIT || !s->path ||
		    (s->opcode != IORING_OP_OPENAT && s->opcode != IORING_OP_STATX &&
		     s->opcode != IORING_OP_UNLINKAT && s->opcode != IORING_OP_MKDIRAT &&
		     s->opcode != IORING_OP_RENAMEAT))
			continue;
		for (j = i + 1; j < t->n_aio && !done; j++)
			if (t->aio[j].a.kind == IOT_AIO_COMPLETE &&
			    t->aio[j].a.user_data == s->user_data) {
				done = &t->aio[j].a;
				created = t->aio[j].created;
			}
		memset(&pre, 0, sizeof(pre));
		if (done && done->res >= 0 &&
		    (s->opcode == IORING_OP_MKDIRAT || (s->opcode == IORING_OP_OPENAT && created))) {
			pre.err = ENOENT;
			pre.missing = 1;
			pp = &pre;
		} else if (done && done->res == 0 && s->opcode == IORING_OP_UNLINKAT &&
			   lstat(s->path, &pre.sb) < 0) {
			memset(&pre.sb, 0, sizeof(pre.sb));
			pre.sb.st_mode = (s->rw_flags & AT_REMOVEDIR) ? S_IFDIR | 0755 : S_IFREG | 0644;
			pre.sb.st_nlink = 1;
			pre.sb.st_uid = geteuid();
			pre.sb.st_gid = getegid();
			pp = &pre;
		} else if (done && done->res == 0 && s->opcode == IORING_OP_RENAMEAT && s->path2 &&
			   lstat(s->path2, &pre.sb) == 0 && !S_ISLNK(pre.sb.st_mode)) {
			pp = &pre;
		}
		c->state_task = t;
		rec_path_state(c, s->path, s->path_len, pp);
		if (s->path2)
			rec_path_state(c, s->path2, s->path2_len, NULL);
		c->state_task = NULL;
	}
}

uint32_t rec_uring_held_take(struct rec_ctx *c, struct rec_actx *a, struct rec_task *t, int any)
{
	uint32_t i, k = 0, n = 0, from = t->n_aio;
	struct rec_aio_req *v;

	for (i = 0; i < a->n_held; i++)
		n += a->held[i].tid == t->tid || (any && !a->held[i].tid);
	if (!n || !(v = realloc(t->aio, (t->n_aio + n) * sizeof(*v))))
		return 0;
	t->aio = v;
	for (i = 0; i < a->n_held; i++) {
		if (a->held[i].tid == t->tid || (any && !a->held[i].tid)) {
			t->aio[t->n_aio] = a->held[i].r;	/* its strings go along */
			t->aio[t->n_aio++].a.tid = t->tid;
		} else
			a->held[k++] = a->held[i];
	}
	a->n_held = k;
	path_states(c, t, from);
	return n;
}

void rec_uring_held_flush(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, int all)
{
	struct rec_aio_req *keep = t->aio;
	uint32_t keep_n = t->n_aio;
	uint64_t keep_data = t->aio_data;

	/* through @t's list, as a call's own records: the submits are put
	 * in flight, each completion finds its request */
	t->aio = NULL;
	t->n_aio = 0;
	for (uint32_t i = 0; all && i < a->n_held; i++)
		a->held[i].tid = 0;
	if (rec_uring_held_take(c, a, t, 1))
		rec_aio_emit_submits(c, t, a, event, INT64_MAX);
	rec_aio_clear_call(t);
	t->aio = keep;
	t->n_aio = keep_n;
	t->aio_data = keep_data;
}

void rec_uring_held_free(struct rec_actx *a)
{
	for (uint32_t i = 0; i < a->n_held; i++) {
		free(a->held[i].r.path);
		free(a->held[i].r.path2);
		free(a->held[i].r.vals);
	}
	free(a->held);
	a->held = NULL;
	a->n_held = a->cap_held = 0;
}
