/*
 * dump_aio.h - `iotape dump`'s printing of async requests (dump_aio.c).
 */
#ifndef CLI_DUMP_AIO_H
#define CLI_DUMP_AIO_H

#include <stdio.h>

#include "iotape.h"

struct dump_aio {
	struct iot_reader *r;		/* a second reader of the same file */
	struct iot_item it;		/* the next AsyncOp, if have */
	int have, done;
};

/*! dump_aio_open() : @return : 0 or the reader's error (dump then prints
 *  no async lines). */
int dump_aio_open(struct dump_aio *d, const char *path);
void dump_aio_close(struct dump_aio *d);
/*! dump_aio_print() : print the AsyncOps of events up to number @event
 *  (all: UINT64_MAX), of process or thread @pid only if it is not 0. */
void dump_aio_print(struct dump_aio *d, FILE *f, uint64_t event, int64_t base,
		    int32_t pid);

#endif
