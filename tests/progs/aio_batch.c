/*
 * aio_batch.c - libaio batches, with raw syscalls (no library), on
 * DIR/v and DIR/b:
 *   vectored: one io_submit of three iocbs: a PWRITEV of [4096, 8192,
 *             4096] bytes at 0, a PWRITE of 4096 at 16384, then a PREADV
 *             of [4096, 4096] at 0 (the kernel may run it before the
 *             writes: its result is not checked), reaped in one
 *             io_getevents;
 *   batch:    one io_submit of N (default 1100) 512-byte PWRITEs to
 *             DIR/b, reaped in one io_pgetevents.
 *
 * usage: aio_batch DIR [N]  ->  "vectored ok", "batch N ok"; exit 0 when
 * every call gave what it should.  Leaves DIR/v (20480 bytes) and DIR/b
 * (N * 512 bytes).
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

static char buf[16384];

static void iocb_set(struct iocb *cb, int op, int fd, const void *p, uint64_t n, int64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = (uint16_t)op;
	cb->aio_fildes = (uint32_t)fd;
	cb->aio_buf = (uint64_t)(uintptr_t)p;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
}

static void vectored(const char *dir)
{
	aio_context_t ctx = 0;
	struct iocb cb[3], *cbs[3] = { &cb[0], &cb[1], &cb[2] };
	struct iovec wv[3] = { { buf, 4096 }, { buf, 8192 }, { buf, 4096 } };
	struct iovec rv[2] = { { buf + 8192, 4096 }, { buf + 12288, 4096 } };
	struct io_event ev[3];
	int fd = open_in(dir, "v");

	CHECK("io_setup", syscall(__NR_io_setup, 8, &ctx), 0);
	iocb_set(&cb[0], IOCB_CMD_PWRITEV, fd, wv, 3, 0);
	iocb_set(&cb[1], IOCB_CMD_PWRITE, fd, buf, 4096, 16384);
	iocb_set(&cb[2], IOCB_CMD_PREADV, fd, rv, 2, 0);
	CHECK("io_submit", syscall(__NR_io_submit, ctx, 3, cbs), 3);
	CHECK("io_getevents", syscall(__NR_io_getevents, ctx, 3, 3, ev, NULL), 3);
	CHECK("io_destroy", syscall(__NR_io_destroy, ctx), 0);
	close(fd);
	printf("vectored ok\n");
}

static void batch(const char *dir, long n)
{
	aio_context_t ctx = 0;
	struct iocb *cb = calloc((size_t)n, sizeof(*cb));
	struct iocb **cbs = calloc((size_t)n, sizeof(*cbs));
	struct io_event *ev = calloc((size_t)n, sizeof(*ev));
	int fd = open_in(dir, "b");
	long i, got = 0;

	if (!cb || !cbs || !ev) {
		fails++;
		goto out;
	}
	CHECK("io_setup", syscall(__NR_io_setup, n, &ctx), 0);
	for (i = 0; i < n; i++) {
		iocb_set(&cb[i], IOCB_CMD_PWRITE, fd, buf, 512, i * 512);
		cbs[i] = &cb[i];
	}
	CHECK("io_submit", syscall(__NR_io_submit, ctx, n, cbs), n);
	while (got < n) {
		long k = syscall(__NR_io_pgetevents, ctx, n - got, n - got, ev + got, NULL, NULL);

		if (k <= 0)
			break;
		got += k;
	}
	CHECK("io_pgetevents", got, n);
	CHECK("io_destroy", syscall(__NR_io_destroy, ctx), 0);
	printf("batch %ld ok\n", n);
out:
	close(fd);
	free(cb);
	free(cbs);
	free(ev);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: aio_batch DIR [N]\n");
		return 2;
	}
	vectored(argv[1]);
	batch(argv[1], argc > 2 ? atol(argv[2]) : 1100);
	return fails ? 1 : 0;
}
