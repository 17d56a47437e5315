/*
 * libaio.c - libaio's requests and completions, for aio.c: io_submit
 * names its requests in an array of pointers to iocbs, read at the entry
 * (the program may reuse an iocb as soon as the call returns) and the
 * first `ret` kept at the exit; io_getevents and io_pgetevents return
 * io_events in an array, read at the exit.  Under ptrace both are read
 * from the program's memory; under the bpf backend its programs read
 * them as the calls run, and a view of their records (bpf_aio.c) stands
 * in for the memory.
 */
#include <linux/aio_abi.h>
#include <stdlib.h>
#include <string.h>

#include "aio_int.h"

/* the bpf backend's copies (rec.h) are the kernel's layouts */
_Static_assert(sizeof(((struct rec_iocb *)0)->cb) == sizeof(struct iocb), "iocb");
_Static_assert(sizeof(struct rec_ioev) == sizeof(struct io_event), "io_event");

/* The iocb @cb at @ptr, of context @ctx, as a request of @t's call
 * (a vectored one's length is its iovecs', the caller's); NULL: no
 * memory. */
static struct rec_aio_req *iocb_req(struct rec_task *t, uint64_t ctx, uint64_t ptr,
				    const struct iocb *cb)
{
	struct rec_aio_req *r;
	const char *p;
	uint32_t len = 0;

	if (!(r = rec_aio_req_add(t)))
		return NULL;
	r->a.kind = IOT_AIO_SUBMIT;
	r->a.api = IOT_AIO_LIBAIO;
	r->a.ctx = ctx;
	r->a.opcode = cb->aio_lio_opcode;
	r->a.fd = (int32_t)cb->aio_fildes;
	r->a.off = (uint64_t)cb->aio_offset;
	r->a.flags = cb->aio_flags;
	r->a.rw_flags = (uint32_t)cb->aio_rw_flags;
	r->a.user_data = cb->aio_data;
	r->a.id = ptr;
	if (cb->aio_flags & IOCB_FLAG_RESFD)
		r->a.resfd = (int32_t)cb->aio_resfd;
	r->a.len = cb->aio_nbytes;
	p = rec_fd_path(t, r->a.fd, &len);
	rec_aio_req_path(r, p, len);
	return r;
}

static int iocb_vectored(const struct iocb *cb)
{
	return cb->aio_lio_opcode == IOCB_CMD_PREADV || cb->aio_lio_opcode == IOCB_CMD_PWRITEV;
}

/* An iocb seen and not read: a placeholder (kind 0) that keeps the
 * requests after it in place, counted when the call's result takes it. */
static void iocb_unread(struct rec_task *t)
{
	struct rec_aio_req *r = rec_aio_req_add(t);

	if (r)
		r->a.kind = 0;
}

/* The bpf backend: the iocbs its programs read at the call's entry. */
static void submit_view(struct rec_task *t, const struct rec_aio_view *v)
{
	uint32_t i;

	for (i = 0; v && i < v->n_cbs; i++) {
		const struct rec_iocb *x = &v->cbs[i];
		struct rec_aio_req *r;
		struct iocb cb;
		int64_t *vals;

		if (!x->ptr) {
			iocb_unread(t);
			continue;
		}
		memcpy(&cb, x->cb, sizeof(cb));
		if (!(r = iocb_req(t, t->raw[0], x->ptr, &cb)) || !iocb_vectored(&cb))
			continue;
		vals = x->nvals ? malloc(x->nvals * sizeof(*vals)) : NULL;
		if (vals)
			memcpy(vals, x->vals, x->nvals * sizeof(*vals));
		r->a.len = rec_aio_req_vals(r, vals, x->nvals);
	}
}

/* ptrace: from the program's memory, at the entry stop (a write's bytes
 * too, with --data) */
static void submit_read(struct rec_ctx *c, struct rec_task *t)
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

			if (rec_read_mem(t->tid, ptrs[j], &cb, sizeof(cb)) != sizeof(cb)) {
				iocb_unread(t);
				continue;
			}
			if (!(r = iocb_req(t, ctx, ptrs[j], &cb)))
				continue;
			if (iocb_vectored(&cb))
				r->a.len = rec_aio_req_iovecs(t, r, cb.aio_buf, cb.aio_nbytes);
			if (cb.aio_lio_opcode == IOCB_CMD_PWRITE || cb.aio_lio_opcode == IOCB_CMD_PWRITEV)
				rec_data_req(c, t, r, iocb_vectored(&cb), cb.aio_buf, cb.aio_nbytes);
		}
	}
}

void rec_libaio_getevents_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct rec_actx *a = rec_actx_find(c, IOT_AIO_LIBAIO, t->pid, t->raw[0], NULL);
	struct io_event evs[64];
	int64_t n = t->ev.ret, i, k;

	if (t->view) {
		/* the bpf backend: the io_events its programs read at the exit */
		const struct rec_aio_view *v = t->view->aio;
		int64_t got = v ? v->n_evs : 0;

		for (i = 0; i < got && i < n; i++)
			rec_aio_emit_complete(c, t, a, event, v->evs[i].obj, v->evs[i].data,
					      v->evs[i].res, t->ev.t_exit);
		if (n > got)
			c->st.aio_lost += (uint64_t)(n - got);
		return;
	}
	for (i = 0; i < n; i += k) {
		k = n - i < 64 ? n - i : 64;
		if (rec_read_mem(t->tid, t->raw[3] + (uint64_t)i * sizeof(evs[0]), evs,
				 (size_t)k * sizeof(evs[0])) != (ssize_t)(k * sizeof(evs[0]))) {
			c->st.aio_lost += (uint64_t)(n - i);
			return;
		}
		for (int64_t j = 0; j < k; j++)
			rec_aio_emit_complete(c, t, a, event, evs[j].obj, evs[j].data, evs[j].res,
				      t->ev.t_exit);
	}
}

void rec_libaio_submit_entry(struct rec_ctx *c, struct rec_task *t)
{
	if (t->view)
		submit_view(t, t->view->aio);
	else
		submit_read(c, t);
}
