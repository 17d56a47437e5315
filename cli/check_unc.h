/*
 * check_unc.h - what `iotape check` says a trace holds of asynchronous
 * and mapped I/O, and what of it was seen but not captured (check_unc.c).
 */
#ifndef IOT_CLI_CHECK_UNC_H
#define IOT_CLI_CHECK_UNC_H

#include <stdint.h>
#include <stdio.h>

#include "iotape.h"

struct check_unc {
	uint64_t requests, completions, rbytes;	/* the write requests are in data */
	int data_on;				/* recorded with --data (header record.data) */
	uint64_t undecoded, undecoded_ops[2];	/* libaio, io_uring: a bit per opcode */
	uint64_t orphans;			/* completions of no request in the trace */
	uint64_t sqpoll_rings, rings, contexts;
	/* SQPOLL rings whose end record says the trace holds every request
	 * they took (the bpf backend sees the kernel take them) */
	uint64_t sqpoll_whole;
	uint64_t sqpoll_key[16];
	uint32_t n_sqpoll_key;
	uint64_t ring_missed;			/* requests rings took, not in the trace */
	uint64_t aio_missed;			/* ... io_submit took, not in the trace */
	uint64_t file_maps;			/* file mmaps */
	uint64_t mp_records, mp_read;	/* MapPages: records, pages read */
	/* record --data: writes with their bytes kept, and not (IOT_EV_NODATA);
	 * async write requests, pages written through mappings */
	struct iot_data_count data;
	/* requests waiting for their completion (open addressing) */
	uint64_t *keys;
	uint64_t cap, n, used;		/* used: n and tombstones */
};

/*! check_unc_item() : count item @it.  @return : 0 or -ENOMEM. */
int check_unc_item(struct check_unc *u, const struct iot_item *it);
/*! check_unc_print() : the lines of the summary, if there is anything. */
void check_unc_print(const struct check_unc *u, FILE *f);
void check_unc_free(struct check_unc *u);

#endif
