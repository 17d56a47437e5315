/*
 * aio.c - asynchronous I/O: what libaio's and io_uring's requests were,
 * read from the program's memory, written as AsyncOp records after the
 * syscall event they came with (FORMAT.md, "Asynchronous I/O").
 *
 * libaio: io_submit(ctx, nr, iocbpp) names its requests in its arguments;
 * they are read at the entry stop (the program may reuse an iocb as soon
 * as the call returns) and the first `ret` of them kept at the exit.
 * io_getevents returns its completions in an array read at the exit.
 *
 * io_uring: requests are in the submission ring, shared memory the
 * program mmaps from the ring's descriptor (IORING_OFF_SQ_RING, _SQES,
 * _CQ_RING); the recorder follows those mmaps (decode.c calls
 * rec_aio_mmap()).  At io_uring_enter's entry the SQEs between the
 * kernel's head and the program's tail, at most to_submit, are read, and
 * at its exit the first `ret` are kept.  Completions are posted by the
 * kernel into the completion ring at any time and reaped by the program
 * without a syscall, so they are read from the ring at every
 * io_uring_enter exit (and before the ring is unmapped or closed): every
 * CQE from the last one seen to the ring's tail.  A CQE stays valid
 * until the kernel wraps onto it, which it cannot do before the
 * program's head passed it and cq_entries more were posted; those posts
 * need submissions, which need io_uring_enter, where the recorder reads.
 * So no completion is lost unless the ring overflowed (counted) or the
 * ring polls its submissions itself (SQPOLL: submissions need no
 * syscall, so they are not seen; said at the end and in `iotape check`).
 * A completion's time is when the recorder saw it, not when the kernel
 * posted it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rec.h"

#define MAX_BATCH 4096		/* requests read per call */
#define RING_PATH "anon_inode:[io_uring]"

#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)
#endif
#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1U << 14)
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING (1U << 4)
#endif

#define REG_MAX 8		/* threads that registered one ring, kept */
#define REG_FLAG (1U << 31)	/* IORING_REGISTER_USE_REGISTERED_RING */

/* A request in flight: what a completion of it carries into the trace. */
struct inflight {
	uint64_t key;			/* user_data (io_uring), iocb address (libaio) */
	uint32_t opcode;
	int32_t fd;
	uint32_t flags;
	char *path;
};

struct rec_actx {
	uint32_t api;
	pid_t pid;
	uint64_t ctx;			/* aio_context_t, or the ring's fd */
	/* io_uring */
	uint32_t flags, sq_entries, cq_entries, features;
	struct io_sqring_offsets sq_off;
	struct io_cqring_offsets cq_off;
	uint64_t sq_ring, cq_ring, sqes;	/* where the program mapped them; 0: not */
	uint32_t cq_seen;
	/* the kernel's SQ head when last read (a count of every request it
	 * took, mod 2^32), and how many of them are in the trace: SQPOLL
	 * rings take requests without a syscall */
	uint32_t sq_head;
	int head_known;
	uint32_t captured;
	char **files;			/* registered files' paths */
	uint32_t n_files;
	/* the indices threads registered the ring's descriptor under
	 * (IORING_REGISTER_RING_FDS: a table of each thread's own) */
	struct { pid_t tid; uint32_t idx; } reg[REG_MAX];
	uint32_t n_reg;
	struct inflight *fl;
	uint32_t n_fl, cap_fl;
};

struct rec_aio {
	struct rec_actx **c;
	uint32_t n, cap;
};

static void req_free(struct rec_aio_req *r)
{
	free(r->path);
	free(r->path2);
	free(r->vals);
}

void rec_aio_clear_call(struct rec_task *t)
{
	uint32_t i;

	for (i = 0; i < t->n_aio; i++)
		req_free(&t->aio[i]);
	free(t->aio);
	t->aio = NULL;
	t->n_aio = 0;
}

static void actx_free(struct rec_actx *a)
{
	uint32_t i;

	for (i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	for (i = 0; i < a->n_fl; i++)
		free(a->fl[i].path);
	free(a->fl);
	free(a);
}

void rec_aio_free(struct rec_ctx *c)
{
	uint32_t i;

	if (!c->aio)
		return;
	for (i = 0; i < c->aio->n; i++)
		actx_free(c->aio->c[i]);
	free(c->aio->c);
	free(c->aio);
	c->aio = NULL;
}

static struct rec_actx *actx_find(struct rec_ctx *c, uint32_t api, pid_t pid,
				  uint64_t ctx, uint32_t *idx)
{
	uint32_t i;

	if (!c->aio)
		return NULL;
	for (i = 0; i < c->aio->n; i++) {
		struct rec_actx *a = c->aio->c[i];

		if (a->api == api && a->pid == pid && a->ctx == ctx) {
			if (idx)
				*idx = i;
			return a;
		}
	}
	return NULL;
}

/* The ring a call of @t names by @arg: its descriptor, or with
 * @registered the index @t's thread registered it under. */
static struct rec_actx *ring_of(struct rec_ctx *c, struct rec_task *t, uint64_t arg,
				int registered)
{
	uint32_t i, k;

	if (!registered)
		return actx_find(c, IOT_AIO_URING, t->pid, (uint32_t)arg, NULL);
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

static struct rec_actx *actx_new(struct rec_ctx *c, uint32_t api, pid_t pid,
				 uint64_t ctx)
{
	struct rec_actx *a;
	uint32_t i;

	if ((a = actx_find(c, api, pid, ctx, &i))) {
		/* a context number reused after a close we did not see */
		actx_free(a);
		c->aio->c[i] = c->aio->c[--c->aio->n];
	}
	if (!c->aio && !(c->aio = calloc(1, sizeof(*c->aio))))
		return NULL;
	if (c->aio->n == c->aio->cap) {
		uint32_t nc = c->aio->cap ? c->aio->cap * 2 : 8;
		struct rec_actx **v = realloc(c->aio->c, nc * sizeof(*v));

		if (!v)
			return NULL;
		c->aio->c = v;
		c->aio->cap = nc;
	}
	if (!(a = calloc(1, sizeof(*a))))
		return NULL;
	a->api = api;
	a->pid = pid;
	a->ctx = ctx;
	c->aio->c[c->aio->n++] = a;
	return a;
}

/* A record of @kind for @t's process, tied to event number @event. */
static void aio_init(struct iot_aio *r, uint32_t kind, uint32_t api, uint64_t event,
		     int64_t t_ns, const struct rec_task *t, uint64_t ctx)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->api = api;
	r->event = event;
	r->t_ns = t_ns;
	r->pid = t->pid;
	r->tid = t->tid;
	r->ctx = ctx;
	r->resfd = -1;
}

static void emit(struct rec_ctx *c, const struct iot_aio *a);

/* @a goes (@t: the task it went with, or NULL): what it took that is not
 * in the trace is written as an END record */
static void actx_del(struct rec_ctx *c, struct rec_task *t, uint32_t api, pid_t pid,
		     uint64_t ctx)
{
	uint32_t i;
	struct rec_actx *a = actx_find(c, api, pid, ctx, &i);
	uint64_t ev = iot_writer_events(c->w);

	if (!a)
		return;
	c->st.aio_unreaped += a->n_fl;
	if (t && a->api == IOT_AIO_URING && a->head_known) {
		struct iot_aio r;

		aio_init(&r, IOT_AIO_END, IOT_AIO_URING, ev ? ev - 1 : 0,
			 t->ev.t_enter ? t->ev.t_enter : t->last_stop_ns, t, a->ctx);
		r.len = a->sq_head;
		r.res = a->captured;
		emit(c, &r);
		c->st.uring_missed += (uint32_t)(a->sq_head - a->captured);
	}
	actx_free(a);
	c->aio->c[i] = c->aio->c[--c->aio->n];
}

static void reap_cq(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		    uint64_t event);
static void emit_complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, uint64_t key, uint64_t data, int64_t res,
			  int64_t t_ns);
static void reap_cq_(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		     uint64_t event, int collect);

/* exec or exit of @t's process: its contexts and rings are gone; what
 * its rings still show completed is read first, if its memory still can
 * be */
void rec_aio_proc_gone(struct rec_ctx *c, struct rec_task *t)
{
	uint64_t ev = iot_writer_events(c->w);
	uint32_t i = 0;

	while (c->aio && i < c->aio->n) {
		struct rec_actx *a = c->aio->c[i];

		if (a->pid != t->pid) {
			i++;
			continue;
		}
		if (a->api == IOT_AIO_URING)
			reap_cq(c, t, a, ev ? ev - 1 : 0);
		actx_del(c, t, a->api, a->pid, a->ctx);
	}
}

static void fl_add(struct rec_actx *a, const struct iot_aio *r, uint64_t key)
{
	struct inflight *f;

	if (a->n_fl == a->cap_fl) {
		uint32_t nc = a->cap_fl ? a->cap_fl * 2 : 64;
		struct inflight *v = realloc(a->fl, nc * sizeof(*v));

		if (!v)
			return;
		a->fl = v;
		a->cap_fl = nc;
	}
	f = &a->fl[a->n_fl++];
	f->key = key;
	f->opcode = r->opcode;
	f->fd = r->fd;
	f->flags = r->flags;
	f->path = r->path ? strndup(r->path, r->path_len) : NULL;
}

/* Take the request @key out of the in-flight list: @return : 1 if found
 * (*@f filled, its path now the caller's), 0 if not. */
static int fl_take(struct rec_actx *a, uint64_t key, struct inflight *f)
{
	uint32_t i;

	for (i = 0; i < a->n_fl; i++) {
		if (a->fl[i].key != key)
			continue;
		*f = a->fl[i];
		a->fl[i] = a->fl[--a->n_fl];
		return 1;
	}
	return 0;
}

static struct rec_aio_req *req_add(struct rec_task *t)
{
	struct rec_aio_req *r;

	r = realloc(t->aio, (t->n_aio + 1) * sizeof(*r));
	if (!r)
		return NULL;
	t->aio = r;
	r = &t->aio[t->n_aio++];
	memset(r, 0, sizeof(*r));
	r->a.resfd = -1;
	r->a.pid = t->pid;
	r->a.tid = t->tid;
	r->a.t_ns = t->ev.t_enter;
	return r;
}

static void req_path(struct rec_aio_req *r, const char *p, uint32_t len)
{
	if (!p || !(r->path = strndup(p, len)))
		return;
	r->a.path = r->path;
	r->a.path_len = len;
}

/* iovec lengths at @addr (@cnt of them) into @r's vals; @return : their sum */
static uint64_t req_iovecs(struct rec_task *t, struct rec_aio_req *r,
			   uint64_t addr, uint64_t cnt)
{
	struct iovec *iov;
	uint64_t sum = 0, i;

	if (cnt > 1024)
		cnt = 1024;
	if (!cnt || !(iov = calloc(cnt, sizeof(*iov))))
		return 0;
	r->vals = calloc(cnt, sizeof(*r->vals));
	if (r->vals &&
	    rec_read_mem(t->tid, addr, iov, cnt * sizeof(*iov)) == (ssize_t)(cnt * sizeof(*iov))) {
		for (i = 0; i < cnt; i++) {
			r->vals[i] = (int64_t)iov[i].iov_len;
			sum += iov[i].iov_len;
		}
		r->a.vals = r->vals;
		r->a.nvals = (uint32_t)cnt;
	}
	free(iov);
	return sum;
}

/* ---- libaio ---- */

static void submit_entry(struct rec_ctx *c, struct rec_task *t)
{
	uint64_t ctx = t->raw[0], n = t->raw[1], ptrs[64], i, k;

	if ((int64_t)n <= 0)
		return;
	if (n > MAX_BATCH)
		n = MAX_BATCH;
	for (i = 0; i < n; i += k) {
		k = n - i < 64 ? n - i : 64;
		if (rec_read_mem(t->tid, t->raw[2] + i * 8, ptrs, k * 8) != (ssize_t)(k * 8))
			return;
		for (uint64_t j = 0; j < k; j++) {
			struct iocb cb;
			struct rec_aio_req *r;
			const char *p;
			uint32_t len = 0;

			if (rec_read_mem(t->tid, ptrs[j], &cb, sizeof(cb)) != sizeof(cb))
				return;
			if (!(r = req_add(t)))
				return;
			r->a.kind = IOT_AIO_SUBMIT;
			r->a.api = IOT_AIO_LIBAIO;
			r->a.ctx = ctx;
			r->a.opcode = cb.aio_lio_opcode;
			r->a.fd = (int32_t)cb.aio_fildes;
			r->a.off = (uint64_t)cb.aio_offset;
			r->a.flags = cb.aio_flags;
			r->a.rw_flags = (uint32_t)cb.aio_rw_flags;
			r->a.user_data = cb.aio_data;
			r->a.id = ptrs[j];
			if (cb.aio_flags & IOCB_FLAG_RESFD)
				r->a.resfd = (int32_t)cb.aio_resfd;
			if (cb.aio_lio_opcode == IOCB_CMD_PREADV ||
			    cb.aio_lio_opcode == IOCB_CMD_PWRITEV)
				r->a.len = req_iovecs(t, r, cb.aio_buf, cb.aio_nbytes);
			else
				r->a.len = cb.aio_nbytes;
			p = rec_fd_path(t, r->a.fd, &len);
			req_path(r, p, len);
		}
	}
}

static void emit(struct rec_ctx *c, const struct iot_aio *a)
{
	if (iot_writer_aio(c->w, a) < 0) {
		c->st.dropped++;
		return;
	}
	if (a->kind == IOT_AIO_SUBMIT) {
		unsigned dir = iot_aio_op_dir(a->api, a->opcode);

		c->st.aio_submit++;
		if (dir & IOT_SCF_READ)
			c->st.aio_rbytes += a->len;
		else if (dir & IOT_SCF_WRITE)
			c->st.aio_wbytes += a->len;
		if (!iot_aio_op_known(a->api, a->opcode)) {
			c->st.aio_undecoded++;
			if (a->opcode < 64)
				c->st.aio_undecoded_ops |= 1ULL << a->opcode;
		}
	} else if (a->kind == IOT_AIO_COMPLETE) {
		c->st.aio_complete++;
	}
}

/* Keep the first @done requests read at the entry. */
static void emit_submits(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			 uint64_t event, int64_t done)
{
	uint32_t i;
	int64_t k = 0;

	for (i = 0; i < t->n_aio; i++) {
		struct iot_aio *r = &t->aio[i].a;

		if (r->kind == IOT_AIO_COMPLETE) {
			emit_complete(c, t, a, event, r->user_data, r->user_data, r->res,
				      r->t_ns);
			continue;
		}
		if (k++ >= done)
			continue;
		r->event = event;
		emit(c, r);
		if (a) {
			fl_add(a, r, r->api == IOT_AIO_LIBAIO ? r->id : r->user_data);
			a->captured++;
		}
	}
}

static void emit_complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, uint64_t key, uint64_t data, int64_t res,
			  int64_t t_ns)
{
	struct iot_aio r;
	struct inflight f;
	int found = a && fl_take(a, key, &f);

	aio_init(&r, IOT_AIO_COMPLETE, a ? a->api : IOT_AIO_LIBAIO, event, t_ns, t,
		 a ? a->ctx : 0);
	r.user_data = data;
	r.id = r.api == IOT_AIO_LIBAIO ? key : 0;
	r.res = res;
	r.fd = -1;
	if (found) {
		r.opcode = f.opcode;
		r.fd = f.fd;
		r.flags = f.flags;
		r.path = f.path;
		r.path_len = f.path ? (uint32_t)strlen(f.path) : 0;
		/* descriptors io_uring opened or closed */
		if (r.api == IOT_AIO_URING && f.opcode == IORING_OP_OPENAT && res >= 0 &&
		    f.path && !(f.flags & IOSQE_FIXED_FILE))
			rec_fd_set(t, (int)res, f.path, r.path_len, 0);
		else if (r.api == IOT_AIO_URING && f.opcode == IORING_OP_CLOSE && res == 0 &&
			 !(f.flags & IOSQE_FIXED_FILE))
			rec_fd_close(t, f.fd);
	} else {
		c->st.aio_orphan++;
	}
	emit(c, &r);
	if (found)
		free(f.path);
}

static void getevents_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct rec_actx *a = actx_find(c, IOT_AIO_LIBAIO, t->pid, t->raw[0], NULL);
	struct io_event evs[64];
	int64_t n = t->ev.ret, i, k;

	for (i = 0; i < n; i += k) {
		k = n - i < 64 ? n - i : 64;
		if (rec_read_mem(t->tid, t->raw[3] + (uint64_t)i * sizeof(evs[0]), evs,
				 (size_t)k * sizeof(evs[0])) != (ssize_t)(k * sizeof(evs[0]))) {
			c->st.aio_lost += (uint64_t)(n - i);
			return;
		}
		for (int64_t j = 0; j < k; j++)
			emit_complete(c, t, a, event, evs[j].obj, evs[j].data, evs[j].res,
				      t->ev.t_exit);
	}
}

/* ---- io_uring ---- */

static void setup_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct io_uring_params p;
	struct rec_actx *a;
	struct iot_aio r;
	int fd = (int)t->ev.ret;

	if (fd < 0)
		return;
	rec_fd_set(t, fd, RING_PATH, sizeof(RING_PATH) - 1, 0);
	if (rec_read_mem(t->tid, t->raw[1], &p, sizeof(p)) != sizeof(p))
		return;
	if (!(a = actx_new(c, IOT_AIO_URING, t->pid, (uint64_t)fd)))
		return;
	a->flags = p.flags;
	a->sq_entries = p.sq_entries;
	a->cq_entries = p.cq_entries;
	a->features = p.features;
	a->sq_off = p.sq_off;
	a->cq_off = p.cq_off;
	if (p.flags & IORING_SETUP_SQPOLL)
		c->st.uring_sqpoll++;
	if (p.flags & IORING_SETUP_NO_MMAP) {
		/* the rings are in memory the program gave: sq_off.user_addr
		 * holds the SQEs, cq_off.user_addr both rings (the field is
		 * resv2 in headers before Linux 6.5) */
		a->sqes = p.sq_off.resv2;
		a->sq_ring = a->cq_ring = p.cq_off.resv2;
	}
	aio_init(&r, IOT_AIO_SETUP, IOT_AIO_URING, event, t->ev.t_exit, t, (uint64_t)fd);
	r.fd = fd;
	r.len = p.sq_entries;
	r.res = p.cq_entries;
	r.flags = p.flags;
	emit(c, &r);
}

int rec_aio_mmap(struct rec_ctx *c, struct rec_task *t, uint64_t addr, int fd,
		 uint64_t off)
{
	struct rec_actx *a = actx_find(c, IOT_AIO_URING, t->pid, (uint64_t)(uint32_t)fd, NULL);

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

/* The path at @addr of @t, against @dirfd, made absolute and its state
 * taken: @return : it (malloc'd, *@len set), or NULL */
static char *sqe_path(struct rec_ctx *c, struct rec_task *t, int dirfd, uint64_t addr,
		      uint32_t *len)
{
	char *p;

	if (rec_read_str(t->tid, addr, c->buf, REC_PATH_MAX) < 0)
		return NULL;
	p = rec_path_abs(dirfd == AT_FDCWD || c->buf[0] == '/' ?
			 (t->fs ? t->fs->cwd : NULL) : rec_fd_path(t, dirfd, NULL),
			 c->buf, len);
	if (p)
		rec_path_state(c, p, *len, NULL);
	return p;
}

static void sqe_decode(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		       const struct io_uring_sqe *s, struct rec_aio_req *r)
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
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
		r->a.len = req_iovecs(t, r, s->addr, s->len);
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
		if ((r->path = sqe_path(c, t, s->fd, s->addr, &len))) {
			r->a.path = r->path;
			r->a.path_len = len;
		}
		if (s->opcode == IORING_OP_RENAMEAT &&
		    (r->path2 = sqe_path(c, t, (int)s->len, s->addr2, &len))) {
			r->a.path2 = r->path2;
			r->a.path2_len = len;
		}
		return;
	}
	if (s->flags & IOSQE_FIXED_FILE) {
		if ((uint32_t)s->fd < a->n_files && a->files[s->fd])
			req_path(r, a->files[s->fd], (uint32_t)strlen(a->files[s->fd]));
	} else {
		const char *fp = rec_fd_path(t, s->fd, &len);

		req_path(r, fp, len);
	}
}

static void enter_entry(struct rec_ctx *c, struct rec_task *t)
{
	struct rec_actx *a;
	uint32_t head, tail, mask, n, i, idx;
	size_t sqe_size;

	a = ring_of(c, t, t->raw[0], (t->raw[3] & IORING_ENTER_REGISTERED_RING) != 0);
	if (!a) {
		if (t->raw[3] & IORING_ENTER_REGISTERED_RING)
			c->st.uring_unknown++;
		return;
	}
	/* what completed before this call: the program may have reaped it
	 * already and now submits under the same user_data again */
	reap_cq_(c, t, a, 0, 1);
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
		if (!(r = req_add(t)))
			return;
		sqe_decode(c, t, a, &s, r);
	}
}

/* Every CQE posted since the last one seen: written now, or with
 * @collect kept in @t's requests, to be written after the event. */
static void reap_cq_(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		     uint64_t event, int collect)
{
	uint32_t tail, mask, n, i;
	size_t cqe_size;

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
			struct rec_aio_req *r = req_add(t);

			if (!r)
				break;
			r->a.kind = IOT_AIO_COMPLETE;
			r->a.api = IOT_AIO_URING;
			r->a.user_data = q.user_data;
			r->a.res = q.res;
			continue;
		}
		emit_complete(c, t, a, event, q.user_data, q.user_data, q.res,
			      t->ev.t_exit ? t->ev.t_exit : t->ev.t_enter);
	}
	a->cq_seen += i;
}

static void reap_cq(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		    uint64_t event)
{
	reap_cq_(c, t, a, event, 0);
}

static void register_entry(struct rec_ctx *c, struct rec_task *t)
{
	uint32_t op = (uint32_t)t->raw[1] & ~REG_FLAG, nr = (uint32_t)t->raw[3], i;
	struct rec_actx *a = ring_of(c, t, t->raw[0], ((uint32_t)t->raw[1] & REG_FLAG) != 0);
	struct rec_aio_req *r;

	if (!a || (op != IORING_REGISTER_FILES && op != IORING_REGISTER_BUFFERS &&
		   op != IORING_REGISTER_EVENTFD && op != IORING_REGISTER_EVENTFD_ASYNC) ||
	    nr > 65536 || !(r = req_add(t)))
		return;
	r->a.kind = IOT_AIO_REGISTER;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.opcode = op;
	r->a.fd = (int32_t)a->ctx;
	if (op == IORING_REGISTER_EVENTFD || op == IORING_REGISTER_EVENTFD_ASYNC)
		nr = 1;		/* one int: the eventfd */
	if (op == IORING_REGISTER_BUFFERS) {
		r->a.len = req_iovecs(t, r, t->raw[2], nr);
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

/* IORING_(UN)REGISTER_RING_FDS: which index each ring's descriptor got
 * in @t's thread, or lost; written as a REGISTER record of the ring
 * (vals: the index), so that a replay finds the ring its enters name */
static void ring_fds_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event, int reg)
{
	struct io_uring_rsrc_update u;
	uint32_t i, k, n = reg ? (uint32_t)t->ev.ret : (uint32_t)t->raw[3];

	for (i = 0; i < n && i < 16; i++) {
		struct rec_actx *a;
		struct iot_aio r;
		int64_t idx;

		if (rec_read_mem(t->tid, t->raw[2] + i * sizeof(u), &u, sizeof(u)) != sizeof(u))
			return;
		if (reg) {
			if (!(a = actx_find(c, IOT_AIO_URING, t->pid, (uint32_t)u.data, NULL)))
				continue;
			if (a->n_reg < REG_MAX) {
				a->reg[a->n_reg].tid = t->tid;
				a->reg[a->n_reg++].idx = u.offset;
			}
		} else if (!(a = ring_of(c, t, u.offset, 1))) {
			continue;
		} else {
			for (k = 0; k < a->n_reg; k++)
				if (a->reg[k].tid == t->tid && a->reg[k].idx == u.offset) {
					a->reg[k] = a->reg[--a->n_reg];
					break;
				}
		}
		aio_init(&r, IOT_AIO_REGISTER, IOT_AIO_URING, event, t->ev.t_exit, t, a->ctx);
		r.opcode = reg ? IORING_REGISTER_RING_FDS : IORING_UNREGISTER_RING_FDS;
		r.fd = (int32_t)a->ctx;
		idx = u.offset;
		r.vals = &idx;
		r.nvals = 1;
		emit(c, &r);
	}
}

static void register_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	uint32_t op = (uint32_t)t->raw[1] & ~REG_FLAG;
	struct rec_actx *a = ring_of(c, t, t->raw[0], ((uint32_t)t->raw[1] & REG_FLAG) != 0);
	struct iot_aio *r;
	uint32_t i;

	if (t->ev.ret >= 0 && (op == IORING_REGISTER_RING_FDS || op == IORING_UNREGISTER_RING_FDS))
		ring_fds_exit(c, t, event, op == IORING_REGISTER_RING_FDS);
	if (!a || !t->n_aio || t->ev.ret < 0)
		return;
	r = &t->aio[0].a;
	r->event = event;
	r->t_ns = t->ev.t_exit;
	emit(c, r);
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

/* ---- the recorder's entry points ---- */

void rec_aio_entry(struct rec_ctx *c, struct rec_task *t)
{
	if (t->view)
		return;
	switch (t->ev.nr) {
	case SYS_io_submit:
		submit_entry(c, t);
		break;
	case SYS_io_uring_enter:
		enter_entry(c, t);
		break;
	case SYS_io_uring_register:
		register_entry(c, t);
		break;
	case SYS_munmap: {
		/* the last completions before the rings go */
		uint32_t i;

		for (i = 0; c->aio && i < c->aio->n; i++) {
			struct rec_actx *a = c->aio->c[i];
			uint64_t addr = t->raw[0];

			if (a->api != IOT_AIO_URING || a->pid != t->pid ||
			    (addr != a->sq_ring && addr != a->cq_ring && addr != a->sqes))
				continue;
			reap_cq(c, t, a, iot_writer_events(c->w));
			if (addr == a->sq_ring)
				a->sq_ring = 0;
			if (addr == a->cq_ring)
				a->cq_ring = 0;
			if (addr == a->sqes)
				a->sqes = 0;
		}
		break;
	}
	case SYS_close: {
		/* the last completions before the ring goes */
		struct rec_actx *a = actx_find(c, IOT_AIO_URING, t->pid,
					       (uint32_t)t->raw[0], NULL);

		if (a)
			reap_cq(c, t, a, iot_writer_events(c->w));
		break;
	}
	}
}

/* io_setup's context is behind its pointer: read before the event is
 * written, so that the event shows it. */
void rec_aio_exit_args(struct rec_ctx *c, struct rec_task *t)
{
	uint64_t ctx = 0;

	if (t->ev.nr == SYS_io_setup && t->ev.ret == 0 &&
	    rec_read_mem(t->tid, t->raw[1], &ctx, 8) == 8)
		t->ev.args[1] = (int64_t)ctx;
}

void rec_aio_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct rec_actx *a;
	struct iot_aio r;

	switch (t->ev.nr) {
	case SYS_io_setup:
		if (t->ev.ret != 0 || !(a = actx_new(c, IOT_AIO_LIBAIO, t->pid,
						      (uint64_t)t->ev.args[1])))
			break;
		aio_init(&r, IOT_AIO_SETUP, IOT_AIO_LIBAIO, event, t->ev.t_exit, t, a->ctx);
		r.len = (uint32_t)t->raw[0];
		emit(c, &r);
		break;
	case SYS_io_destroy:
		if (t->ev.ret == 0)
			actx_del(c, t, IOT_AIO_LIBAIO, t->pid, t->raw[0]);
		break;
	case SYS_io_submit:
		a = actx_find(c, IOT_AIO_LIBAIO, t->pid, t->raw[0], NULL);
		emit_submits(c, t, a, event, t->ev.ret);
		break;
	case SYS_io_getevents:
	case SYS_io_pgetevents:
		if (t->ev.ret > 0)
			getevents_exit(c, t, event);
		break;
	case SYS_io_uring_setup:
		setup_exit(c, t, event);
		break;
	case SYS_io_uring_enter:
		if (!(a = ring_of(c, t, t->raw[0], (t->raw[3] & IORING_ENTER_REGISTERED_RING) != 0)))
			break;
		if (a->flags & IORING_SETUP_SQPOLL)
			c->st.uring_sqpoll_enters++;
		emit_submits(c, t, a, event, t->ev.ret);
		reap_cq(c, t, a, event);
		break;
	case SYS_io_uring_register:
		register_exit(c, t, event);
		break;
	case SYS_close:
		if (t->ev.ret == 0)
			actx_del(c, t, IOT_AIO_URING, t->pid, (uint32_t)t->raw[0]);
		break;
	}
}

/* At the end: what is left in flight was submitted, never seen complete. */
void rec_aio_end(struct rec_ctx *c)
{
	uint32_t i;

	for (i = 0; c->aio && i < c->aio->n; i++)
		c->st.aio_unreaped += c->aio->c[i]->n_fl;
}
