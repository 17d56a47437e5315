/*
 * aio.c - replaying asynchronous I/O: the requests of the trace
 * (AsyncOp records) tied to the ops of their syscalls, and the contexts
 * and rings of each replayed process; libaio's calls are in libaio.c.
 *
 * libaio is replayed through the same syscalls with the same shapes:
 * io_setup with the recorded queue depth, each io_submit with the batch
 * of iocbs it took (same opcodes, offsets, lengths, flags, RWF_*), each
 * io_getevents reaping as many completions as it returned when recorded,
 * no more and no fewer (never more than are in flight), so the
 * filesystem sees the recorded concurrency.  Writes send the bytes
 * `record --data` kept, or deterministic bytes; reads land in one buffer
 * shared by every context (the data is not kept).  No libaio library is
 * needed: the kernel ABI is small and stable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rpl.h"

struct rpl_actab {
	struct rpl_actx **v;
	uint32_t n, cap;
	/* IORING_REGISTER_RING_FDS: recorded index -> 1 + the recorded
	 * ring's descriptor, and the index the replay's ring got */
	struct { uint64_t rec; uint32_t live; } reg[RPL_RING_REGS];
};

/* ---- the plan: requests tied to their ops ---- */

uint64_t rpl_aio_ring_key(const struct iot_aio *a)
{
	uint64_t k = ((uint64_t)(uint32_t)a->pid << 32 | (uint32_t)a->ctx) * 0x9e3779b97f4a7c15ULL;

	return k ^ (k >> 29) ^ a->api;
}

/* The depth of the ring of io_uring record @a (submit: +1, complete: -1):
 * its set-up keeps the most. */
static void ring_depth(struct rpl_plan *p, const struct iot_aio *a, int d)
{
	struct rpl_aio *s;
	uint32_t i;

	if (a->api != IOT_AIO_URING || !rpl_map_get(&p->aio_ring, rpl_aio_ring_key(a), &i) ||
	    i >= p->n_aio)
		return;
	s = &p->aio[i];
	if (d < 0 && s->cur)
		s->cur--;
	else if (d > 0 && ++s->cur > s->depth)
		s->depth = s->cur;
}

/* The data buffer's length takes the largest transfer of request @a
 * (a vectored one's iovecs are laid end to end in it); a plan with any
 * request has one. */
static uint64_t req_len(const struct iot_aio *a)
{
	uint64_t n = 1, v = 0;
	uint32_t i;

	if (iot_aio_op_dir(a->api, a->opcode) & (IOT_SCF_READ | IOT_SCF_WRITE)) {
		for (i = 0; i < a->nvals && i < RPL_AIO_IOVS; i++)
			if (a->vals[i] > 0)
				v += (uint64_t)a->vals[i];
		n = a->len > v ? a->len : v;
	}
	return n > RPL_AIO_BUF ? RPL_AIO_BUF : n;
}

static void data_len(struct rpl_plan *p, const struct iot_aio *a)
{
	uint64_t n = req_len(a);

	if (n > p->aio_buf_len)
		p->aio_buf_len = n;
	if (iot_aio_op_dir(a->api, a->opcode) & IOT_SCF_READ)
		p->aio_reads = 1;	/* a read ring: rpl_aio_plan_buf() */
}

/* The bytes write request @x wrote (`record --data`), copied into the
 * plan's arena; only all it asked to write, as the recorder keeps them:
 * anything else is not replayed as data. */
static int keep_data(struct rpl_plan *p, struct rpl_aio *x)
{
	void *d;

	int write = x->a.kind == IOT_AIO_SUBMIT && x->a.len &&
		    (iot_aio_op_dir(x->a.api, x->a.opcode) & IOT_SCF_WRITE);

	if (!write || x->a.data_len != x->a.len) {
		/* a write request of a `record --data` trace without its
		 * bytes (over --data or --data-total) writes the replay's
		 * pattern: counted with the calls recorded so */
		if (write && iot_header_get(p->hdr, "record.data"))
			p->nodata_ops++;
		x->a.data = NULL;
		x->a.data_len = 0;
		return 0;
	}
	if (!(d = iot_arena_alloc(p->arena, x->a.data_len)))
		return -ENOMEM;
	memcpy(d, x->a.data, x->a.data_len);
	x->a.data = d;
	p->data_ops++;
	p->data_bytes += x->a.data_len;
	return 0;
}

/* Where request @a writes from, and how many bytes there are (*@cap):
 * its own recorded bytes, or the plan's buffer of deterministic bytes. */
char *rpl_aio_buf(struct rpl_plan *p, const struct iot_aio *a, uint64_t *cap)
{
	if (a->data_len) {
		*cap = a->data_len;
		/* the kernel only reads a write's buffer */
		return (char *)(uintptr_t)a->data;
	}
	if (p->aio_rbuf && (iot_aio_op_dir(a->api, a->opcode) & IOT_SCF_READ)) {
		/* a read: the read ring's next bytes, its own while it is in
		 * flight (rpl_aio_plan_buf() says why) */
		uint64_t need = (req_len(a) + 4095) & ~(uint64_t)4095, at;

		do
			at = atomic_fetch_add(&p->aio_rcur, need) % p->aio_rlen;
		while (at + need > p->aio_rlen);
		*cap = need;
		return p->aio_rbuf + at;
	}
	*cap = p->aio_buf_len;
	return p->aio_buf;
}

uint32_t rpl_aio_iovs(const struct iot_aio *a, char *buf, uint64_t cap, struct iovec *iov)
{
	uint32_t i, n = a->nvals < RPL_AIO_IOVS ? a->nvals : RPL_AIO_IOVS;
	uint64_t len = 0;

	for (i = 0; i < n; i++) {
		/* a length below 0 (a damaged trace) is none; len <= cap
		 * throughout, so cap - len cannot wrap where len + l could */
		uint64_t l = a->vals[i] > 0 ? (uint64_t)a->vals[i] : 0;

		if (l > cap - len)
			l = cap - len;
		iov[i].iov_base = buf + len;
		iov[i].iov_len = l;
		len += l;
	}
	return n;
}

/*
 * The request completion @a (its result @a->res) completes, of those in
 * flight with its key from the last one submitted (@i) back: requests
 * share a key when a program gives them one user_data (liburing's 0 where
 * it sets none), and the last one took every completion, the others none
 * (100 of 200 reads' results differed; of two openats, one descriptor was
 * taken for the other's file).  The one whose length its result is, else
 * the first submitted.  @return : its index, or UINT32_MAX if none.
 */
static uint32_t completes(const struct rpl_plan *p, const struct iot_aio *a, uint32_t i)
{
	uint32_t first = UINT32_MAX, fit = UINT32_MAX, n = 0;

	while (i < p->n_aio && p->aio[i].rec_res == RPL_AIO_NORES && n++ < UINT16_MAX) {
		first = i;
		if (a->res >= 0 && (iot_aio_op_dir(p->aio[i].a.api, p->aio[i].a.opcode) &
				    (IOT_SCF_READ | IOT_SCF_WRITE)) &&
		    req_len(&p->aio[i].a) == (uint64_t)a->res)
			fit = i;
		if (!p->aio[i].same_prev)
			break;
		i = p->aio[i].same_prev - 1;
	}
	return fit != UINT32_MAX ? fit : first;
}

int rpl_aio_collect(struct rpl_plan *p, const struct iot_aio *a)
{
	struct rpl_aio *x;
	struct rpl_op *op;
	uint32_t i, req = 0, prev = 0;
	size_t k;
	int rc;

	if (a->kind == IOT_AIO_COMPLETE) {
		p->aio_completes++;
		if (rpl_map_get(&p->aio_key, iot_aio_key(a), &i) &&
		    (i = completes(p, a, i)) != UINT32_MAX) {
			p->aio[i].rec_res = a->res;
			req = i + 1;
			ring_depth(p, a, -1);
		}
		if (!req)
			return 0;
	} else if (a->kind == IOT_AIO_SUBMIT && rpl_map_get(&p->aio_key, iot_aio_key(a), &i) &&
		   i < p->n_aio && p->aio[i].rec_res == RPL_AIO_NORES) {
		prev = i + 1;
	}
	if (p->n_aio == p->cap_aio) {
		size_t nc = p->cap_aio ? p->cap_aio * 2 : 256;
		void *v = realloc(p->aio, nc * sizeof(*p->aio));

		if (!v)
			return -ENOMEM;
		p->aio = v;
		p->cap_aio = nc;
	}
	x = &p->aio[p->n_aio];
	memset(x, 0, sizeof(*x));
	x->a = *a;
	x->rec_res = RPL_AIO_NORES;
	x->req = req;
	x->same_prev = prev;
	if (req) {
		/* the request has them */
		x->a.path = x->a.path2 = NULL;
		x->a.nvals = 0;
		x->a.vals = NULL;
		x->a.data = NULL;
		x->a.data_len = 0;
	} else {
		x->a.path = a->path ? iot_arena_strndup(p->arena, a->path, a->path_len) : NULL;
		x->a.path2 = a->path2 ? iot_arena_strndup(p->arena, a->path2, a->path2_len) :
			NULL;
	}
	if (!req && (rc = keep_data(p, x)))
		return rc;
	if (a->nvals && !req) {
		int64_t *v = iot_arena_alloc(p->arena, a->nvals * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memcpy(v, a->vals, a->nvals * sizeof(*v));
		x->a.vals = v;
	}
	if (a->kind == IOT_AIO_SUBMIT &&
	    rpl_map_put(&p->aio_key, iot_aio_key(a), (uint32_t)p->n_aio) < 0)
		return -ENOMEM;
	if (a->kind == IOT_AIO_SETUP && a->api == IOT_AIO_URING &&
	    rpl_map_put(&p->aio_ring, rpl_aio_ring_key(a), (uint32_t)p->n_aio) < 0)
		return -ENOMEM;
	if (a->kind == IOT_AIO_SUBMIT) {
		ring_depth(p, a, 1);
		data_len(p, a);
	}
	/* ops are still in file order here: op k is event k.  A request
	 * whose event is not there, or not right after its siblings, is
	 * counted but not replayed. */
	k = p->n_aio++;
	if (a->event >= p->n_ops)
		return 0;
	op = &p->ops[a->event];
	if (req && op->ev.tid != a->tid)
		return 0;	/* seen at another thread's call (exit, exec) */
	if (!op->n_aio)
		op->aio_off = (uint32_t)k;
	if (op->aio_off + op->n_aio == k && op->n_aio < UINT16_MAX)
		op->n_aio++;
	return 0;
}

void rpl_aio_await(struct rpl_ctx *c, struct rpl_op *op)
{
	uint32_t i;

	if (op->ev.nr == SYS_io_uring_enter)
		return;
	rpl_uring_submit_polled(c, op);
	for (i = 0; i < op->n_aio; i++) {
		const struct rpl_aio *ra = &c->p->aio[op->aio_off + i];
		struct rpl_actx *x;

		if ((ra->a.kind != IOT_AIO_COMPLETE && ra->a.kind != IOT_AIO_END) ||
		    ra->a.api != IOT_AIO_URING ||
		    !(x = rpl_actx_get(c, IOT_AIO_URING, ra->a.ctx, 0)) || !x->ring)
			continue;
		pthread_mutex_lock(&x->lock);
		if (ra->a.kind == IOT_AIO_COMPLETE) {
			rpl_uring_await(c, op, x, i, i + 1);
			x->rec_done++;
		} else {
			rpl_uring_drain(c, op, x);
		}
		pthread_mutex_unlock(&x->lock);
	}
}

void rpl_aio_tally(struct rpl_plan *p, struct rpl_result *res)
{
	size_t i;

	res->aio_rec_completions = p->aio_completes;
	rpl_aio_depth(p, res);
	for (i = 0; i < p->n_aio; i++) {
		const struct rpl_aio *x = &p->aio[i];
		unsigned dir;

		if (x->a.kind != IOT_AIO_SUBMIT)
			continue;
		res->aio_requests++;
		if (x->state == RPL_AIO_PENDING || x->state == RPL_AIO_SKIPPED) {
			res->aio_skipped++;
			if (x->a.opcode < 64)
				*(x->a.api == IOT_AIO_URING ? &res->uring_skip_ops :
				  &res->aio_skip_ops) |= 1ULL << x->a.opcode;
			continue;
		}
		res->aio_replayed++;
		dir = iot_aio_op_dir(x->a.api, x->a.opcode);
		if (dir & IOT_SCF_READ)
			res->aio_rbytes += x->a.len;
		else if (dir & IOT_SCF_WRITE)
			res->aio_wbytes += x->a.len;
		if (x->state == RPL_AIO_DONE) {
			res->aio_completions++;
			/* success against failure, or a short transfer */
			if (x->rec_res != RPL_AIO_NORES &&
			    ((x->rec_res < 0) != (x->r_res < 0) ||
			     (dir && x->rec_res >= 0 && x->rec_res != x->r_res)))
				res->aio_mismatches++;
		}
	}
}

/* The completions each op reaped, as lists: reap_head[op] and
 * reap_next[request] hold 1 + the next request, 0 ends. */
static int reaped_index(struct rpl_plan *p)
{
	size_t i;

	p->reap_head = calloc(p->n_ops + 1, sizeof(*p->reap_head));
	p->reap_next = calloc(p->n_aio + 1, sizeof(*p->reap_next));
	if (!p->reap_head || !p->reap_next)
		return -ENOMEM;
	/* backwards, so that each list is in file order */
	for (i = p->n_aio; i-- > 0;) {
		uint32_t o = p->aio[i].r_reaper;

		if (p->aio[i].state != RPL_AIO_DONE || !o || o > p->n_ops)
			continue;
		p->reap_next[i] = p->reap_head[o - 1];
		p->reap_head[o - 1] = (uint32_t)i + 1;
	}
	return 0;
}

int rpl_aio_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		    int64_t t_ns, uint64_t event)
{
	struct iot_aio a;
	uint32_t i, k;
	int err = 0;

	if (!p->n_aio)
		return 0;
	if (!p->reap_head && (err = reaped_index(p)) < 0)
		return err;
	for (i = 0; i < op->n_aio && !err && !op->skip; i++) {
		const struct rpl_aio *ra = &p->aio[op->aio_off + i];

		if (ra->a.kind == IOT_AIO_COMPLETE || ra->a.kind == IOT_AIO_CQ_READY)
			continue;	/* the recording's: the replay's follow */
		if (ra->a.kind == IOT_AIO_SUBMIT && ra->state != RPL_AIO_SUBMITTED &&
		    ra->state != RPL_AIO_DONE)
			continue;	/* not made: it moved nothing */
		a = ra->a;
		a.event = event;
		a.t_ns = t_ns;
		a.data = NULL;		/* a profile keeps no written bytes */
		a.data_len = 0;
		err = iot_writer_aio(w, &a);
	}
	for (k = p->reap_head[op - p->ops]; k && !err; k = p->reap_next[k - 1]) {
		const struct rpl_aio *ra = &p->aio[k - 1];

		/* the key of its request: api, pid, ctx, user_data, id */
		a = ra->a;
		a.kind = IOT_AIO_COMPLETE;
		a.event = event;
		a.t_ns = ra->r_t_ns;
		a.res = ra->r_res;
		a.nvals = 0;
		a.vals = NULL;
		a.data = NULL;
		a.data_len = 0;
		err = iot_writer_aio(w, &a);
	}
	return err;
}

void rpl_aio_fault(struct rpl_ctx *c, struct rpl_op *op, const struct rpl_aio *ra)
{
	/* a request that failed here with a fault of the filesystem under
	 * test (ENOSPC, EIO, ...) and not when recorded stops the replay as
	 * a failed call does */
	if (ra->r_res < 0 && (ra->rec_res == RPL_AIO_NORES || ra->rec_res >= 0) &&
	    rpl_fault_of(op, ra->r_res) >= 0)
		rpl_fault_seen(c, op, ra->r_res);
}

/* ---- contexts and rings of a process ---- */

struct rpl_actx *rpl_actx_get(struct rpl_ctx *c, uint32_t api, uint64_t rec, int make)
{
	struct rpl_plan *p = c->p;
	struct rpl_actab *t;
	struct rpl_actx *x = NULL;
	uint32_t i;

	pthread_mutex_lock(&p->aio_lock);
	t = c->pr->aio;
	for (i = 0; t && i < t->n; i++)
		if (t->v[i]->api == api && t->v[i]->rec == rec) {
			x = t->v[i];
			goto out;
		}
	if (!make)
		goto out;
	if (!t && !(t = c->pr->aio = calloc(1, sizeof(*t))))
		goto out;
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 4;
		struct rpl_actx **v = realloc(t->v, nc * sizeof(*v));

		if (!v)
			goto out;
		t->v = v;
		t->cap = nc;
	}
	if (!(x = calloc(1, sizeof(*x))))
		goto out;
	x->api = api;
	x->rec = rec;
	x->ring_fd = -1;
	pthread_mutex_init(&x->lock, NULL);
	t->v[t->n++] = x;
out:
	pthread_mutex_unlock(&p->aio_lock);
	return x;
}

int64_t rpl_aio_reg_get(struct rpl_ctx *c, uint32_t idx, uint32_t *live)
{
	int64_t rec = -1;

	pthread_mutex_lock(&c->p->aio_lock);
	if (c->pr->aio && idx < RPL_RING_REGS && c->pr->aio->reg[idx].rec) {
		rec = (int64_t)c->pr->aio->reg[idx].rec - 1;
		if (live)
			*live = c->pr->aio->reg[idx].live;
	}
	pthread_mutex_unlock(&c->p->aio_lock);
	return rec;
}

void rpl_aio_reg_set(struct rpl_ctx *c, uint32_t idx, int64_t rec, uint32_t live)
{
	pthread_mutex_lock(&c->p->aio_lock);
	if (!c->pr->aio)
		c->pr->aio = calloc(1, sizeof(*c->pr->aio));
	if (c->pr->aio && idx < RPL_RING_REGS) {
		c->pr->aio->reg[idx].rec = rec < 0 ? 0 : (uint64_t)rec + 1;
		c->pr->aio->reg[idx].live = live;
	}
	pthread_mutex_unlock(&c->p->aio_lock);
}

static void actx_free(struct rpl_actx *x)
{
	uint32_t i;

	if (x->api == IOT_AIO_LIBAIO && x->live)
		syscall(SYS_io_destroy, x->live);
	rpl_uring_free(x);
	for (i = 0; i < x->n_bufs; i++)
		free(x->bufs[i]);
	free(x->bufs);
	free(x->buf_len);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

void rpl_actx_drop(struct rpl_ctx *c, uint32_t api, uint64_t rec)
{
	struct rpl_actab *t;
	struct rpl_actx *x = NULL;
	uint32_t i;

	pthread_mutex_lock(&c->p->aio_lock);
	t = c->pr->aio;
	for (i = 0; t && i < t->n; i++)
		if (t->v[i]->api == api && t->v[i]->rec == rec) {
			x = t->v[i];
			t->v[i] = t->v[--t->n];
			break;
		}
	pthread_mutex_unlock(&c->p->aio_lock);
	if (x)
		actx_free(x);
}

void rpl_aio_free(struct rpl_plan *p)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < p->n_procs; i++) {
		struct rpl_actab *t = p->procs[i].aio;

		if (!t)
			continue;
		for (k = 0; k < t->n; k++)
			actx_free(t->v[k]);
		free(t->v);
		free(t);
		p->procs[i].aio = NULL;
	}
	free(p->aio);
	p->aio = NULL;
	if (p->aio_buf)
		munmap(p->aio_buf, p->aio_buf_len + 4096);
	if (p->aio_rbuf)
		munmap(p->aio_rbuf, p->aio_rlen);
	p->aio_buf = p->aio_rbuf = NULL;
	p->aio_buf_len = p->aio_rlen = 0;
	free(p->reap_head);
	free(p->reap_next);
	p->reap_head = p->reap_next = NULL;
	rpl_map_free(&p->aio_key);
	rpl_map_free(&p->aio_ring);
}

/*
 * The buffer every async write of the plan writes from, made before the
 * run and shared by every context: made at a context's first request,
 * its 8 MiB mapped and filled put 3.6 ms into fio's I/O phase (60-80 ms
 * on xfs) where fio had its buffers ready.  Sized to the largest
 * transfer, page aligned for O_DIRECT, deterministic bytes (not zeros),
 * and a page more for io_uring's statx results.
 *
 * Reads land in a ring of their own (aio_rbuf), each in the ring's next
 * bytes, so that no two reads in flight share a page: btrfs checks a
 * direct read's checksums on the pages it read into once the read is
 * done, and another read that landed there meanwhile made the check fail
 * (EIO), where the program gave each request its own buffer (a MariaDB
 * recording's replay stopped at its 9th read, every time, before
 * 2026-12-07; nor may a read land in what a write in flight sends).  The
 * ring is at least 16 MiB and 8 of the largest transfer (at most 64
 * MiB): reads in flight at once hold less.  Pages of it are the
 * process's as reads first land in them.
 */
int rpl_aio_plan_buf(struct rpl_plan *p)
{
	size_t i, len, n;
	void *b;

	if (!p->aio_buf_len || p->aio_buf)
		return 0;
	len = ((size_t)p->aio_buf_len + 4095) & ~(size_t)4095;
	p->aio_buf_len = len;
	if (p->aio_reads) {
		size_t r = 8 * len < (16 << 20) ? (16 << 20) : 8 * len;

		r = r > (64 << 20) ? (64 << 20) : r;
		b = mmap(NULL, r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
		if (b == MAP_FAILED)
			return -errno;
		p->aio_rbuf = b;
		p->aio_rlen = r;
	}
	b = mmap(NULL, len + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return -errno;
	for (i = 0; i < len; i += n) {
		n = len - i < RPL_SCRATCH ? len - i : RPL_SCRATCH;
		memcpy((char *)b + i, rpl_wbuf(), n);
	}
	p->aio_buf = b;
	return 0;
}
