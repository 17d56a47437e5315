/*
 * uring_depth.c - a program that keeps N requests in flight, as fio's
 * io_uring engine does: O_DIRECT writes of 4 KiB at scattered offsets of
 * DIR/data (32 MiB, allocated first, as fio lays out its file), each
 * submitted by an io_uring_enter of its own, and when N are in flight,
 * the completions the ring holds reaped from its memory, or if it holds
 * none, an io_uring_enter that waits for one.  The ring is set up as fio
 * sets it up (DEFER_TASKRUN, SINGLE_ISSUER: completions are posted only
 * when the program enters the kernel asking for them), or plain where the
 * kernel lacks those.  MODE "lazy": the submissions do not ask for
 * completions (IORING_ENTER_GETEVENTS, which fio's do), so they are
 * posted only at the waits; "batch": a wait is for N/2.
 * For the replay's queue depth: tests/integration/replay_uring_depth.sh.
 *
 * usage: uring_depth DIR [N [COUNT [MODE]]]  (N 8, COUNT 2048) -> exit 0
 * when every write wrote 4 KiB, 2 when io_uring or O_DIRECT is not
 * available
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring.h"

#define BS 4096
#define SPAN 8192	/* blocks of the file written to */

/* every completion in the ring, reaped; @return : how many, -1 on a
 * failed write */
static int reap(struct ring *r)
{
	unsigned h = *r->cq_head, t = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE), n = 0;

	for (; h != t; h++, n++)
		if (r->cqes[h & *r->cq_mask].res != BS)
			return -1;
	__atomic_store_n(r->cq_head, h, __ATOMIC_RELEASE);
	return (int)n;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
	unsigned count = argc > 3 ? (unsigned)atoi(argv[3]) : 2048, sent = 0, done = 0;
	unsigned flight = 0, waits = 0;
	unsigned sub_flags = argc > 4 && strstr(argv[4], "lazy") ? 0 : IORING_ENTER_GETEVENTS;
	unsigned minc = argc > 4 && strstr(argv[4], "batch") ? n / 2 : 1;
	struct ring r;
	char path[4096];
	void *buf;
	int fd, k;

	if (argc < 2 || !n || n > 64) {
		fprintf(stderr, "usage: uring_depth DIR [N [COUNT]]\n");
		return 1;
	}
	if (ring_init_flags(&r, n, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN) < 0 &&
	    ring_init(&r, n) < 0) {
		perror("uring_depth: io_uring_setup");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0 || posix_memalign(&buf, BS, BS) || posix_fallocate(fd, 0, (off_t)SPAN * BS)) {
		perror("uring_depth: O_DIRECT file");
		return 2;
	}
	memset(buf, 'x', BS);
	while (done < count) {
		if (flight < n && sent < count) {
			/* a stride that visits every block of SPAN once */
			uint64_t off = (uint64_t)((sent * 1031u) % SPAN) * BS;

			ring_sqe(&r, IORING_OP_WRITE, fd, (uint64_t)(uintptr_t)buf, BS, off);
			if (syscall(__NR_io_uring_enter, r.fd, 1, 0, sub_flags, NULL, 0) != 1)
				return 1;
			sent++;
			flight++;
			if (flight < n && sent < count)
				continue;
		}
		/* full (or all sent): reap what is there, else wait for one */
		if ((k = reap(&r)) < 0)
			return 1;
		if (!k) {
			if (syscall(__NR_io_uring_enter, r.fd, 0, flight < minc ? flight : minc,
				    IORING_ENTER_GETEVENTS, NULL, 0) < 0)
				return 1;
			waits++;
			if ((k = reap(&r)) < 0)
				return 1;
		}
		flight -= (unsigned)k;
		done += (unsigned)k;
	}
	close(fd);
	close(r.fd);
	printf("uring_depth: %u writes, %u in flight, %u waits\n", count, n, waits);
	return 0;
}
