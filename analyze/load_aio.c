/*
 * load_aio.c - async requests in the report's classes: each request
 * (iocb, SQE) that reads or writes file data counts in "async read" or
 * "async write" with the bytes it moved (its completion's result, else
 * the length it asked for) and, when its completion is in the trace, the
 * time from its submission to when its completion was seen (the recorder
 * sees a completion at the next io_getevents or io_uring_enter, so this
 * is an upper bound of the device's latency).  Pages of file mappings
 * (MapPages) count in "mapped read" and "mapped write", with their bytes.
 * Their bytes also count in the total's, their command's and, in a
 * profile of many clients, their client's bytes (not their calls: a
 * request is no call), and the writes among them in the data line (what
 * `record --data` kept of them).
 */
#include <errno.h>
#include <stdlib.h>

#include "load_int.h"

/* Make room: the table keeps its completed requests until it is full,
 * then is made anew with the waiting ones only, at 4 to 8 times their
 * number (not twice the table's size: it would grow with every request
 * of the trace). */
static int grow(struct loader *L)
{
	uint64_t nc = 1024, i, j, waiting = 0;
	struct ana_aio_wait *old = L->aw, *n;

	for (i = 0; i < L->aw_cap; i++)
		waiting += old[i].key && !old[i].done;
	while ((waiting + 1) * 4 > nc)
		nc *= 2;
	n = calloc(nc, sizeof(*n));
	if (!n)
		return -ENOMEM;
	L->aw_used = 0;
	for (i = 0; i < L->aw_cap; i++) {
		if (!old[i].key || old[i].done)
			continue;
		for (j = old[i].key & (nc - 1); n[j].key; j = (j + 1) & (nc - 1))
			;
		n[j] = old[i];
		L->aw_used++;
	}
	free(old);
	L->aw = n;
	L->aw_cap = nc;
	return 0;
}

/* @cmd : the command of a request's process that is gone from the
 * table, else -2 */
static int count(struct loader *L, int32_t pid, int32_t cmd, int cls, int64_t res,
		 uint64_t len, int64_t dur, int timed)
{
	struct iot_event ev = { .ret = res };
	uint64_t bytes = res > 0 ? (uint64_t)res : res < 0 ? 0 : len;
	struct pident *e = cmd == -2 ? ana_pid_get(&L->pids, pid, 0) : NULL;

	ana_stat_add(&L->t->cls[cls], &ev, dur, timed, bytes);
	L->t->total.bytes += bytes;
	if (e) {
		/* its command is final when its entry goes (ana_pend_flush()) */
		struct ana_pend *p = ana_pend_of(&L->pids, e);

		if (!p)
			return -ENOMEM;
		p->xbytes += bytes;
	} else if (cmd >= 0) {
		L->t->procs[cmd].st.bytes += bytes;
	}
	if (L->t->n_clients) {
		int k = ana_client_of(L->t, pid);

		L->t->clients[k < L->t->n_clients ? k : L->t->n_clients - 1].bytes += bytes;
	}
	return 0;
}

int ana_aio_item(struct loader *L, const struct iot_aio *a)
{
	uint64_t k = iot_aio_key(a), j;
	unsigned dir = iot_aio_op_dir(a->api, a->opcode);
	int cls = dir & IOT_SCF_READ ? IOT_CLASS_ASYNC_READ : IOT_CLASS_ASYNC_WRITE;
	struct pident *e;

	iot_data_count_aio(&L->t->data, a);
	if (a->kind == IOT_AIO_SUBMIT && dir) {
		/* a request with no completion in the trace still counts */
		if ((L->aw_used + 1) * 2 > L->aw_cap && grow(L) < 0)
			return -ENOMEM;
		for (j = k & (L->aw_cap - 1); L->aw[j].key; j = (j + 1) & (L->aw_cap - 1))
			;
		L->aw[j].key = k;
		L->aw[j].t_ns = a->t_ns;
		L->aw[j].len = a->len;
		L->aw[j].pid = a->pid;
		L->aw[j].cmd = -2;
		L->aw[j].cls = (uint8_t)cls;
		L->aw[j].done = 0;
		L->aw_used++;
		if ((e = ana_pid_get(&L->pids, a->pid, 0)))
			e->aio_out++;
		return 0;
	}
	if (a->kind != IOT_AIO_COMPLETE || !L->aw_cap)
		return 0;
	for (j = k & (L->aw_cap - 1); L->aw[j].key; j = (j + 1) & (L->aw_cap - 1)) {
		struct ana_aio_wait *w = &L->aw[j];

		if (w->key != k || w->done)
			continue;
		w->done = 1;
		if (w->cmd == -2 && (e = ana_pid_get(&L->pids, w->pid, 0)) && e->aio_out)
			e->aio_out--;
		return count(L, w->pid, w->cmd, w->cls, a->res, 0, a->t_ns - w->t_ns,
			     a->t_ns >= w->t_ns);
	}
	return 0;
}

int ana_aio_finish(struct loader *L)
{
	uint64_t i;
	int rc;

	for (i = 0; i < L->aw_cap; i++)
		if (L->aw[i].key && !L->aw[i].done) {
			L->aw[i].done = 1;
			rc = count(L, L->aw[i].pid, L->aw[i].cmd, L->aw[i].cls, 0, L->aw[i].len,
				   0, 0);
			if (rc < 0)
				return rc;
		}
	return 0;
}

int ana_mpages_item(struct loader *L, const struct iot_mpages *m)
{
	int rc = 0;

	uint64_t rd = 0, wr = 0;
	uint32_t k;

	iot_data_count_mpages(&L->t->data, m);
	for (k = 0; k < m->n_read; k++)
		rd += m->read_runs[2 * k + 1] * m->page_size;
	for (k = 0; k < m->n_write; k++)
		wr += m->write_runs[2 * k + 1] * m->page_size;
	if (rd)
		rc = count(L, m->pid, -2, IOT_CLASS_MAPPED_READ, 0, rd, 0, 0);
	if (wr && rc == 0)
		rc = count(L, m->pid, -2, IOT_CLASS_MAPPED_WRITE, 0, wr, 0, 0);
	return rc;
}
