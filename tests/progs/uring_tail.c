/*
 * uring_tail.c - a request still running when the program's next
 * request completes: 32 MiB written to DIR/f with write() and two
 * IORING_OP_FSYNCs of it in one io_uring_enter that waits for both (two
 * requests in flight: the replay's queue may be as deep); 32 MiB more,
 * an FSYNC submitted with no wait, its completion waited for in the
 * ring's memory (no call), then a NOP the same way, and the ring closed.  The recorder sees the fsync complete at the NOP's
 * io_uring_enter, the NOP at the close; a replay as fast as it can goes
 * on to the close while its fsync still runs, and must wait for it
 * there, as the program did: tests/integration/replay_uring_tail.sh.
 *
 * usage: uring_tail DIR  ->  exit 0 when every request gave what it should,
 * 2 when io_uring is not available
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ring.h"

static char buf[1 << 20];

/* submit the SQE at the tail with no wait, then wait in memory */
static int run_nowait(struct ring *r)
{
	unsigned h = *r->cq_head;
	int res;

	if (syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) != 1)
		return -1000;
	while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == h)
		;
	res = r->cqes[h & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, h + 1, __ATOMIC_RELEASE);
	return res;
}

/* 32 MiB more */
static int fill(int fd)
{
	int i;

	for (i = 0; i < 32; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("uring_tail: write");
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct ring r;
	char path[4096];
	int fd, res;

	if (argc != 2) {
		fprintf(stderr, "usage: uring_tail DIR\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	if (ring_init(&r, 8) < 0) {
		perror("uring_tail: io_uring_setup");
		return 2;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(buf, 't', sizeof(buf));
	if (fill(fd) < 0)
		return 1;
	ring_sqe(&r, IORING_OP_FSYNC, fd, 0, 0, 0);
	ring_sqe(&r, IORING_OP_FSYNC, fd, 0, 0, 0);
	if ((res = ring_run(&r, 2)) != 0) {
		fprintf(stderr, "uring_tail: two fsyncs: %d\n", res);
		return 1;
	}
	if (fill(fd) < 0)
		return 1;
	ring_sqe(&r, IORING_OP_FSYNC, fd, 0, 0, 0);
	if ((res = run_nowait(&r)) != 0) {
		fprintf(stderr, "uring_tail: fsync: %d\n", res);
		return 1;
	}
	ring_sqe(&r, IORING_OP_NOP, -1, 0, 0, 0);
	if ((res = run_nowait(&r)) != 0) {
		fprintf(stderr, "uring_tail: nop: %d\n", res);
		return 1;
	}
	close(r.fd);
	close(fd);
	return 0;
}
