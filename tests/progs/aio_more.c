/*
 * aio_more.c - the less common shapes of asynchronous I/O, with raw
 * syscalls (no library), on files under DIR:
 *   nommap:  an io_uring whose rings live in memory the program gave
 *            (IORING_SETUP_NO_MMAP): two 4 KiB writes to DIR/a;
 *   regring: an io_uring entered by the index its descriptor was
 *            registered under (IORING_REGISTER_RING_FDS,
 *            IORING_ENTER_REGISTERED_RING): two 4 KiB writes to DIR/b,
 *            then the index unregistered;
 *   libaio:  a 4 KiB write to DIR/c whose completion signals an eventfd
 *            (IOCB_FLAG_RESFD), an io_cancel of it (a write cannot be
 *            cancelled: EINVAL), the completion reaped, the eventfd read;
 *   uring eventfd: an eventfd registered with a ring
 *            (IORING_REGISTER_EVENTFD), a 4 KiB write to DIR/d, the
 *            eventfd read.
 *
 * usage: aio_more DIR  ->  one line per case ("nommap ok", "nommap
 * unsupported" where the kernel has no NO_MMAP), exit 0 when every
 * request gave what it should.  Leaves DIR/a and DIR/b (8192 bytes),
 * DIR/c and DIR/d (4096 bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "ring.h"

#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1U << 14)
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING (1U << 4)
#endif

static char buf[4096] __attribute__((aligned(4096)));

/* Two writes at 0 and 4096 through @r, entered as @enter_fd with
 * @flags: submitted in one call that waits for both. */
static void two_writes(struct ring *r, int enter_fd, unsigned flags, int fd, const char *what)
{
	unsigned i;

	ring_sqe(r, IORING_OP_WRITE, fd, (uint64_t)(uintptr_t)buf, 4096, 0);
	ring_sqe(r, IORING_OP_WRITE, fd, (uint64_t)(uintptr_t)buf, 4096, 4096);
	CHECK(what, syscall(__NR_io_uring_enter, enter_fd, 2, 2,
			    IORING_ENTER_GETEVENTS | flags, NULL, 0), 2);
	for (i = 0; i < 2; i++) {
		unsigned h = *r->cq_head;

		while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == h)
			;
		CHECK(what, r->cqes[h & *r->cq_mask].res, 4096);
		__atomic_store_n(r->cq_head, h + 1, __ATOMIC_RELEASE);
	}
}

static void nommap(const char *dir)
{
	struct io_uring_params p;
	struct ring r;
	char *sqes = aligned_alloc(4096, 4096), *rings = aligned_alloc(4096, 4096);
	int fd = open_in(dir, "a");

	memset(&p, 0, sizeof(p));
	memset(sqes, 0, 4096);
	memset(rings, 0, 4096);
	p.flags = IORING_SETUP_NO_MMAP;
	/* user_addr: resv2 in headers before Linux 6.5 */
	p.sq_off.resv2 = (uint64_t)(uintptr_t)sqes;
	p.cq_off.resv2 = (uint64_t)(uintptr_t)rings;
	r.fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r.fd < 0) {
		/* the kernel has no NO_MMAP: the same writes, for the tree */
		CHECK("nommap pwrite", pwrite(fd, buf, 4096, 0), 4096);
		CHECK("nommap pwrite", pwrite(fd, buf, 4096, 4096), 4096);
		printf("nommap unsupported\n");
		goto out;
	}
	r.sq_tail = (unsigned *)(rings + p.sq_off.tail);
	r.sq_mask = (unsigned *)(rings + p.sq_off.ring_mask);
	r.sq_array = (unsigned *)(rings + p.sq_off.array);
	r.cq_head = (unsigned *)(rings + p.cq_off.head);
	r.cq_tail = (unsigned *)(rings + p.cq_off.tail);
	r.cq_mask = (unsigned *)(rings + p.cq_off.ring_mask);
	r.cqes = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
	r.sqes = (struct io_uring_sqe *)sqes;
	two_writes(&r, r.fd, 0, fd, "nommap write");
	close(r.fd);
	printf("nommap ok\n");
out:
	close(fd);
	free(sqes);
	free(rings);
}

static void regring(const char *dir)
{
	struct io_uring_rsrc_update up = { .offset = -1U };
	struct ring r;
	int fd = open_in(dir, "b");

	if (ring_init(&r, 4) < 0) {
		CHECK("io_uring_setup", -1, 0);
		return;
	}
	up.data = (uint64_t)r.fd;
	CHECK("register ring fd", syscall(__NR_io_uring_register, r.fd,
					  IORING_REGISTER_RING_FDS, &up, 1), 1);
	two_writes(&r, (int)up.offset, IORING_ENTER_REGISTERED_RING, fd, "regring write");
	up.data = 0;	/* the kernel wants none */
	CHECK("unregister ring fd", syscall(__NR_io_uring_register, r.fd,
					    IORING_UNREGISTER_RING_FDS, &up, 1), 1);
	close(r.fd);
	close(fd);
	printf("regring ok\n");
}

static void libaio(const char *dir)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	uint64_t n = 0;
	int fd = open_in(dir, "c"), efd = eventfd(0, EFD_CLOEXEC);

	CHECK("io_setup", syscall(__NR_io_setup, 4, &ctx), 0);
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = 4096;
	cb.aio_flags = IOCB_FLAG_RESFD;
	cb.aio_resfd = (uint32_t)efd;
	CHECK("io_submit", syscall(__NR_io_submit, ctx, 1, cbs), 1);
	/* a file write cannot be cancelled */
	CHECK("io_cancel", syscall(__NR_io_cancel, ctx, &cb, &ev) < 0 ? -errno : 0, -EINVAL);
	CHECK("io_getevents", syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL), 1);
	CHECK("libaio write", (long long)ev.res, 4096);
	CHECK("eventfd read", read(efd, &n, 8), 8);
	CHECK("eventfd count", (long long)n, 1);
	CHECK("io_destroy", syscall(__NR_io_destroy, ctx), 0);
	close(efd);
	close(fd);
	printf("libaio ok\n");
}

static void uring_eventfd(const char *dir)
{
	struct ring r;
	uint64_t n = 0;
	int fd = open_in(dir, "d"), efd = eventfd(0, EFD_CLOEXEC);

	if (ring_init(&r, 4) < 0) {
		CHECK("io_uring_setup", -1, 0);
		return;
	}
	CHECK("register eventfd", syscall(__NR_io_uring_register, r.fd,
					  IORING_REGISTER_EVENTFD, &efd, 1), 0);
	ring_sqe(&r, IORING_OP_WRITE, fd, (uint64_t)(uintptr_t)buf, 4096, 0);
	CHECK("uring eventfd write", ring_run(&r, 1), 4096);
	CHECK("uring eventfd read", read(efd, &n, 8), 8);
	CHECK("uring eventfd count", n > 0, 1);
	close(r.fd);
	close(efd);
	close(fd);
	printf("uring eventfd ok\n");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: aio_more DIR\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	nommap(argv[1]);
	regring(argv[1]);
	libaio(argv[1]);
	uring_eventfd(argv[1]);
	return fails ? 1 : 0;
}
