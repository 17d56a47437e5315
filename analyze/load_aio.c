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

static int grow(struct loader *L)
{
	uint64_t nc = L->aw_cap ? L->aw_cap * 2 : 1024, i, j;
	struct ana_aio_wait *old = L->aw, *n = calloc(nc, sizeof(*n));

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

static void count(struct loader *L, int32_t pid, int cls, int64_t res, uint64_t len,
		  int64_t dur, int timed)
{
	struct iot_event ev = { .ret = res };
	uint64_t bytes = res > 0 ? (uint64_t)res : res < 0 ? 0 : len;
	struct pident *e = ana_pid_get(&L->pids, pid, 0);

	ana_stat_add(&L->t->cls[cls], &ev, dur, timed, bytes);
	L->t->total.bytes += bytes;
	if (e && e->cmd >= 0)
		L->t->procs[e->cmd].st.bytes += bytes;
	if (L->t->n_clients) {
		int k = ana_client_of(L->t, pid);

		L->t->clients[k < L->t->n_clients ? k : L->t->n_clients - 1].bytes += bytes;
	}
}

int ana_aio_item(struct loader *L, const struct iot_aio *a)
{
	uint64_t k = iot_aio_key(a), j;
	unsigned dir = iot_aio_op_dir(a->api, a->opcode);
	int cls = dir & IOT_SCF_READ ? IOT_CLASS_ASYNC_READ : IOT_CLASS_ASYNC_WRITE;

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
		L->aw[j].cls = (uint8_t)cls;
		L->aw_used++;
		return 0;
	}
	if (a->kind != IOT_AIO_COMPLETE || !L->aw_cap)
		return 0;
	for (j = k & (L->aw_cap - 1); L->aw[j].key; j = (j + 1) & (L->aw_cap - 1)) {
		struct ana_aio_wait *w = &L->aw[j];

		if (w->key != k || w->done)
			continue;
		w->done = 1;
		count(L, w->pid, w->cls, a->res, 0, a->t_ns - w->t_ns, a->t_ns >= w->t_ns);
		return 0;
	}
	return 0;
}

void ana_aio_finish(struct loader *L)
{
	uint64_t i;

	for (i = 0; i < L->aw_cap; i++)
		if (L->aw[i].key && !L->aw[i].done) {
			L->aw[i].done = 1;
			count(L, L->aw[i].pid, L->aw[i].cls, 0, L->aw[i].len, 0, 0);
		}
}

void ana_mpages_item(struct loader *L, const struct iot_mpages *m)
{
	uint64_t rd = 0, wr = 0;
	uint32_t k;

	iot_data_count_mpages(&L->t->data, m);
	for (k = 0; k < m->n_read; k++)
		rd += m->read_runs[2 * k + 1] * m->page_size;
	for (k = 0; k < m->n_write; k++)
		wr += m->write_runs[2 * k + 1] * m->page_size;
	if (rd)
		count(L, m->pid, IOT_CLASS_MAPPED_READ, 0, rd, 0, 0);
	if (wr)
		count(L, m->pid, IOT_CLASS_MAPPED_WRITE, 0, wr, 0, 0);
}
