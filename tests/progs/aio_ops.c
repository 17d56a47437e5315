/*
 * aio_ops.c - the cost of one 4 KiB write made three ways: pwrite(2),
 * an io_uring submission of one SQE waited for in the same
 * io_uring_enter, and a libaio io_submit of one iocb reaped by
 * io_getevents.  Raw syscalls, no library, so that what runs recorded is
 * exactly what runs natively.
 *
 * usage: aio_ops FILE N  ->  "pwrite NS\nio_uring NS\nlibaio NS" (ns per write)
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

static int64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char buf[4096] __attribute__((aligned(4096)));

static int64_t by_uring(int fd, long n)
{
	struct ring r;
	int64_t t0;
	long i;

	if (ring_init(&r, 4) < 0)
		return -1;
	t0 = now();
	for (i = 0; i < n; i++) {
		ring_sqe(&r, IORING_OP_WRITE, fd, (uint64_t)(uintptr_t)buf, sizeof(buf),
			 (uint64_t)(i % 256) * sizeof(buf));
		if (ring_run(&r, 1) != (int)sizeof(buf))
			return -1;
	}
	t0 = now() - t0;
	close(r.fd);
	return t0;
}

static int64_t by_libaio(int fd, long n)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbp = &cb;
	struct io_event ev;
	int64_t t0;
	long i;

	if (syscall(__NR_io_setup, 4, &ctx) < 0)
		return -1;
	t0 = now();
	for (i = 0; i < n; i++) {
		memset(&cb, 0, sizeof(cb));
		cb.aio_lio_opcode = IOCB_CMD_PWRITE;
		cb.aio_fildes = (uint32_t)fd;
		cb.aio_buf = (uint64_t)(uintptr_t)buf;
		cb.aio_nbytes = sizeof(buf);
		cb.aio_offset = (int64_t)(i % 256) * (int64_t)sizeof(buf);
		if (syscall(__NR_io_submit, ctx, 1, &cbp) != 1 ||
		    syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
			return -1;
	}
	t0 = now() - t0;
	syscall(__NR_io_destroy, ctx);
	return t0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10000, i;
	int64_t t0, tp, tu, ta;
	int fd;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: aio_ops FILE N\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	t0 = now();
	for (i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof(buf), (i % 256) * (off_t)sizeof(buf)) != sizeof(buf))
			return 1;
	tp = now() - t0;
	tu = by_uring(fd, n);
	ta = by_libaio(fd, n);
	if (tu < 0 || ta < 0) {
		fprintf(stderr, "aio_ops: io_uring or libaio unavailable\n");
		return 1;
	}
	printf("pwrite %lld\nio_uring %lld\nlibaio %lld\n", (long long)(tp / n),
	       (long long)(tu / n), (long long)(ta / n));
	return 0;
}
