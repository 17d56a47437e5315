/*
 * bpf_uring.c - io_uring under the bpf backend: the programs' records of
 * ring set-ups, requests, completions and registrations (bpf/event.h,
 * BE_URING_*) into the AsyncOp records the ptrace backend writes, built
 * by the same code (uring.c, aio.c).
 *
 * The kernel says each request as it takes it and each completion as it
 * posts it (bpf/uring.bpf.c).  A record that came in a followed
 * thread's io_uring_enter or io_uring_register waits on its ring until
 * that call's exit is decoded, and is then written after the call's
 * event, as the ptrace backend writes what it read at the call's stops.
 * A completion of a request still waiting goes with it.  A request a
 * ring in SQPOLL mode took (in no call of the program's) goes with the
 * next call of its process that is written (the program may poll its
 * rings and make no io_uring_enter at all; a replay, whose ring does not
 * poll, submits it there); a completion posted outside
 * the program's calls (io-wq, an interrupt, task work) is written at
 * once, with the time the kernel posted it.
 *
 * The programs (bpf/uring.bpf.c) are an object of their own, loaded at
 * the guard's stop of the first io_uring_setup a followed task makes
 * (bpf_guard.c): that call waits until they are attached, so the ring's
 * io_uring_create, and all after it, are seen.  A recording of a program
 * that makes no ring does not pay their load (~4 ms of CPU: their
 * verification and the kernel's searches of its BTF for io_uring's types);
 * one that does pays more (libbpf reads the kernel's BTF for them: a light
 * skeleton cannot be given the first object's maps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "aio_int.h"
#include "engine.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "iotape.skel.h"
#include "uring.skel.h"

int rec_bpf_uring_load(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;
	struct iotape_uring_bpf *u;
	const char *why = "cannot open its BPF object";
	int err;

	if (!b || b->uring_tried)
		return b && b->uskel ? 0 : -ENOENT;
	b->uring_tried = 1;
	u = iotape_uring_bpf__open();
	if (!u) {
		err = -errno;
		goto out;
	}
	/* the first object's ring, task states, scratch and drop counts:
	 * one order, one set of followed tasks */
	why = "cannot hand it the first programs' maps";
	if ((err = rec_bpf_share_maps(b, u->maps.rb, u->maps.tstate, u->maps.scratch,
				      u->maps.drops)))
		goto out;
	u->rodata->wake_bytes = b->skel->rodata->wake_bytes;
	why = "the kernel refused them (IOTAPE_BPF_DEBUG=1 shows why)";
	if ((err = iotape_uring_bpf__load(u)))
		goto out;
	why = "cannot attach them to io_uring's tracepoints";
	if ((err = iotape_uring_bpf__attach(u)))
		goto out;
	b->uskel = u;
	u = NULL;
out:
	if (err) {
		b->uring_tried = 2;
		iot_warn("record", "io_uring's BPF programs did not load: %s (%s); the requests "
			 "of this recording's rings are not recorded, their io_uring_enter calls "
			 "are counted as on unknown rings", why, strerror(err < 0 ? -err : err));
	}
	iotape_uring_bpf__destroy(u);
	return err < 0 ? err : err ? -EINVAL : 0;
}

void rec_bpf_uring_free(struct rec_ctx *c)
{
	iotape_uring_bpf__destroy(c->bpf->uskel);
	c->bpf->uskel = NULL;
}

/* a task of the ring's process to decode with (descriptors, paths) */
static struct rec_task *task_of(struct rec_ctx *c, const struct be_hdr *h, pid_t in_call)
{
	struct rec_task *t = in_call ? rec_task_get(c, in_call) : NULL;

	return t ? t : rec_task_get(c, (pid_t)h->pid);
}

static struct rec_actx *ring_of(struct rec_ctx *c, const struct be_hdr *h, int32_t fd)
{
	struct rec_actx *a = rec_actx_find(c, IOT_AIO_URING, (pid_t)h->pid, (uint64_t)(uint32_t)fd,
					   NULL);

	return a && a->bpf ? a : NULL;
}

static void on_setup(struct rec_ctx *c, const struct be_uring_setup *u)
{
	struct rec_actx *a = rec_uring_ring_new(c, (pid_t)u->h.pid, u->ring_fd, u->flags,
						u->sq_entries, u->cq_entries);

	if (a)
		a->bpf = 1;
}

/* path @i of @q, or NULL */
static const char *sqe_str(const struct be_uring_sqe *q, size_t size, uint32_t i)
{
	size_t at = sizeof(*q) + (i ? BE_STR_MAX : 0);

	if (i >= q->nstr || q->slen[i] >= BE_STR_MAX || at + q->slen[i] + 1 > size ||
	    ((const char *)q)[at + q->slen[i]])
		return NULL;
	return (const char *)q + at;
}

static void on_sqe(struct rec_ctx *c, const struct be_uring_sqe *q, size_t size)
{
	struct rec_actx *a = ring_of(c, &q->h, q->ring_fd);
	struct rec_task *t = task_of(c, &q->h, (pid_t)q->in_call);
	struct rec_uring_kern k = { .vec_bytes = q->vec_bytes };
	struct io_uring_sqe s;
	struct rec_aio_req *r;

	if (!a || !t) {
		c->st.uring_unknown++;
		return;
	}
	/* every request the kernel took: the ring's END record says how
	 * many, as the SQ head does under ptrace */
	a->sq_head++;
	a->head_known = 1;
	if (!(r = rec_uring_held_add(a, (pid_t)q->h.pid, (pid_t)q->in_call)))
		return;
	memset(&s, 0, sizeof(s));
	s.opcode = q->opcode;
	s.flags = q->flags;
	s.fd = q->fd;
	s.off = q->off;
	s.addr = q->addr;
	s.len = q->len;
	s.rw_flags = q->rw_flags;
	s.user_data = q->user_data;
	s.buf_index = (uint16_t)q->buf_index;
	k.iov = (const uint64_t *)q->iov;
	k.niov = q->niov <= BE_IOV_MAX ? q->niov : 0;
	k.str[0] = sqe_str(q, size, 0);
	k.str[1] = sqe_str(q, size, 1);
	r->a.t_ns = (int64_t)q->h.t;
	if ((!rec_uring_sqe_req(c, t, a, &s, r, &k) || !(q->decoded & BE_SQE_DECODED)) &&
	    iot_aio_op_known(IOT_AIO_URING, q->opcode)) {
		/* known to iotape, but its command was not read here: written
		 * with what the request says, counted */
		c->st.uring_bpf_undecoded++;
		if (q->opcode < 64)
			c->st.uring_bpf_undecoded_ops |= 1ULL << q->opcode;
	}
}

static void on_cqe(struct rec_ctx *c, const struct be_uring_cqe *q)
{
	struct rec_actx *a = ring_of(c, &q->h, q->ring_fd);
	pid_t tid = (pid_t)q->in_call;
	struct rec_aio_req *r;
	struct rec_task *t;
	uint32_t i;

	if (!a) {
		c->st.aio_orphan++;
		return;
	}
	/* its request still waits: the completion goes after it */
	for (i = a->n_held; i-- > 0; ) {
		const struct iot_aio *w = &a->held[i].r.a;

		if (w->user_data != q->user_data || w->kind == IOT_AIO_REGISTER)
			continue;
		if (w->kind == IOT_AIO_SUBMIT) {
			tid = a->held[i].tid;
			goto held;
		}
		break;
	}
	if (!tid) {
		uint64_t ev = iot_writer_events(c->w);

		if ((t = task_of(c, &q->h, 0)))
			rec_aio_emit_complete(c, t, a, ev ? ev - 1 : 0, q->user_data, q->user_data,
					      q->res, (int64_t)q->h.t);
		return;
	}
held:
	if (!(r = rec_uring_held_add(a, (pid_t)q->h.pid, tid)))
		return;
	r->a.kind = IOT_AIO_COMPLETE;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.user_data = q->user_data;
	r->a.res = q->res;
	r->a.t_ns = (int64_t)q->h.t;
	r->created = q->created != 0;
}

/* completions left in the ring as a waiting io_uring_enter entered:
 * written with the call, as the ptrace backend writes them (uring.c) */
static void on_ready(struct rec_ctx *c, const struct be_uring_ready *y)
{
	struct rec_actx *a = ring_of(c, &y->h, y->ring_fd);
	struct rec_aio_req *r;

	if (!a || !(r = rec_uring_held_add(a, (pid_t)y->h.pid, (pid_t)y->h.tid)))
		return;
	r->a.kind = IOT_AIO_CQ_READY;
	r->a.api = IOT_AIO_URING;
	r->a.ctx = a->ctx;
	r->a.len = y->n;
	r->a.t_ns = (int64_t)y->h.t;
}

static void on_reg(struct rec_ctx *c, const struct be_uring_reg *g)
{
	struct rec_actx *a = ring_of(c, &g->h, g->ring_fd);
	uint32_t n = g->nvals < BE_REG_MAX ? g->nvals : BE_REG_MAX, i;
	struct rec_aio_req *r;

	if (!a || !g->in_call || !(r = rec_uring_held_add(a, (pid_t)g->h.pid, (pid_t)g->in_call)))
		return;
	rec_uring_reg_req(a, g->opcode, r);
	r->a.t_ns = (int64_t)g->h.t;
	if (!n || !(r->vals = calloc(n, sizeof(*r->vals))))
		return;
	for (i = 0; i < n; i++) {
		r->vals[i] = g->vals[i];
		if (g->opcode == IORING_REGISTER_BUFFERS)
			r->a.len += (uint64_t)g->vals[i];
	}
	r->a.vals = r->vals;
	r->a.nvals = n;
}

void rec_bpf_uring_record(struct rec_ctx *c, const void *data, size_t size)
{
	const struct be_hdr *h = data;

	switch (h->type) {
	case BE_URING_SETUP:
		if (size >= sizeof(struct be_uring_setup))
			on_setup(c, data);
		return;
	case BE_URING_SQE:
		if (size >= sizeof(struct be_uring_sqe))
			on_sqe(c, data, size);
		return;
	case BE_URING_CQE:
		if (size >= sizeof(struct be_uring_cqe))
			on_cqe(c, data);
		return;
	case BE_URING_REG:
		if (size >= sizeof(struct be_uring_reg))
			on_reg(c, data);
		return;
	case BE_URING_READY:
		if (size >= sizeof(struct be_uring_ready))
			on_ready(c, data);
		return;
	}
	c->st.dropped++;
}

void rec_bpf_uring_call(struct rec_ctx *c, struct rec_task *t)
{
	uint32_t i;
	int enter;

	if (!t->sc || (t->sc->nr != SYS_io_uring_enter && t->sc->nr != SYS_io_uring_register))
		return;
	enter = t->sc->nr == SYS_io_uring_enter;
	if (enter && c->bpf->uring_tried == 2)
		c->st.uring_unknown++;
	for (i = 0; c->aio && i < c->aio->n; i++) {
		struct rec_actx *a = c->aio->c[i];

		if (a->api != IOT_AIO_URING || a->pid != t->pid || !a->bpf || !a->n_held)
			continue;
		/* SQPOLL's requests go with the ring's next enter */
		rec_uring_held_take(c, a, t, enter && (uint64_t)a->ctx == (uint32_t)t->raw[0]);
	}
}

void rec_bpf_uring_polled(struct rec_ctx *c, struct rec_task *t, uint64_t events)
{
	uint64_t now = iot_writer_events(c->w);
	uint32_t i;

	if (now <= events)
		return;		/* no event of @t's was written */
	for (i = 0; c->aio && i < c->aio->n; i++) {
		struct rec_actx *a = c->aio->c[i];

		if (a->api == IOT_AIO_URING && a->pid == t->pid && a->bpf && a->n_held &&
		    (a->flags & IORING_SETUP_SQPOLL))
			rec_uring_held_flush(c, t, a, now - 1, 0);
	}
}

#else /* !IOT_HAVE_BPF */

int rec_bpf_uring_load(struct rec_ctx *c)
{
	return -ENOSYS;
}

#endif
