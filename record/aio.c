/*
 * aio.c - asynchronous I/O: what libaio's and io_uring's requests were,
 * read from the program's memory, written as AsyncOp records after the
 * syscall event they came with (FORMAT.md, "Asynchronous I/O").
 *
 * libaio: io_submit(ctx, nr, iocbpp) names its requests in its arguments;
 * they are read at the entry stop (the program may reuse an iocb as soon
 * as the call returns) and the first `ret` of them kept at the exit.
 * io_getevents returns its completions in an array read at the exit.
 * Both are read in libaio.c (under the bpf backend, from its programs'
 * records).  A request io_submit took that could not be read is counted,
 * and written as an END record of its context.
 *
 * io_uring: requests are in the submission ring, shared memory the
 * program mmaps from the ring's descriptor (IORING_OFF_SQ_RING, _SQES,
 * _CQ_RING); the recorder follows those mmaps (decode_exit.c calls
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
 * posted it.  The rings themselves are followed in uring.c.
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

#include "aio_int.h"

static void req_free(struct rec_aio_req *r)
{
	free(r->path);
	free(r->path2);
	free(r->vals);
	free(r->data);
}

void rec_aio_clear_call(struct rec_task *t)
{
	uint32_t i;

	for (i = 0; i < t->n_aio; i++)
		req_free(&t->aio[i]);
	free(t->aio);
	t->aio = NULL;
	t->n_aio = 0;
	t->aio_data = 0;
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
	rec_uring_held_free(a);
	free(a->early);
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

struct rec_actx *rec_actx_find(struct rec_ctx *c, uint32_t api, pid_t pid,
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

struct rec_actx *rec_actx_new(struct rec_ctx *c, uint32_t api, pid_t pid,
				 uint64_t ctx)
{
	struct rec_actx *a;
	uint32_t i;

	if ((a = rec_actx_find(c, api, pid, ctx, &i))) {
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
void rec_aio_init(struct iot_aio *r, uint32_t kind, uint32_t api, uint64_t event,
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

/*
 * A completion of no request in flight, read at one thread's call before
 * another thread's call that submitted it ended (ptrace reads requests at
 * the submitting call's entry and keeps them at its exit; InnoDB's I/O
 * threads reap what its other threads submit): kept until that request
 * is, then written after it; at the ring's end, written as of none.
 * @return : 1 if kept.
 */
#define EARLY_MAX 4096

static void complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		     const struct rec_early *e, int late);

static int early(struct rec_actx *a, const struct rec_early *e)
{
	if (!a || a->bpf || a->n_early == EARLY_MAX)
		return 0;
	if (a->n_early == a->cap_early) {
		uint32_t nc = a->cap_early ? a->cap_early * 2 : 16;
		struct rec_early *v = realloc(a->early, nc * sizeof(*v));

		if (!v)
			return 0;
		a->early = v;
		a->cap_early = nc;
	}
	a->early[a->n_early++] = *e;
	return 1;
}

/* Request @key of @a is in flight now: its completion read before it. */
static void early_done(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < a->n_early; i++) {
		struct rec_early e = a->early[i];

		if (e.key != key)
			continue;
		memmove(a->early + i, a->early + i + 1, (a->n_early - i - 1) * sizeof(e));
		a->n_early--;
		complete(c, t, a, &e, 1);
		return;
	}
}

/* @a's completions whose request never came: of none */
static void early_flush(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a)
{
	uint32_t i, n = a->n_early;

	a->n_early = 0;
	for (i = 0; i < n; i++)
		complete(c, t, a, &a->early[i], 1);
}

/* @a goes (@t: the task it went with, or NULL): what it took that is not
 * in the trace is written as an END record */
static void actx_del(struct rec_ctx *c, struct rec_task *t, uint32_t api, pid_t pid,
		     uint64_t ctx)
{
	uint32_t i;
	struct rec_actx *a = rec_actx_find(c, api, pid, ctx, &i);
	uint64_t ev = iot_writer_events(c->w);

	if (!a)
		return;
	if (t && a->n_held)
		rec_uring_held_flush(c, t, a, ev ? ev - 1 : 0, 1);
	if (t)
		early_flush(c, t, a);
	c->st.aio_unreaped += a->n_fl;
	if (t && a->api == IOT_AIO_LIBAIO && a->missed) {
		struct iot_aio r;

		/* requests io_submit took that the trace lacks, for check */
		rec_aio_init(&r, IOT_AIO_END, IOT_AIO_LIBAIO, ev ? ev - 1 : 0,
			 t->ev.t_enter ? t->ev.t_enter : t->last_stop_ns, t, a->ctx);
		r.len = (uint64_t)a->captured + a->missed;
		r.res = a->captured;
		rec_aio_emit(c, &r);
	}
	if (t && a->api == IOT_AIO_URING && a->head_known) {
		struct iot_aio r;

		rec_aio_init(&r, IOT_AIO_END, IOT_AIO_URING, ev ? ev - 1 : 0,
			 t->ev.t_enter ? t->ev.t_enter : t->last_stop_ns, t, a->ctx);
		r.len = a->sq_head;
		r.res = a->captured;
		rec_aio_emit(c, &r);
		c->st.uring_missed += (uint32_t)(a->sq_head - a->captured);
	}
	actx_free(a);
	c->aio->c[i] = c->aio->c[--c->aio->n];
}

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
			rec_uring_reap(c, t, a, ev ? ev - 1 : 0, 0);
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

struct rec_aio_req *rec_aio_req_add(struct rec_task *t)
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

void rec_aio_req_path(struct rec_aio_req *r, const char *p, uint32_t len)
{
	if (!p || !(r->path = strndup(p, len)))
		return;
	r->a.path = r->path;
	r->a.path_len = len;
}

/* @vals (@n of them, now @r's) as @r's iovec lengths; @return : their sum */
uint64_t rec_aio_req_vals(struct rec_aio_req *r, int64_t *vals, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	free(r->vals);
	r->vals = vals;
	r->a.vals = vals;
	r->a.nvals = vals ? n : 0;
	for (i = 0; vals && i < n; i++)
		sum += (uint64_t)vals[i];
	return sum;
}

/* iovec lengths at @addr (@cnt of them) into @r's vals; @return : their sum */
uint64_t rec_aio_req_iovecs(struct rec_task *t, struct rec_aio_req *r,
			   uint64_t addr, uint64_t cnt)
{
	struct iovec *iov;
	int64_t *vals;
	uint64_t sum = 0, i;

	if (cnt > 1024)
		cnt = 1024;
	if (!cnt || !(iov = calloc(cnt, sizeof(*iov))))
		return 0;
	vals = calloc(cnt, sizeof(*vals));
	if (vals &&
	    rec_read_mem(t->tid, addr, iov, cnt * sizeof(*iov)) == (ssize_t)(cnt * sizeof(*iov))) {
		for (i = 0; i < cnt; i++)
			vals[i] = (int64_t)iov[i].iov_len;
		sum = rec_aio_req_vals(r, vals, (uint32_t)cnt);
	} else {
		free(vals);
	}
	free(iov);
	return sum;
}

void rec_aio_emit(struct rec_ctx *c, const struct iot_aio *in)
{
	struct iot_aio x = *in, *a = &x;

	rec_data_aio(c, a);
	if (iot_writer_aio(c->w, a) < 0) {
		c->st.dropped++;
		return;
	}
	if (a->kind == IOT_AIO_SUBMIT) {
		unsigned dir = iot_aio_op_dir(a->api, a->opcode);

		c->st.aio_submit++;
		if (dir & IOT_SCF_READ)
			c->st.aio_rbytes += a->len;
		else if (dir & IOT_SCF_WRITE) {
			c->st.aio_wbytes += a->len;
			c->st.aio_wreqs++;
		}
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
void rec_aio_emit_submits(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			 uint64_t event, int64_t done)
{
	uint32_t i;
	int64_t k = 0;

	for (i = 0; i < t->n_aio; i++) {
		struct iot_aio *r = &t->aio[i].a;

		if (r->kind == IOT_AIO_COMPLETE) {
			rec_aio_emit_complete(c, t, a, event, r->user_data, r->user_data, r->res,
				      r->t_ns);
			continue;
		}
		if (r->kind == IOT_AIO_CQ_READY) {
			r->event = event;
			rec_aio_emit(c, r);
			continue;
		}
		if (k++ >= done)
			continue;
		if (!r->kind) {
			/* taken, not read: said, not guessed */
			c->st.aio_missed++;
			if (a)
				a->missed++;
			continue;
		}
		r->event = event;
		rec_aio_emit(c, r);
		if (a) {
			uint64_t key = r->api == IOT_AIO_LIBAIO ? r->id : r->user_data;

			fl_add(a, r, key);
			a->captured++;
			if (a->n_early)
				early_done(c, t, a, key);
		}
	}
}

void rec_aio_emit_complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, uint64_t key, uint64_t data, int64_t res,
			  int64_t t_ns)
{
	struct rec_early e = { .event = event, .key = key, .data = data, .res = res,
			       .t_ns = t_ns, .tid = t->tid };

	complete(c, t, a, &e, 0);
}

/* Write completion @e (@late: kept, early(); its reaper's tid in it). */
static void complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		     const struct rec_early *e, int late)
{
	struct iot_aio r;
	struct inflight f;
	int64_t res = e->res;
	int found = a && fl_take(a, e->key, &f);

	if (!found && !late && early(a, e))
		return;
	rec_aio_init(&r, IOT_AIO_COMPLETE, a ? a->api : IOT_AIO_LIBAIO, e->event, e->t_ns, t,
		 a ? a->ctx : 0);
	r.tid = e->tid;
	r.user_data = e->data;
	r.id = r.api == IOT_AIO_LIBAIO ? e->key : 0;
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
	rec_aio_emit(c, &r);
	if (found)
		free(f.path);
}

/* ---- the recorder's entry points ---- */

void rec_aio_entry(struct rec_ctx *c, struct rec_task *t)
{
	/* (libaio.c reads the bpf backend's view too) */
	if (t->ev.nr == SYS_io_submit) {
		rec_libaio_submit_entry(c, t);
		return;
	}
	if (t->view)
		return;
	switch (t->ev.nr) {
	case SYS_io_uring_enter:
		rec_uring_enter_entry(c, t);
		break;
	case SYS_io_uring_register:
		rec_uring_register_entry(c, t);
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
			rec_uring_reap(c, t, a, iot_writer_events(c->w), 0);
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
		struct rec_actx *a = rec_actx_find(c, IOT_AIO_URING, t->pid,
					       (uint32_t)t->raw[0], NULL);

		if (a)
			rec_uring_reap(c, t, a, iot_writer_events(c->w), 0);
		break;
	}
	}
}

/* io_setup's context is behind its pointer: read before the event is
 * written, so that the event shows it. */
void rec_aio_exit_args(struct rec_ctx *c, struct rec_task *t)
{
	uint64_t ctx = 0;

	if (t->ev.nr != SYS_io_setup || t->ev.ret != 0)
		return;
	if (t->view) {
		/* the bpf backend: read by its programs at the exit */
		if (t->view->aio && t->view->aio->has_ctx)
			t->ev.args[1] = (int64_t)t->view->aio->ctx;
	} else if (rec_read_mem(t->tid, t->raw[1], &ctx, 8) == 8) {
		t->ev.args[1] = (int64_t)ctx;
	}
}

void rec_aio_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	struct rec_actx *a;
	struct iot_aio r;

	switch (t->ev.nr) {
	case SYS_io_setup:
		if (t->ev.ret != 0 || !(a = rec_actx_new(c, IOT_AIO_LIBAIO, t->pid,
						      (uint64_t)t->ev.args[1])))
			break;
		rec_aio_init(&r, IOT_AIO_SETUP, IOT_AIO_LIBAIO, event, t->ev.t_exit, t, a->ctx);
		r.len = (uint32_t)t->raw[0];
		rec_aio_emit(c, &r);
		break;
	case SYS_io_destroy:
		if (t->ev.ret == 0)
			actx_del(c, t, IOT_AIO_LIBAIO, t->pid, t->raw[0]);
		break;
	case SYS_io_submit:
		a = rec_actx_find(c, IOT_AIO_LIBAIO, t->pid, t->raw[0], NULL);
		rec_aio_emit_submits(c, t, a, event, t->ev.ret);
		/* taken past those seen (an unreadable array, past the batch
		 * read): not in the trace, and said */
		if (t->ev.ret > (int64_t)t->n_aio) {
			c->st.aio_missed += (uint64_t)t->ev.ret - t->n_aio;
			if (a)
				a->missed += (uint32_t)((uint64_t)t->ev.ret - t->n_aio);
		}
		break;
	case SYS_io_getevents:
	case SYS_io_pgetevents:
		if (t->ev.ret > 0)
			rec_libaio_getevents_exit(c, t, event);
		break;
	case SYS_io_uring_setup:
		rec_uring_setup_exit(c, t, event);
		break;
	case SYS_io_uring_enter:
		a = rec_uring_ring_of(c, t, t->raw[0], (t->raw[3] & IORING_ENTER_REGISTERED_RING) != 0);
		/* bpf: the ring its records came from */
		if (!a && c->bpf && t->n_aio)
			a = rec_actx_find(c, IOT_AIO_URING, t->pid, t->aio[0].a.ctx, NULL);
		if (!a)
			break;
		if (a->flags & IORING_SETUP_SQPOLL)
			c->st.uring_sqpoll_enters++;
		/* bpf: every request the kernel took is in the list */
		rec_aio_emit_submits(c, t, a, event, a->bpf ? INT64_MAX : t->ev.ret);
		rec_uring_reap(c, t, a, event, 0);
		break;
	case SYS_io_uring_register:
		rec_uring_register_exit(c, t, event);
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

	for (i = 0; c->aio && i < c->aio->n; i++) {
		c->st.aio_unreaped += c->aio->c[i]->n_fl;
		c->st.aio_orphan += c->aio->c[i]->n_early;
	}
}
