/*
 * check_unc.c - `iotape check`: the async requests and completions a
 * trace holds, and every kind of I/O the recorder saw but could not
 * capture: requests of opcodes it does not decode, rings that submit
 * without a syscall (SQPOLL), requests never seen complete, completions
 * of no request seen, and pages of file mappings (the mmap is recorded,
 * the loads and stores through it are not).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "check_unc.h"
#include "commands.h"

#define SETUP_SQPOLL 2u		/* IORING_SETUP_SQPOLL */
#define RING_PATH "anon_inode:[io_uring]"

/* a ring's key: its process and descriptor */
static uint64_t ring_of(const struct iot_aio *a)
{
	return ((uint64_t)(uint32_t)a->pid << 32) ^ a->ctx;
}

static int grow(struct check_unc *u)
{
	uint64_t nc = u->cap ? u->cap * 2 : 1024, i, *old = u->keys, oc = u->cap;

	if (!(u->keys = calloc(nc, sizeof(*u->keys)))) {
		u->keys = old;
		return -ENOMEM;
	}
	u->cap = nc;
	u->n = u->used = 0;
	for (i = 0; i < oc; i++) {
		uint64_t j;

		if (!old[i] || old[i] == UINT64_MAX)
			continue;
		for (j = old[i] & (nc - 1); u->keys[j]; j = (j + 1) & (nc - 1))
			;
		u->keys[j] = old[i];
		u->n++;
		u->used++;
	}
	free(old);
	return 0;
}

/* add (@add) or take out a waiting request; @return : 1 if it was there */
static int keyset(struct check_unc *u, uint64_t k, int add)
{
	uint64_t j, tomb = UINT64_MAX;

	if (add && (u->used + 1) * 2 > u->cap && grow(u) < 0)
		return -ENOMEM;
	if (!u->cap)
		return 0;
	for (j = k & (u->cap - 1); u->keys[j]; j = (j + 1) & (u->cap - 1)) {
		if (u->keys[j] == UINT64_MAX) {
			if (tomb == UINT64_MAX)
				tomb = j;
			continue;
		}
		if (u->keys[j] != k)
			continue;
		if (!add) {
			u->keys[j] = UINT64_MAX;	/* a tombstone */
			u->n--;
		}
		return 1;
	}
	if (add) {
		if (tomb == UINT64_MAX)
			u->used++;
		u->keys[tomb != UINT64_MAX ? tomb : j] = k;
		u->n++;
	}
	return 0;
}

int check_unc_item(struct check_unc *u, const struct iot_item *it)
{
	const struct iot_aio *a = &it->u.aio;
	unsigned dir;
	int r;

	if (it->kind == IOT_ITEM_EVENT) {
		const struct iot_event *ev = &it->u.ev;

		iot_data_count_add(&u->data, ev);
		/* not the loader's (MAP_DENYWRITE) nor code: program and
		 * library images stay out */
		if (ev->nr == SYS_mmap && ev->ret >= 0 && !(ev->args[3] & MAP_ANONYMOUS) &&
		    !(ev->args[3] & MAP_DENYWRITE) && !(ev->args[2] & PROT_EXEC) &&
		    (int32_t)ev->args[4] >= 0 &&
		    !(ev->path && strcmp(ev->path, RING_PATH) == 0))
			u->file_maps++;
		return 0;
	}
	if (it->kind == IOT_ITEM_MPAGES) {
		uint32_t k;

		u->mp_records++;
		for (k = 0; k < it->u.mp.n_read; k++)
			u->mp_read += it->u.mp.read_runs[2 * k + 1];
		iot_data_count_mpages(&u->data, &it->u.mp);
		return 0;
	}
	if (it->kind != IOT_ITEM_AIO)
		return 0;
	switch (a->kind) {
	case IOT_AIO_SETUP:
		if (a->api == IOT_AIO_URING)
			u->rings++;
		else
			u->contexts++;
		if (a->api == IOT_AIO_URING && (a->flags & SETUP_SQPOLL)) {
			u->sqpoll_rings++;
			if (u->n_sqpoll_key < 16)
				u->sqpoll_key[u->n_sqpoll_key++] = ring_of(a);
		}
		break;
	case IOT_AIO_SUBMIT:
		u->requests++;
		dir = iot_aio_op_dir(a->api, a->opcode);
		if (dir & IOT_SCF_READ)
			u->rbytes += a->len;
		iot_data_count_aio(&u->data, a);
		if (!iot_aio_op_known(a->api, a->opcode)) {
			u->undecoded++;
			if (a->opcode < 64)
				u->undecoded_ops[a->api == IOT_AIO_URING] |= 1ULL << a->opcode;
		}
		if ((r = keyset(u, iot_aio_key(a), 1)) < 0)
			return r;
		break;
	case IOT_AIO_END:
		if (a->res >= 0 && a->len > (uint64_t)a->res) {
			if (a->api == IOT_AIO_URING)
				u->ring_missed += a->len - (uint64_t)a->res;
			else
				u->aio_missed += a->len - (uint64_t)a->res;
		}
		for (uint32_t k = 0; a->len && a->res == (int64_t)a->len && k < u->n_sqpoll_key; k++)
			if (u->sqpoll_key[k] == ring_of(a)) {
				u->sqpoll_key[k] = u->sqpoll_key[--u->n_sqpoll_key];
				u->sqpoll_whole++;
				break;
			}
		break;
	case IOT_AIO_COMPLETE:
		u->completions++;
		if (!keyset(u, iot_aio_key(a), 0))
			u->orphans++;
		break;
	}
	return 0;
}

void check_unc_print(const struct check_unc *u, FILE *f)
{
	char r[32], w[32];
	unsigned op;
	int api;

	if (u->requests || u->completions || u->rings || u->contexts) {
		fprintf(f, "  async I/O    %llu requests (%s to read, %s to write), %llu "
			"completions; %llu io_uring rings, %llu libaio contexts\n",
			(unsigned long long)u->requests,
			iot_fmt_bytes(r, sizeof(r), (double)u->rbytes),
			iot_fmt_bytes(w, sizeof(w), (double)u->data.abytes),
			(unsigned long long)u->completions, (unsigned long long)u->rings,
			(unsigned long long)u->contexts);
	}
	if (u->undecoded) {
		fprintf(f, "  not decoded  %llu async requests (opcodes:",
			(unsigned long long)u->undecoded);
		for (api = 0; api < 2; api++)
			for (op = 0; op < 64; op++)
				if (u->undecoded_ops[api] & (1ULL << op)) {
					const char *n = iot_aio_op_name(api ? IOT_AIO_URING :
									IOT_AIO_LIBAIO, op);

					fprintf(f, " %s", n ? n : "?");
				}
		fprintf(f, "): recorded as seen, not replayed\n");
	}
	if (u->sqpoll_rings > u->sqpoll_whole)
		fprintf(f, "  not captured %llu io_uring rings poll their submission "
			"queue in the kernel (SQPOLL): their requests and completions "
			"need no syscall\n", (unsigned long long)(u->sqpoll_rings - u->sqpoll_whole));
	if (u->ring_missed)
		fprintf(f, "  not captured %llu io_uring requests the kernel took "
			"(counted from the rings' heads when they went)\n",
			(unsigned long long)u->ring_missed);
	if (u->aio_missed)
		fprintf(f, "  not captured %llu libaio requests io_submit took (iocbs the "
			"recorder could not read)\n", (unsigned long long)u->aio_missed);
	if (u->n || u->orphans)
		fprintf(f, "  not captured %llu async requests never seen complete, "
			"%llu completions of no request in the trace\n",
			(unsigned long long)u->n, (unsigned long long)u->orphans);
	if (u->data.calls || u->data.nodata_calls)
		fprintf(f, "  data         %llu writes with their bytes kept (%s)\n",
			(unsigned long long)u->data.calls,
			iot_fmt_bytes(r, sizeof(r), (double)u->data.bytes));
	if (u->data.akept)
		fprintf(f, "  data         %llu async write requests with their bytes kept (%s)\n",
			(unsigned long long)u->data.akept,
			iot_fmt_bytes(r, sizeof(r), (double)u->data.akept_bytes));
	if (u->data.nodata_calls)
		fprintf(f, "  not captured the bytes of %llu writes recorded with --data "
			"(%s): over its cap, or logged by BPF; replayed with a pattern\n",
			(unsigned long long)u->data.nodata_calls,
			iot_fmt_bytes(w, sizeof(w), (double)u->data.nodata_bytes));
	if (u->data_on && (u->data.areqs > u->data.akept || u->data.mp_written))
		fprintf(f, "  not captured the bytes of %llu async write requests (%s) and of "
			"%llu pages written through file mappings, recorded with --data: it "
			"keeps none of mapped pages, nor of requests logged by BPF or over its "
			"caps; replayed with a pattern\n",
			(unsigned long long)(u->data.areqs - u->data.akept),
			iot_fmt_bytes(w, sizeof(w), (double)(u->data.abytes - u->data.akept_bytes)),
			(unsigned long long)u->data.mp_written);
	if (u->mp_records)
		fprintf(f, "  mapped I/O   %llu pages read, %llu written through %llu file "
			"mappings (%llu records)\n", (unsigned long long)u->mp_read,
			(unsigned long long)u->data.mp_written, (unsigned long long)u->file_maps,
			(unsigned long long)u->mp_records);
	else if (u->file_maps)
		fprintf(f, "  not captured the page I/O of %llu file mappings (mmap "
			"is recorded, loads and stores through it are not)\n",
			(unsigned long long)u->file_maps);
}

void check_unc_free(struct check_unc *u)
{
	free(u->keys);
	u->keys = NULL;
	u->cap = u->n = 0;
}
