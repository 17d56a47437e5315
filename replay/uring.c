/*
 * uring.c - replaying io_uring: each recorded ring is set up again with
 * liburing (same entries, CQ size and the flags that change how the
 * kernel runs requests), files and buffers are registered as recorded,
 * and each io_uring_enter submits the SQEs it consumed when recorded, in
 * one batch, waiting for as many completions as it asked to, less those
 * the program had left in its ring unreaped (the kernel counts them; the
 * recorder writes how many, IOT_AIO_CQ_READY), and only until no more
 * requests are in flight here than the recorded call left in flight
 * (wait_for()).  Completions are reaped from the ring after
 * every enter, read from its memory with no call, as a program reaps
 * them; a ring keeps the recorded DEFER_TASKRUN and TASKRUN_FLAG (its
 * completions are posted only when its thread enters asking for events),
 * and an enter asks for events where the recorded one did.
 *
 * The queue is held at the ring's depth: no deeper than the most
 * requests the ring had in flight when recorded (submitted, completion
 * not yet posted; the recorder reads the completion ring at every
 * io_uring_enter).  A batch that would go deeper waits for completions
 * first, as the program, whose queue was full, waited.  Without that, a
 * replay of fio at iodepth 8 (buffered writes, which it reaps from the
 * ring with no syscall) put all 1,024 requests of its job in flight at
 * once: completions seen 8 ms after submission, against 63 us recorded.
 * The bound is the recorded maximum and not the depth at each call:
 * under the recorder each submission costs a ptrace stop (tens of us),
 * so more requests completed between two submissions than natively (fio
 * randwrite, O_DIRECT, iodepth 32: 7.3 in flight on average at each
 * submission when recorded, 17.5 in the replay); replaying the recorded
 * depth call by call made the I/O 41 % slower than native, the bound
 * 25 % faster, on a loaded machine (docs/FIGURES.md).  The completions
 * seen at a ring's close or munmap, or its process's exit, are waited
 * for there (rpl_aio_await()), and so are as many of those still in
 * flight as the program had seen complete (rpl_uring_drain()), so that
 * the last requests end where the program's did.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"
#include "uring_abi.h"

/* setup flags replayed as recorded */
#define KEEP_FLAGS (IORING_SETUP_IOPOLL | IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | \
		    IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | \
		    IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SINGLE_ISSUER | \
		    IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SQE128 | IORING_SETUP_CQE32)

#define LINK_FLAGS (IOSQE_IO_DRAIN | IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_ASYNC)

void rpl_uring_free(struct rpl_actx *x)
{
	if (!x->ring)
		return;
	io_uring_queue_exit(x->ring);
	free(x->ring);
	x->ring = NULL;
}

/* The ring a call names by @arg: its recorded descriptor, or with
 * @registered an index the thread registered it under. */
static struct rpl_actx *ring_named(struct rpl_ctx *c, int64_t arg, int registered)
{
	int64_t rec = registered ? rpl_aio_reg_get(c, (uint32_t)arg, NULL) : arg;

	return rec < 0 ? NULL : rpl_actx_get(c, IOT_AIO_URING, (uint64_t)rec, 0);
}

/* IORING_(UN)REGISTER_RING_FDS: the replay's ring is registered (or
 * unregistered) too, by a call of its own, and the recorded index is
 * mapped to it; liburing is not told, and enters by the descriptor: a
 * ring of the replay serves every thread of its process, and another
 * thread has no such index. */
static int64_t ring_fds(struct rpl_ctx *c, struct rpl_op *op, int reg)
{
	int64_t r = 0;
	uint32_t i;

	for (i = 0; i < op->n_aio; i++) {
		const struct rpl_aio *g = &c->p->aio[op->aio_off + i];
		struct io_uring_rsrc_update up = { .offset = -1U };
		struct rpl_actx *x;
		uint32_t idx, live = 0;
		int64_t k;

		if (g->a.kind != IOT_AIO_REGISTER || !g->a.nvals ||
		    g->a.opcode != (reg ? IORING_REGISTER_RING_FDS : IORING_UNREGISTER_RING_FDS) ||
		    !(x = rpl_actx_get(c, IOT_AIO_URING, g->a.ctx, 0)) || !x->ring)
			continue;
		idx = (uint32_t)g->a.vals[0];
		if (!reg && rpl_aio_reg_get(c, idx, &live) < 0)
			continue;
		up.offset = reg ? -1U : live;
		up.data = (uint64_t)x->ring_fd;
		if (!reg)
			up.data = 0;	/* the kernel wants none */
		k = RPL_CALL(c, syscall(SYS_io_uring_register, x->ring_fd,
					reg ? IORING_REGISTER_RING_FDS : IORING_UNREGISTER_RING_FDS,
					&up, 1));
		if (k < 0)
			return k;
		rpl_aio_reg_set(c, idx, reg ? (int64_t)g->a.ctx : -1, up.offset);
		r += k;
	}
	return op->n_aio ? r : rpl_skip(op, RPL_SKIP_UNSUPPORTED);
}

static const struct rpl_aio *first_aio(struct rpl_ctx *c, const struct rpl_op *op,
				       uint32_t kind)
{
	uint32_t i;

	for (i = 0; i < op->n_aio; i++)
		if (c->p->aio[op->aio_off + i].a.kind == kind)
			return &c->p->aio[op->aio_off + i];
	return NULL;
}

static int64_t h_setup(struct rpl_ctx *c, struct rpl_op *op)
{
	const struct rpl_aio *s = first_aio(c, op, IOT_AIO_SETUP);
	struct io_uring_params pr;
	struct io_uring *ring;
	struct rpl_actx *x;
	struct rpl_fd e = { .path = op->ev.path };
	int64_t r;

	if (op->ev.ret < 0 || !s)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	memset(&pr, 0, sizeof(pr));
	pr.flags = s->a.flags & KEEP_FLAGS;
	if (pr.flags & IORING_SETUP_CQSIZE)
		pr.cq_entries = (uint32_t)s->a.res;
	if (!(ring = calloc(1, sizeof(*ring))))
		return -ENOMEM;
	r = RPL_TIMED(c, io_uring_queue_init_params((unsigned)op->ev.args[0], ring, &pr));
	if (r < 0) {
		free(ring);
		return r;
	}
	if (!(x = rpl_actx_get(c, IOT_AIO_URING, (uint64_t)op->ev.ret, 1))) {
		io_uring_queue_exit(ring);
		free(ring);
		return -ENOMEM;
	}
	rpl_uring_free(x);
	x->ring = ring;
	x->ring_fd = ring->ring_fd;
	x->depth = s->depth;
	/* the recorded descriptor names the ring: a copy, so that its
	 * close, mmap and the rest find it, and the ring lives on */
	e.live = dup(ring->ring_fd);
	e.state = e.live >= 0 ? RPL_FD_LIVE : RPL_FD_SKIP;
	if (rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &e) < 0 && e.live >= 0)
		close(e.live);
	return op->ev.ret;
}

/* What the program asked of the kernel's opcodes, asked again. */
static int64_t probe(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x)
{
	unsigned n = (unsigned)op->ev.args[3] > 256 ? 256 : (unsigned)op->ev.args[3];
	size_t len = sizeof(struct io_uring_probe) + n * sizeof(struct io_uring_probe_op);
	void *pb = calloc(1, len);
	int64_t r;

	if (!pb)
		return -ENOMEM;
	r = RPL_CALL(c, syscall(SYS_io_uring_register, x->ring_fd, IORING_REGISTER_PROBE, pb, n));
	free(pb);
	return r;
}

static int64_t unregister(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x)
{
	int64_t r;
	uint32_t i;

	pthread_mutex_lock(&x->lock);
	if (((uint32_t)op->ev.args[1] & ~IOT_URING_REG_USE_RING) == IORING_UNREGISTER_FILES) {
		r = RPL_TIMED(c, io_uring_unregister_files(x->ring));
	} else {
		r = RPL_TIMED(c, io_uring_unregister_buffers(x->ring));
		for (i = 0; r == 0 && i < x->n_bufs; i++)
			free(x->bufs[i]);
		if (r == 0) {
			free(x->bufs);
			free(x->buf_len);
			x->bufs = NULL;
			x->buf_len = NULL;
			x->n_bufs = 0;
		}
	}
	pthread_mutex_unlock(&x->lock);
	return r;
}

static int64_t h_register(struct rpl_ctx *c, struct rpl_op *op)
{
	uint32_t opc = (uint32_t)op->ev.args[1] & ~IOT_URING_REG_USE_RING;
	struct rpl_actx *x = ring_named(c, op->ev.args[0],
					((uint32_t)op->ev.args[1] & IOT_URING_REG_USE_RING) != 0);
	const struct rpl_aio *g = first_aio(c, op, IOT_AIO_REGISTER);
	struct iovec *iov = NULL;
	int *fds = NULL;
	uint32_t i, n;
	int64_t r;

	if (!x || !x->ring)
		return rpl_skip(op, RPL_SKIP_FD);
	if (opc == IORING_REGISTER_RING_FDS || opc == IORING_UNREGISTER_RING_FDS)
		return ring_fds(c, op, opc == IORING_REGISTER_RING_FDS);
	if (!g && opc == IORING_REGISTER_PROBE)
		return probe(c, op, x);
	if (!g && (opc == IORING_UNREGISTER_FILES || opc == IORING_UNREGISTER_BUFFERS))
		return unregister(c, op, x);
	if (!g && opc == IORING_UNREGISTER_EVENTFD)
		return RPL_TIMED(c, io_uring_unregister_eventfd(x->ring));
	if (g && (g->a.opcode == IORING_REGISTER_EVENTFD ||
		  g->a.opcode == IORING_REGISTER_EVENTFD_ASYNC)) {
		/* the replay's eventfd of that number: its completions signal it */
		struct rpl_fd e;

		if (!g->a.nvals || rpl_fdtab_get(c->pr->tab, g->a.vals[0], &e) < 0 ||
		    e.state != RPL_FD_LIVE)
			return rpl_skip(op, RPL_SKIP_FD);
		return RPL_TIMED(c, g->a.opcode == IORING_REGISTER_EVENTFD ?
				 io_uring_register_eventfd(x->ring, e.live) :
				 io_uring_register_eventfd_async(x->ring, e.live));
	}
	if (!g)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	n = g->a.nvals;
	pthread_mutex_lock(&x->lock);
	if (g->a.opcode == IORING_REGISTER_FILES) {
		if (!(fds = calloc(n + 1, sizeof(*fds)))) {
			r = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++) {
			struct rpl_fd e;

			fds[i] = rpl_fdtab_get(c->pr->tab, g->a.vals[i], &e) == 0 &&
				e.state == RPL_FD_LIVE ? e.live : -1;
		}
		r = RPL_TIMED(c, io_uring_register_files(x->ring, fds, n));
	} else {
		if (x->n_bufs) {
			r = -EBUSY;
			goto out;
		}
		x->bufs = calloc(n + 1, sizeof(*x->bufs));
		x->buf_len = calloc(n + 1, sizeof(*x->buf_len));
		iov = calloc(n + 1, sizeof(*iov));
		if (!x->bufs || !x->buf_len || !iov) {
			r = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++) {
			uint64_t len = (uint64_t)g->a.vals[i], k;

			if (len > RPL_IO_MAX)
				len = RPL_IO_MAX;
			x->bufs[i] = aligned_alloc(4096, (len + 4095) & ~4095ULL);
			if (!x->bufs[i]) {
				r = -ENOMEM;
				goto out;
			}
			x->n_bufs = i + 1;
			x->buf_len[i] = len;
			for (k = 0; k < len; k += RPL_SCRATCH)
				memcpy((char *)x->bufs[i] + k, rpl_wbuf(),
				       len - k < RPL_SCRATCH ? len - k : RPL_SCRATCH);
			iov[i].iov_base = x->bufs[i];
			iov[i].iov_len = len;
		}
		r = RPL_TIMED(c, io_uring_register_buffers(x->ring, iov, n));
	}
out:
	pthread_mutex_unlock(&x->lock);
	free(fds);
	free(iov);
	return r;
}

/* Per-batch storage that must live until the batch is submitted. */
struct batch {
	struct rpl_name *names;
	uint32_t n_names;
	struct open_how *how;
	struct iovec (*iov)[RPL_AIO_IOVS];
};

static int name_of(struct rpl_ctx *c, struct batch *b, const char *path,
		   struct rpl_name **n)
{
	if (!path || rpl_path_skip(c->p->o, path))
		return -1;
	*n = &b->names[b->n_names];
	if (rpl_parent(c->p->root_fd, path, *n) < 0)
		return -1;
	b->n_names++;
	return 0;
}

static int live_fd(struct rpl_ctx *c, const struct iot_aio *a)
{
	struct rpl_fd e;

	if (a->flags & IOSQE_FIXED_FILE)
		return a->fd;
	if (rpl_fdtab_get(c->pr->tab, a->fd, &e) < 0 || e.state != RPL_FD_LIVE)
		return -1;
	return e.live;
}

/* Fill @sqe with recorded request @k.  @return : 0, or -1 if it cannot
 * be replayed. */
static int prep(struct rpl_ctx *c, struct rpl_actx *x, uint32_t k, struct batch *b,
		uint32_t slot, struct io_uring_sqe *sqe)
{
	const struct iot_aio *a = &c->p->aio[k].a;
	uint64_t cap;
	char *buf = rpl_aio_buf(c->p, a, &cap), *fixed;
	uint64_t len = a->len > cap ? cap : a->len;
	struct rpl_name *n1, *n2;
	int fd = -1;
	uint32_t nv;

	if (!buf || !iot_aio_op_known(IOT_AIO_URING, a->opcode))
		return -1;
	switch (a->opcode) {
	case IORING_OP_NOP:
		io_uring_prep_nop(sqe);
		break;
	case IORING_OP_READ: case IORING_OP_WRITE: case IORING_OP_READV:
	case IORING_OP_WRITEV: case IORING_OP_READ_FIXED: case IORING_OP_WRITE_FIXED:
	case IORING_OP_FSYNC: case IORING_OP_FALLOCATE:
		if ((fd = live_fd(c, a)) < 0)
			return -1;
		break;
	}
	switch (a->opcode) {
	case IORING_OP_READ:
		io_uring_prep_read(sqe, fd, buf, (unsigned)len, a->off);
		break;
	case IORING_OP_WRITE:
		io_uring_prep_write(sqe, fd, buf, (unsigned)len, a->off);
		break;
	case IORING_OP_READV: case IORING_OP_WRITEV:
		nv = rpl_aio_iovs(a, buf, cap, b->iov[slot]);
		if (a->opcode == IORING_OP_READV)
			io_uring_prep_readv(sqe, fd, b->iov[slot], nv, a->off);
		else
			io_uring_prep_writev(sqe, fd, b->iov[slot], nv, a->off);
		break;
	case IORING_OP_READ_FIXED: case IORING_OP_WRITE_FIXED:
		if (a->buf_index >= x->n_bufs)
			return -1;
		if (len > x->buf_len[a->buf_index])
			len = x->buf_len[a->buf_index];
		fixed = x->bufs[a->buf_index];
		/* a write's recorded bytes go into its registered buffer
		 * (another request in flight on it at the same time would
		 * see them) */
		if (a->data_len && a->opcode == IORING_OP_WRITE_FIXED)
			memcpy(fixed, buf, (size_t)len);
		if (a->opcode == IORING_OP_READ_FIXED)
			io_uring_prep_read_fixed(sqe, fd, fixed, (unsigned)len,
						 a->off, (int)a->buf_index);
		else
			io_uring_prep_write_fixed(sqe, fd, fixed, (unsigned)len,
						  a->off, (int)a->buf_index);
		break;
	case IORING_OP_FSYNC:
		io_uring_prep_fsync(sqe, fd, a->rw_flags);
		break;
	case IORING_OP_FALLOCATE:
		io_uring_prep_fallocate(sqe, fd, (int)a->rw_flags, a->off, (off_t)a->len);
		break;
	case IORING_OP_CLOSE: {
		struct rpl_fd e;

		/* a copy is closed by the ring, the recorded descriptor here:
		 * no other thread can get its number in between */
		if ((a->flags & IOSQE_FIXED_FILE) ||
		    rpl_fdtab_get(c->pr->tab, a->fd, &e) < 0 || e.state != RPL_FD_LIVE ||
		    (fd = dup(e.live)) < 0)
			return -1;
		rpl_fdtab_close(c->pr->tab, a->fd);
		io_uring_prep_close(sqe, fd);
		break;
	}
	case IORING_OP_OPENAT:
		if (name_of(c, b, a->path, &n1) < 0)
			return -1;
		memset(&b->how[slot], 0, sizeof(b->how[slot]));
		b->how[slot].flags = a->rw_flags | O_CLOEXEC;
		if (a->rw_flags & (O_CREAT | __O_TMPFILE))
			b->how[slot].mode = a->len & 07777;
		b->how[slot].resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			RESOLVE_NO_MAGICLINKS;
		io_uring_prep_openat2(sqe, n1->dirfd, n1->name, &b->how[slot]);
		break;
	case IORING_OP_STATX:
		if (name_of(c, b, a->path, &n1) < 0)
			return -1;
		io_uring_prep_statx(sqe, n1->dirfd, n1->name,
				    (int)(a->rw_flags | AT_SYMLINK_NOFOLLOW), (unsigned)a->len,
				    (struct statx *)(void *)(buf + cap));
		break;
	case IORING_OP_UNLINKAT:
		if (name_of(c, b, a->path, &n1) < 0)
			return -1;
		io_uring_prep_unlinkat(sqe, n1->dirfd, n1->name, (int)a->rw_flags);
		break;
	case IORING_OP_MKDIRAT:
		if (name_of(c, b, a->path, &n1) < 0)
			return -1;
		io_uring_prep_mkdirat(sqe, n1->dirfd, n1->name, (mode_t)(a->len & 07777));
		break;
	case IORING_OP_RENAMEAT:
		if (name_of(c, b, a->path, &n1) < 0 || name_of(c, b, a->path2, &n2) < 0)
			return -1;
		io_uring_prep_renameat(sqe, n1->dirfd, n1->name, n2->dirfd, n2->name,
				       a->rw_flags);
		break;
	}
	sqe->flags |= (uint8_t)(a->flags & (LINK_FLAGS | IOSQE_FIXED_FILE));
	if (a->opcode == IORING_OP_OPENAT || a->opcode == IORING_OP_CLOSE)
		sqe->flags &= (uint8_t)~IOSQE_FIXED_FILE;
	/* a buffer index on an opcode that takes none (an fsync of fio's
	 * with fixedbufs): the kernel refused it (EINVAL), and does here;
	 * made without it, 3,758 fsyncs of a fio run succeeded.  Only where
	 * it was refused: the bpf backend reads the index from the prepared
	 * request, which may hold another value (156 fsyncs of a fio run
	 * were refused here, not when recorded) */
	if (a->buf_index && c->p->aio[k].rec_res == -EINVAL && a->opcode != IORING_OP_READ_FIXED &&
	    a->opcode != IORING_OP_WRITE_FIXED && !(a->flags & IOSQE_BUFFER_SELECT))
		sqe->buf_index = (uint16_t)a->buf_index;
	io_uring_sqe_set_data64(sqe, k);
	return 0;
}

/*
 * Every completion there is in the completion ring (@op: the call reaping
 * them), read from the ring in memory, as a program reaps: never a call.
 * liburing's io_uring_peek_cqe() enters the kernel when the ring asks for
 * its deferred work to be run (IORING_SETUP_TASKRUN_FLAG, kept from the
 * recording), which would put a call where the program made none.
 */
static void reap(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x)
{
	struct io_uring *ring = x->ring;
	struct io_uring_cqe *cqe;
	int64_t now = iot_now_ns();
	unsigned head, seen = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		uint64_t k = io_uring_cqe_get_data64(cqe);

		if (x->inflight)
			x->inflight--;
		if (k < c->p->n_aio && c->p->aio[k].state == RPL_AIO_SUBMITTED) {
			struct rpl_aio *ra = &c->p->aio[k];

			ra->r_res = cqe->res;
			ra->r_t_ns = now;
			ra->r_reaper = (uint32_t)(op - c->p->ops) + 1;
			ra->state = RPL_AIO_DONE;
			rpl_aio_fault(c, op, ra);
			if (ra->a.opcode == IORING_OP_OPENAT && cqe->res >= 0) {
				struct rpl_fd e = { .live = cqe->res, .state = RPL_FD_LIVE,
						    .path = ra->a.path };

				if (ra->rec_res < 0 ||
				    rpl_fdtab_set(c->pr->tab, (long)ra->rec_res, &e) < 0)
					close(cqe->res);
			}
		}
		seen++;
	}
	io_uring_cq_advance(ring, seen);
}

void rpl_uring_await(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x,
		     uint32_t from, uint32_t to)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		const struct rpl_aio *ra = &c->p->aio[op->aio_off + i];
		const struct rpl_aio *rq;

		if (ra->a.kind != IOT_AIO_COMPLETE || !ra->req)
			continue;
		rq = &c->p->aio[ra->req - 1];
		while (rq->state == RPL_AIO_SUBMITTED) {
			/* bounded: a request that waits for something the
			 * replay does not make (data on a pipe) is left */
			struct __kernel_timespec ts = { .tv_sec = 1 };
			struct io_uring_cqe *cqe;

			if (io_uring_wait_cqe_timeout(x->ring, &cqe, &ts) < 0)
				break;
			reap(c, op, x);
		}
	}
}

/* A ring's end (its close, munmap, its process's exit): the program had
 * seen complete every request but those still in flight when recorded
 * (mostly none), and the replay waits for as many here, not only for the
 * completions the recorder saw at the end.  A call that waits for N
 * completions reaps N, not the N the program did: a replay that runs
 * ahead of the recording (fio, io_uring, iodepth 8: one request in
 * flight when recorded at the last wait, eight here) reaped one at the
 * last io_uring_enter, and the ring went with seven writes in flight,
 * posted by the kernel's teardown 330 ms later, after the replay of the
 * I/O had ended. */
/* How many of @x's requests were in flight when recorded, so far. */
static uint64_t rec_inflight(const struct rpl_actx *x)
{
	return x->rec_sub > x->rec_done ? x->rec_sub - x->rec_done : 0;
}

void rpl_uring_drain(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x)
{
	uint64_t left = rec_inflight(x);

	reap(c, op, x);
	while (x->inflight > left) {
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(x->ring, &cqe, &ts) < 0)
			break;	/* bounded, as rpl_uring_await() */
		reap(c, op, x);
	}
}

/* The queue is never deeper than the ring's was when recorded: a batch
 * of @nsub that would make it so waits for completions first. */
static void room_for(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x, uint32_t nsub)
{
	reap(c, op, x);
	if (x->depth && x->inflight && x->inflight + nsub > x->depth)
		rpl_aio_wait_seen(c->p, 1, x->inflight);
	while (x->depth && x->inflight && x->inflight + nsub > x->depth) {
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(x->ring, &cqe, &ts) < 0)
			break;	/* bounded, as rpl_uring_await() */
		reap(c, op, x);
	}
}

/* @op's requests @from to @to (of the recorded ring @ctx; UINT64_MAX:
 * all of them) into @x's SQ: @return : how many; *@ns set if one changes
 * names */
static uint32_t queue(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x, uint64_t ctx,
		      uint32_t from, uint32_t to, struct batch *b, uint32_t *ns)
{
	uint32_t i, queued = 0;
	int64_t now = iot_now_ns();

	for (i = from; i < to; i++) {
		uint32_t k = op->aio_off + i;
		struct rpl_aio *ra = &c->p->aio[k];
		struct io_uring_sqe *sqe;

		if (ra->a.kind != IOT_AIO_SUBMIT || (ctx != UINT64_MAX && ra->a.ctx != ctx))
			continue;
		if (!(sqe = io_uring_get_sqe(x->ring))) {
			ra->state = RPL_AIO_SKIPPED;
			continue;
		}
		if (prep(c, x, k, b, i, sqe) < 0) {
			/* a NOP in its place keeps a chain's shape */
			ra->state = RPL_AIO_SKIPPED;
			io_uring_prep_nop(sqe);
			sqe->flags |= (uint8_t)(ra->a.flags & LINK_FLAGS);
			io_uring_sqe_set_data64(sqe, UINT64_MAX);
		} else {
			ra->state = RPL_AIO_SUBMITTED;
			ra->r_s_ns = now;
			if (ra->a.opcode == IORING_OP_UNLINKAT || ra->a.opcode == IORING_OP_RENAMEAT)
				*ns = 1;
		}
		queued++;
	}
	return queued;
}

/*
 * How many completions a recorded wait for @want (those the program had
 * left unreaped not counted) waits for here, with @queued just queued:
 * the wait took the ring from @level requests in flight (when recorded,
 * after its submissions) down to @level - @want, and the replay's waits
 * for as many as it needs to get there, never more than @want.  A wait
 * for @want new completions whatever the depth let the queue run low:
 * where the replay's requests completed sooner, relative to its calls,
 * than the recording's (slowed by its stops, or on another filesystem),
 * it reached a recorded wait with fewer in flight than the program had,
 * and waited all the same: a replay of fio at iodepth 8 (every wait made
 * when fio's 8 were in flight) reached one with 3 in flight and waited
 * for one of them before it submitted again; its waits began with 6.1
 * in flight on average.  Completions a later call may need (an open's
 * descriptor) are waited for apart from this: await_needed().
 */
static uint32_t wait_for(const struct rpl_actx *x, uint64_t level, uint32_t want,
			 uint32_t queued)
{
	uint64_t now = (uint64_t)x->inflight + queued;
	uint64_t target = level > want ? level - want : 0;

	if (now <= target)
		return 0;
	return now - target < want ? (uint32_t)(now - target) : want;
}

/* The completions @op saw when recorded of requests that open, close or
 * change names, or sync: what follows may need them (a descriptor, a
 * name, data on the disk), so they are waited for here as recorded,
 * however few are in flight, whether the call asked for completions or
 * the program polled the ring for them.  qemu-img polls for its two
 * datasyncs and closes the file; the replay, not waiting for them,
 * closed it while they were queued for the kernel's worker, which then
 * found no file (EBADF, after the close) or never posted them before the
 * ring went.
 * Of data transfers, a wait takes the depth (wait_for()). */
static void await_needed(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x)
{
	uint32_t i;

	for (i = 0; i < op->n_aio; i++) {
		const struct rpl_aio *ra = &c->p->aio[op->aio_off + i];
		uint32_t opc;

		if (ra->a.kind != IOT_AIO_COMPLETE || !ra->req)
			continue;
		opc = c->p->aio[ra->req - 1].a.opcode;
		if (opc != IORING_OP_NOP && opc != IORING_OP_FALLOCATE &&
		    !iot_aio_op_dir(IOT_AIO_URING, opc))
			rpl_uring_await(c, op, x, i, i + 1);
	}
}

static int batch_new(struct batch *b, uint32_t n)
{
	b->names = calloc(2 * n + 1, sizeof(*b->names));
	b->how = calloc(n + 1, sizeof(*b->how));
	b->iov = calloc(n + 1, sizeof(*b->iov));
	return b->names && b->how && b->iov ? 0 : -ENOMEM;
}

static void batch_free(struct batch *b)
{
	uint32_t i;

	for (i = 0; b->names && i < b->n_names; i++)
		rpl_name_done(&b->names[i]);
	free(b->names);
	free(b->how);
	free(b->iov);
}

static int64_t h_enter(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = ring_named(c, op->ev.args[0],
					(op->ev.args[3] & IORING_ENTER_REGISTERED_RING) != 0);
	struct batch b = { 0 };
	uint32_t i, nsub = 0, ncomp = 0, queued, wait = 0, want, ns = 0;
	uint64_t left = 0, level;
	int64_t r;

	if (!x || !x->ring)
		return rpl_skip(op, RPL_SKIP_FD);
	if ((r = batch_new(&b, op->n_aio)) < 0)
		goto out;
	pthread_mutex_lock(&x->lock);
	for (i = 0; i < op->n_aio; i++) {
		const struct iot_aio *a = &c->p->aio[op->aio_off + i].a;

		nsub += a->kind == IOT_AIO_SUBMIT;
		ncomp += a->kind == IOT_AIO_COMPLETE;
		if (a->kind == IOT_AIO_CQ_READY)
			left += a->len;
	}
	x->rec_sub += nsub;
	level = rec_inflight(x);
	x->rec_done += ncomp;
	room_for(c, op, x, nsub);
	queued = queue(c, op, x, UINT64_MAX, 0, op->n_aio, &b, &ns);
	/* one io_uring_enter, with IORING_ENTER_GETEVENTS where the
	 * recorded one had it: a ring set up with DEFER_TASKRUN posts its
	 * completions only then.  It waited until min_complete were in the
	 * ring, those the program had left there unreaped included; the
	 * replay reaps every completion as it comes, so it waits for the
	 * rest only, and only down to the depth the recorded wait left:
	 * see wait_for() */
	if (op->ev.args[3] & IORING_ENTER_GETEVENTS) {
		wait = (uint64_t)(uint32_t)op->ev.args[2] > left ?
			(uint32_t)op->ev.args[2] - (uint32_t)left : 0;
		if (wait)
			rpl_aio_wait_seen(c->p, 0, level);
		want = wait;
		wait = wait_for(x, level, wait, queued);
		if (wait)
			rpl_aio_wait_seen(c->p, 1, x->inflight + queued);
		if (wait && x->inflight + queued - wait + want < level)
			__atomic_fetch_add(&c->p->ring_waits_below, 1, __ATOMIC_RELAXED);
	}
	if ((op->ev.args[3] & IORING_ENTER_GETEVENTS) && !wait)
		r = RPL_TIMED(c, io_uring_submit_and_get_events(x->ring));
	else
		r = RPL_TIMED(c, io_uring_submit_and_wait(x->ring, wait));
	if (r > 0)
		x->inflight += (uint32_t)r;
	reap(c, op, x);
	/* (a program that polls the ring's descriptor for completions
	 * enters without GETEVENTS: qemu's) */
	await_needed(c, op, x);
	pthread_mutex_unlock(&x->lock);
	if (ns)
		rpl_ns_changed(c->p);
out:
	batch_free(&b);
	return r;
}

void rpl_uring_submit_polled(struct rpl_ctx *c, struct rpl_op *op)
{
	struct rpl_actx *x = NULL;
	struct batch b = { 0 };
	uint32_t i, ns = 0;
	uint64_t ctx = 0;
	int r;

	for (i = 0; i < op->n_aio; i++) {
		const struct rpl_aio *ra = &c->p->aio[op->aio_off + i];

		if (ra->a.kind != IOT_AIO_SUBMIT || ra->a.api != IOT_AIO_URING ||
		    (x && ra->a.ctx != ctx))
			continue;
		if (!x && (x = rpl_actx_get(c, IOT_AIO_URING, ra->a.ctx, 0)))
			ctx = ra->a.ctx;
	}
	if (!x || !x->ring || batch_new(&b, op->n_aio) < 0)
		goto out;
	pthread_mutex_lock(&x->lock);
	/* in batches the queue's recorded depth (or the SQ) holds: the
	 * program may have made no call while the ring took many */
	for (i = 0; i < op->n_aio; ) {
		uint32_t j = i, n = 0, room = x->depth ? x->depth : io_uring_sq_space_left(x->ring);

		for (; j < op->n_aio && n < (room ? room : 1); j++) {
			const struct rpl_aio *ra = &c->p->aio[op->aio_off + j];

			n += ra->a.kind == IOT_AIO_SUBMIT && ra->a.ctx == ctx;
		}
		room_for(c, op, x, n);
		x->rec_sub += n;
		if (queue(c, op, x, ctx, i, j, &b, &ns) && (r = io_uring_submit(x->ring)) > 0)
			x->inflight += (uint32_t)r;
		reap(c, op, x);
		i = j;
	}
	pthread_mutex_unlock(&x->lock);
	if (ns)
		rpl_ns_changed(c->p);
out:
	batch_free(&b);
}

void rpl_ops_uring(rpl_handler *h)
{
	h[SYS_io_uring_setup] = h_setup;
	h[SYS_io_uring_enter] = h_enter;
	h[SYS_io_uring_register] = h_register;
}
