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
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char buf[4096] __attribute__((aligned(4096)));

static int64_t by_uring(int fd, long n)
{
	struct io_uring_params p;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
	struct io_uring_sqe *sqes;
	char *sq, *cq;
	int64_t t0;
	long i;
	int rfd;

	memset(&p, 0, sizeof(p));
	rfd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (rfd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -1;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	t0 = now();
	for (i = 0; i < n; i++) {
		unsigned t = *sq_tail, idx = t & *sq_mask;
		struct io_uring_sqe *s = &sqes[idx];

		memset(s, 0, sizeof(*s));
		s->opcode = IORING_OP_WRITE;
		s->fd = fd;
		s->addr = (uint64_t)(uintptr_t)buf;
		s->len = sizeof(buf);
		s->off = (uint64_t)(i % 256) * sizeof(buf);
		s->user_data = (uint64_t)i;
		sq_array[idx] = idx;
		__atomic_store_n(sq_tail, t + 1, __ATOMIC_RELEASE);
		if (syscall(__NR_io_uring_enter, rfd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) != 1)
			return -1;
		while (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
			;
		__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	}
	t0 = now() - t0;
	close(rfd);
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
