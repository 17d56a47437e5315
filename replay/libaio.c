/*
 * libaio.c - replaying libaio's calls (io_setup, io_submit, io_getevents,
 * io_cancel, io_destroy, and the eventfd a request signals) through the
 * same syscalls with the same shapes: io_setup with the recorded queue
 * depth, each io_submit with the batch of iocbs it took, each
 * io_getevents reaping as many completions as it returned when recorded.
 * The requests, contexts and rings they use: aio.c.
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rpl.h"

#define ret_of(call) RPL_CALL(c, call)

static int64_t h_io_setup(struct rpl_ctx *c, struct rpl_op *op)
{
	aio_context_t ctx = 0;
	struct rpl_actx *x;
	int64_t r;

	if (op->ev.ret < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	r = ret_of(syscall(SYS_io_setup, (unsigned)op->ev.args[0], &ctx));
	if (r < 0)
		return r;
	if (!(x = rpl_actx_get(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[1], 1))) {
		syscall(SYS_io_destroy, ctx);
		return -ENOMEM;
	}
	x->live = ctx;
	return r;
}

static int64_t h_io_destroy(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = rpl_actx_get(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[0], 0);
	int64_t r;

	if (!x)
		return rpl_skip(op, RPL_SKIP_FD);
	r = ret_of(syscall(SYS_io_destroy, x->live));
	x->live = 0;
	rpl_actx_drop(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[0]);
	return r;
}

/* One recorded iocb as a live one; @return : 0, or -1 if it cannot be
 * replayed (its descriptor is not open here, an opcode not decoded). */
static int make_iocb(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x,
		     struct rpl_aio *ra, struct iocb *cb, struct iovec *iov)
{
	const struct iot_aio *a = &ra->a;
	uint64_t cap, len;
	char *buf = rpl_aio_buf(c->p, a, &cap);
	struct rpl_fd e;

	if (!buf || !iot_aio_op_known(IOT_AIO_LIBAIO, a->opcode) ||
	    rpl_fdtab_get(c->pr->tab, a->fd, &e) < 0 || e.state != RPL_FD_LIVE)
		return -1;
	len = a->len > cap ? cap : a->len;
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = (uint16_t)a->opcode;
	cb->aio_fildes = (uint32_t)e.live;
	cb->aio_offset = (int64_t)a->off;
	cb->aio_rw_flags = (int)a->rw_flags;
	cb->aio_data = (uint64_t)(ra - c->p->aio);
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	if (a->opcode == IOCB_CMD_PREADV || a->opcode == IOCB_CMD_PWRITEV) {
		/* the kernel copies the iovecs at io_submit */
		cb->aio_buf = (uint64_t)(uintptr_t)iov;
		cb->aio_nbytes = rpl_aio_iovs(a, buf, cap, iov);
	}
	/* the eventfd its completion signals, the replay's own */
	if ((a->flags & IOCB_FLAG_RESFD) && a->resfd >= 0 &&
	    rpl_fdtab_get(c->pr->tab, a->resfd, &e) == 0 && e.state == RPL_FD_LIVE) {
		cb->aio_flags |= IOCB_FLAG_RESFD;
		cb->aio_resfd = (uint32_t)e.live;
	}
	return 0;
}

static int64_t h_io_submit(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = rpl_actx_get(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[0], 0);
	struct iocb *cbs = NULL, **ptrs = NULL;
	struct iovec (*iov)[RPL_AIO_IOVS] = NULL;
	uint32_t i, n = 0;
	int64_t r, now;

	if (!x || !x->live)
		return rpl_skip(op, RPL_SKIP_FD);
	if (!op->n_aio)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	cbs = calloc(op->n_aio, sizeof(*cbs));
	ptrs = calloc(op->n_aio, sizeof(*ptrs));
	iov = calloc(op->n_aio, sizeof(*iov));
	if (!cbs || !ptrs || !iov) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < op->n_aio; i++) {
		struct rpl_aio *ra = &c->p->aio[op->aio_off + i];

		if (ra->a.kind != IOT_AIO_SUBMIT)
			continue;
		if (make_iocb(c, op, x, ra, &cbs[n], iov[n]) < 0) {
			ra->state = RPL_AIO_SKIPPED;
			continue;
		}
		ptrs[n] = &cbs[n];
		n++;
	}
	if (!n) {
		r = rpl_skip(op, RPL_SKIP_FD);
		goto out;
	}
	pthread_mutex_lock(&x->lock);
	now = iot_now_ns();
	r = ret_of(syscall(SYS_io_submit, x->live, (long)n, ptrs));
	if (r > 0)
		x->inflight += (uint32_t)r;
	pthread_mutex_unlock(&x->lock);
	for (i = 0; i < n; i++) {
		struct rpl_aio *ra = &c->p->aio[cbs[i].aio_data];

		ra->state = (int64_t)i < r ? RPL_AIO_SUBMITTED : RPL_AIO_SKIPPED;
		ra->r_s_ns = now;
	}
out:
	free(cbs);
	free(ptrs);
	free(iov);
	return r;
}

/* The rest of a recorded wait that ended by its timeout (it returned
 * fewer than its min_nr): slept from the call's start @t0, as
 * ops_wait.c sleeps a poll that timed out; scaled as think times. */
static void timed_out(struct rpl_ctx *c, const struct rpl_op *op, int64_t t0)
{
	int64_t d = op->ev.t_exit - op->ev.t_enter;

	if (op->ev.ret < 0 || op->ev.ret >= op->ev.args[1] || d <= 0 ||
	    (op->ev.flags & IOT_EV_UNFINISHED) || c->p->o->timing == RPL_TIMING_AFAP)
		return;
	rpl_sleep_until(t0 + rpl_timed_ns(c->p->o, d));
	rpl_called(c, t0);
}

/*
 * io_getevents and io_pgetevents reap, each, the completions the
 * recorded call returned: min_nr and nr are both that count (never more
 * than are in flight here: a request that failed to submit), so that
 * the program's next calls find the queue as it did.  Waiting for the
 * recorded count alone while taking up to the recorded nr reaped more
 * than recorded whenever the replay's requests completed sooner, and
 * later calls then found fewer to reap; the events array was also cut
 * at 256, so one recorded io_pgetevents of 1,100 completions reaped 256
 * and the rest were never reaped.  The wait is bounded: a second with
 * no completion (a request on something the replay does not make)
 * gives up.
 */
static int64_t h_io_getevents(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = rpl_actx_get(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[0], 0);
	struct io_event *ev = NULL;
	struct timespec sec = { 1, 0 };
	int64_t r = 0, i, now, t0 = iot_now_ns(), want;

	if (!x || !x->live)
		return rpl_skip(op, RPL_SKIP_FD);
	want = op->ev.ret > 0 ? op->ev.ret : 0;
	pthread_mutex_lock(&x->lock);
	if (want > (int64_t)x->inflight)
		want = (int64_t)x->inflight;
	pthread_mutex_unlock(&x->lock);
	if (!want) {
		/* nothing to reap: the call, returning at once */
		r = ret_of(syscall(SYS_io_getevents, x->live, 0L, 0L, NULL, &(struct timespec){ 0, 0 }));
		goto out;
	}
	if (!(ev = calloc((size_t)want, sizeof(*ev)))) {
		r = -ENOMEM;
		goto out;
	}
	while (r < want) {
		int64_t k = ret_of(syscall(SYS_io_getevents, x->live, (long)(want - r),
					   (long)(want - r), ev + r, &sec));

		if (k == -EINTR && !atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed))
			continue;
		if (k <= 0) {
			if (!r)
				r = k;
			break;
		}
		r += k;
	}
	if (r <= 0)
		goto out;
	now = iot_now_ns();
	pthread_mutex_lock(&x->lock);
	x->inflight -= (uint32_t)r;
	pthread_mutex_unlock(&x->lock);
	for (i = 0; i < r; i++) {
		struct rpl_aio *ra;

		if (ev[i].data >= c->p->n_aio)
			continue;
		ra = &c->p->aio[ev[i].data];
		ra->r_res = ev[i].res;
		ra->r_t_ns = now;
		ra->r_reaper = (uint32_t)(op - c->p->ops) + 1;
		ra->state = RPL_AIO_DONE;
		rpl_aio_fault(c, op, ra);
	}
out:
	if (r >= 0)
		timed_out(c, op, t0);
	free(ev);
	return r;
}

/* io_cancel is made on the same context.  The kernel finds the request
 * by the address of its iocb, which here lived only through its
 * io_submit, so the call names none the kernel could cancel: neither
 * could the recorded one, unless its request was a poll or a USB
 * gadget's (the only ones that can be cancelled; iotape replays
 * neither): a read, write or sync fails with EINVAL, as recorded, and
 * completes all the same. */
static int64_t h_io_cancel(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = rpl_actx_get(c, IOT_AIO_LIBAIO, (uint64_t)op->ev.args[0], 0);
	struct iocb cb;
	struct io_event ev;

	if (!x || !x->live)
		return rpl_skip(op, RPL_SKIP_FD);
	memset(&cb, 0, sizeof(cb));
	return ret_of(syscall(SYS_io_cancel, x->live, &cb, &ev));
}

/* An eventfd, which completions of libaio requests (IOCB_FLAG_RESFD)
 * and of rings (IORING_REGISTER_EVENTFD) signal: made again, with its
 * counter, under the recorded number.  Non-blocking, as the replay's
 * pipes are: a read the replay reaches before the write or completion
 * that signals it waits for it (ops_pipe.c rpl_eventfd_rw()) and then
 * fails with EAGAIN (a mismatch), never hangs.  Always in semaphore
 * mode, a read taking one: a read recorded taking the sum of several
 * writes took, replayed after more of them, a count that the next read
 * then waited for in vain (a thread pool's wake-ups, libuv's: 1-8 of
 * npm's reads). */
static int64_t make_eventfd(struct rpl_ctx *c, const struct rpl_op *op)
{
	return ret_of(eventfd((unsigned)op->ev.args[0], EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK));
}

static int64_t h_eventfd(struct rpl_ctx *c, struct rpl_op *op)
{
	int64_t r = rpl_anon_fd(c, op, ((int)op->ev.args[1] & EFD_CLOEXEC) != 0, make_eventfd);

	if (r >= 0)
		rpl_fdtab_mark(c->pr->tab, (long)r, RPL_FD_EVENTFD);
	return r;
}

void rpl_ops_aio(rpl_handler *h)
{
	h[SYS_eventfd2] = h_eventfd;
	h[SYS_io_setup] = h_io_setup;
	h[SYS_io_destroy] = h_io_destroy;
	h[SYS_io_submit] = h_io_submit;
	h[SYS_io_getevents] = h_io_getevents;
	h[SYS_io_pgetevents] = h_io_getevents;
	h[SYS_io_cancel] = h_io_cancel;
}
