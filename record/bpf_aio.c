/*
 * bpf_aio.c - libaio under the bpf backend: the iocbs, io_events and
 * contexts the BPF programs read (bpf/iotape.bpf.c, its libaio section),
 * kept per thread until the call they came with is decoded, then handed
 * to aio.c as a view (struct rec_aio_view), which builds the same AsyncOp
 * records from them that it builds from the program's memory under
 * ptrace.
 *
 * The programs write these records before their call's own record, with
 * its entry time: a thread's records are taken for the call of that
 * time only (a call's record lost in a full ring leaves its iocbs to no
 * later call).  Few threads are in an async call at once: a short list,
 * searched.
 *
 * The programs are an object of their own (bpf/aio.bpf.c), loaded at the
 * guard's stop of a followed task's first io_setup (bpf_guard.c): a
 * recording of a program that makes no libaio context does not verify
 * them.  Its entry program is attached to sys_enter; its exit program
 * goes into the first object's tail-call table, with the first object's
 * exit, which it calls back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aio_int.h"
#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "iotape.skel.h"
#include "aio.skel.h"

/* the slots of map tails (bpf/common.bpf.h) */
#define TAIL_AIO_EXIT	0
#define TAIL_EXIT	1

int rec_bpf_aio_load(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;
	struct iotape_aio_bpf *a;
	const char *why = "cannot open its BPF object";
	uint32_t k;
	int err, fd;

	if (!b || b->aio_tried)
		return b && b->askel ? 0 : -ENOENT;
	b->aio_tried = 1;
	a = iotape_aio_bpf__open();
	if (!a) {
		err = -errno;
		goto out;
	}
	/* the first object's ring, task states, drop counts and tail calls */
	why = "cannot hand it the first programs' maps";
	if ((err = rec_bpf_share_maps(b, a->maps.rb, a->maps.tstate, a->maps.scratch,
				      a->maps.drops)) ||
	    (err = bpf_map__reuse_fd(a->maps.tails, b->skel->maps.tails.map_fd)))
		goto out;
	a->rodata->wake_bytes = b->skel->rodata->wake_bytes;
	why = "the kernel refused them (IOTAPE_BPF_DEBUG=1 shows why)";
	if ((err = iotape_aio_bpf__load(a)))
		goto out;
	/* the way back first: the first exit's call into an empty slot
	 * falls through to its own record, one into a filled one must
	 * find its way back */
	why = "cannot enter them in the tail-call table";
	k = TAIL_EXIT;
	fd = b->skel->progs.iotape_exit.prog_fd;
	if (bpf_map_update_elem(b->skel->maps.tails.map_fd, &k, &fd, BPF_ANY) < 0) {
		err = -errno;
		goto out;
	}
	k = TAIL_AIO_EXIT;
	fd = bpf_program__fd(a->progs.iotape_aio_exit);
	if (bpf_map_update_elem(b->skel->maps.tails.map_fd, &k, &fd, BPF_ANY) < 0) {
		err = -errno;
		goto out;
	}
	why = "cannot attach them to sys_enter";
	a->links.iotape_aio_enter = bpf_program__attach(a->progs.iotape_aio_enter);
	if (!a->links.iotape_aio_enter) {
		err = -errno;
		k = TAIL_AIO_EXIT;
		bpf_map_delete_elem(b->skel->maps.tails.map_fd, &k);
		goto out;
	}
	b->askel = a;
	a = NULL;
out:
	if (err) {
		b->aio_tried = 2;
		iot_warn("record", "libaio's BPF programs did not load: %s (%s); the requests "
			 "of this recording's libaio contexts are not recorded", why,
			 strerror(err < 0 ? -err : err));
	}
	iotape_aio_bpf__destroy(a);
	return err < 0 ? err : err ? -EINVAL : 0;
}

void rec_bpf_aio_unload(struct rec_ctx *c)
{
	iotape_aio_bpf__destroy(c->bpf->askel);
	c->bpf->askel = NULL;
}

_Static_assert(BE_AIO_CBS_MAX == MAX_BATCH, "the programs read as many iocbs as ptrace");

/* placeholders kept for iocbs not read, at most, per call: more are
 * only counted (the call's result then finds no request for them) */
#define UNREAD_MAX 4096

struct aio_tid {
	pid_t tid;
	uint64_t t;			/* the entry time of the call they are of */
	struct rec_aio_view v;
};

struct rec_bpf_aio {
	struct aio_tid *e;
	uint32_t n, cap;
};

static void view_clear(struct rec_aio_view *v)
{
	uint32_t i;

	for (i = 0; i < v->n_cbs; i++)
		free(v->cbs[i].vals);
	v->n_cbs = v->n_evs = 0;
	v->has_ctx = 0;
	v->ctx = 0;
}

static void view_free(struct rec_aio_view *v)
{
	view_clear(v);
	free(v->cbs);
	free(v->evs);
}

/* *@p, of *@cap elements of @elem bytes, made to hold @need; 0 or -ENOMEM */
static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t nc = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (!(q = realloc(*p, (size_t)nc * elem)))
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static struct aio_tid *tid_find(struct rec_bpf_aio *a, pid_t tid)
{
	uint32_t i;

	for (i = 0; a && i < a->n; i++)
		if (a->e[i].tid == tid)
			return &a->e[i];
	return NULL;
}

/* @tid's records of the call entered at @t (those of an older call are
 * dropped); NULL: no memory */
static struct aio_tid *tid_get(struct rec_ctx *c, pid_t tid, uint64_t t)
{
	struct rec_bpf_aio *a = c->bpf->aio;
	struct aio_tid *e = tid_find(a, tid);

	if (!a && !(a = c->bpf->aio = calloc(1, sizeof(*a))))
		return NULL;
	if (!e) {
		if (grow((void **)&a->e, &a->cap, a->n + 1, sizeof(*a->e)) < 0)
			return NULL;
		e = &a->e[a->n++];
		memset(e, 0, sizeof(*e));
		e->tid = tid;
		e->t = t;
	}
	if (e->t != t) {
		view_clear(&e->v);
		e->t = t;
	}
	return e;
}

/* room for one more iocb in @v; NULL: none */
static struct rec_iocb *cb_add(struct rec_aio_view *v)
{
	if (grow((void **)&v->cbs, &v->cap_cbs, v->n_cbs + 1, sizeof(*v->cbs)) < 0)
		return NULL;
	memset(&v->cbs[v->n_cbs], 0, sizeof(v->cbs[0]));
	return &v->cbs[v->n_cbs++];
}

static int on_iocb(struct aio_tid *e, const struct be_aio *r)
{
	const uint64_t *lens = (const uint64_t *)(r + 1);
	struct rec_iocb *x;
	uint32_t i;

	/* not read (in place, or the call's tail): placeholders keep the
	 * requests after them where the kernel took them (a new entry is
	 * zeroed: ptr 0); past UNREAD_MAX the call's result counts them */
	for (i = 0; i < r->lost && e->v.n_cbs < UNREAD_MAX; i++)
		if (!cb_add(&e->v))
			break;
	if (r->lost)
		return 0;
	if (!(x = cb_add(&e->v)))
		return -ENOMEM;
	x->ptr = r->ptr;
	memcpy(x->cb, r->cb, sizeof(x->cb));
	if (r->n && (x->vals = malloc(r->n * sizeof(*x->vals)))) {
		memcpy(x->vals, lens, r->n * sizeof(*x->vals));
		x->nvals = r->n;
	}
	return 0;
}

static int on_events(struct aio_tid *e, const struct be_aio *r)
{
	struct rec_aio_view *v = &e->v;
	uint32_t k = r->n / 4;

	/* (io_events not read: the call's result counts them) */
	if (!k)
		return 0;
	if (grow((void **)&v->evs, &v->cap_evs, v->n_evs + k, sizeof(*v->evs)) < 0)
		return -ENOMEM;
	memcpy(v->evs + v->n_evs, r + 1, k * sizeof(*v->evs));
	v->n_evs += k;
	return 0;
}

void rec_bpf_aio_record(struct rec_ctx *c, const void *data, size_t size)
{
	const struct be_aio *r = data;
	struct aio_tid *e;

	if (size < sizeof(*r) || (uint64_t)r->n * 8 > size - sizeof(*r) ||
	    !(e = tid_get(c, (pid_t)r->h.tid, r->h.t))) {
		c->st.dropped++;
		return;
	}
	switch (r->h.type) {
	case BE_AIO_IOCB:
		if (on_iocb(e, r) < 0)
			c->st.dropped++;
		break;
	case BE_AIO_EVENTS:
		if (on_events(e, r) < 0)
			c->st.dropped++;
		break;
	case BE_AIO_CTX:
		e->v.has_ctx = !r->lost;
		e->v.ctx = r->ctx;
		break;
	}
}

const struct rec_aio_view *rec_bpf_aio_view(struct rec_ctx *c, pid_t tid, uint64_t t_enter)
{
	struct aio_tid *e = tid_find(c->bpf->aio, tid);

	return e && e->t == t_enter ? &e->v : NULL;
}

void rec_bpf_aio_done(struct rec_ctx *c, pid_t tid)
{
	struct rec_bpf_aio *a = c->bpf->aio;
	struct aio_tid *e = tid_find(a, tid);

	if (!e)
		return;
	view_free(&e->v);
	*e = a->e[--a->n];
}

void rec_bpf_aio_free(struct rec_ctx *c)
{
	struct rec_bpf_aio *a = c->bpf->aio;
	uint32_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		view_free(&a->e[i].v);
	free(a->e);
	free(a);
	c->bpf->aio = NULL;
}

#else /* !IOT_HAVE_BPF */

int rec_bpf_aio_load(struct rec_ctx *c)
{
	return -ENOSYS;
}

#endif
