/*
 * data.c - `record --data`: the bytes a call of the write family wrote,
 * kept with its event so that a replay writes the program's own bytes.
 *
 * The rule is one for every backend, so that a trace does not depend on
 * how a call was captured: a call that wrote bytes (ret > 0) that were not
 * all zeros (zeros are replayed as zeros without keeping them) keeps the
 * first ret bytes it was given when it asked to write at most
 * --data=MAX bytes and the trace's total stays within --data-total;
 * otherwise its event is flagged IOT_EV_NODATA and counted, never dropped
 * silently.  At a ptrace stop the bytes are read from the tracee at the
 * exit, when ret is known and the program has not run on; the fast path
 * copies them into its record before the call (fastpath/preload.c); the
 * BPF programs do not read them.
 *
 * An async write request (libaio, io_uring) keeps all the bytes it asked
 * to write, read at its submission (io_submit's, io_uring_enter's entry
 * stop): the program may not touch its buffer until the request
 * completes, and its result is not known then.  Under the same caps; a
 * request of the bpf backend keeps none (nothing of the program's memory
 * is read there) and is counted not kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fastpath/fp.h"
#include "rec.h"

/* The bytes the call of @sc asked to write, as its event holds them (an
 * IOVLEN argument holds the sum of the iovec lengths). */
static uint64_t asked(const struct iot_syscall *sc, const struct iot_event *ev, int i)
{
	return (uint64_t)(sc->arg[i] == IOT_ARG_PTR ? ev->args[i + 1] : ev->args[i]);
}

/* The first @n bytes of the buffer at @addr of @tid (@vec: of the @cnt
 * iovecs at @addr), into @buf.  @return : 0, or -errno (the memory went,
 * a short read). */
static int read_written(pid_t tid, int vec, uint64_t addr, uint64_t cnt, void *buf,
			uint64_t n)
{
	static __thread struct iovec iov[FP_ZERO_IOVS];
	struct iovec local = { buf, (size_t)n };
	uint64_t j, left = n;
	ssize_t got;

	if (!vec) {
		got = rec_read_mem(tid, addr, buf, (size_t)n);
		return got == (ssize_t)n ? 0 : got < 0 ? (int)got : -EFAULT;
	}
	if (cnt == 0 || cnt > FP_ZERO_IOVS ||
	    rec_read_mem(tid, addr, iov, cnt * sizeof(iov[0])) != (ssize_t)(cnt * sizeof(iov[0])))
		return -EFAULT;
	/* the kernel filled the buffers in order: the first n bytes */
	for (j = 0; j < cnt && left; j++) {
		if (iov[j].iov_len > left)
			iov[j].iov_len = (size_t)left;
		left -= iov[j].iov_len;
	}
	if (left)
		return -EFAULT;
	got = process_vm_readv(tid, &local, 1, iov, (unsigned long)j, 0);
	if (got < 0)
		return -errno;
	return got == (ssize_t)n ? 0 : -EFAULT;
}

/* Where the @n bytes of the call of @t are, per the rule at the top of
 * this file: in the fast path's record, or read into c->data_buf.
 * @return : them, or NULL if they are not kept. */
static const void *written(struct rec_ctx *c, struct rec_task *t, int i, uint64_t n)
{
	const struct rec_view *v = t->view;
	uint64_t want = asked(t->sc, &t->ev, i);

	/* a kernel never writes more than asked */
	if (n > want || want > c->o->data_max || c->st.data_bytes + n > c->o->data_total)
		return NULL;
	if (v)
		return !v->no_mem && v->data && n <= v->data_len ? v->data : NULL;
	if (n > c->data_cap) {
		void *q = realloc(c->data_buf, (size_t)n);

		if (!q)
			return NULL;
		c->data_buf = q;
		c->data_cap = (size_t)n;
	}
	return read_written(t->tid, t->sc->arg[i] != IOT_ARG_PTR, t->raw[i], t->raw[i + 1],
			    c->data_buf, n) ? NULL : c->data_buf;
}

void rec_data_take(struct rec_ctx *c, struct rec_task *t)
{
	struct iot_event *ev = &t->ev;
	int i = iot_syscall_wbuf(t->sc);
	uint64_t n = ev->ret > 0 ? (uint64_t)ev->ret : 0;
	const void *p;

	if (!c->o->data_max || i < 0 || !n || (ev->flags & IOT_EV_ZERO))
		return;
	p = written(c, t, i, n);
	if (!p) {
		ev->flags |= IOT_EV_NODATA;
		c->st.nodata_calls++;
		c->st.nodata_bytes += n;
		return;
	}
	ev->data = p;
	ev->data_len = (uint32_t)n;
	c->st.data_calls++;
	c->st.data_bytes += n;
}

void rec_data_req(struct rec_ctx *c, struct rec_task *t, struct rec_aio_req *r, int vec,
		  uint64_t addr, uint64_t cnt)
{
	uint64_t n = r->a.len;

	/* the call's requests read so far count: 4,096 of 64 MiB each
	 * would be 256 GiB held until its exit */
	if (!c->o->data_max || t->view || !n || n > c->o->data_max ||
	    c->st.data_bytes + t->aio_data + n > c->o->data_total ||
	    !(r->data = malloc((size_t)n)))
		return;
	if (read_written(t->tid, vec, addr, cnt, r->data, n)) {
		free(r->data);
		r->data = NULL;
		return;
	}
	r->a.data = r->data;
	r->a.data_len = (uint32_t)n;
	t->aio_data += n;
}

void rec_data_aio(struct rec_ctx *c, struct iot_aio *a)
{
	if (!c->o->data_max || a->kind != IOT_AIO_SUBMIT ||
	    !(iot_aio_op_dir(a->api, a->opcode) & IOT_SCF_WRITE) || !a->len)
		return;
	/* the total is checked again here: requests read at one entry are
	 * kept at its exit, the first ret of them */
	if (a->data_len != a->len || c->st.data_bytes + a->data_len > c->o->data_total) {
		a->data = NULL;
		a->data_len = 0;
		c->st.aio_nodata++;
		c->st.aio_nodata_bytes += a->len;
		return;
	}
	c->st.aio_data++;
	c->st.data_bytes += a->data_len;
}
