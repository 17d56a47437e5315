/*
 * ring.h - an io_uring made with raw syscalls for the test programs
 * (aio_ops.c, uring_ops.c): what a program that uses no library does,
 * so that the recorder is tested on the kernel ABI itself.
 */
#ifndef TEST_RING_H
#define TEST_RING_H

#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* A ring of @entries set up with @flags (IORING_SETUP_*).
 * @return : 0, or -1 when io_uring (or a flag) is not available */
static int ring_init_flags(struct ring *r, unsigned entries, unsigned flags)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(*r->sqes), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* @return : 0, or -1 when io_uring is not available */
static inline int ring_init(struct ring *r, unsigned entries)
{
	return ring_init_flags(r, entries, 0);
}

/* A zeroed SQE at the tail, made visible to the kernel. */
static struct io_uring_sqe *ring_sqe(struct ring *r, uint8_t op, int fd, uint64_t addr,
				     uint32_t len, uint64_t off)
{
	unsigned t = *r->sq_tail, idx = t & *r->sq_mask;
	struct io_uring_sqe *s = &r->sqes[idx];

	memset(s, 0, sizeof(*s));
	s->opcode = op;
	s->fd = fd;
	s->addr = addr;
	s->len = len;
	s->off = off;
	s->user_data = t + 1;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, t + 1, __ATOMIC_RELEASE);
	return s;
}

/* Submit @n, wait for @n completions: @return : the last one's result,
 * or -1000 if the submission failed */
static inline int ring_run(struct ring *r, unsigned n)
{
	int res = -1;

	if (syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0) != (long)n)
		return -1000;
	while (n--) {
		unsigned h = *r->cq_head;

		while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == h)
			;
		res = r->cqes[h & *r->cq_mask].res;
		__atomic_store_n(r->cq_head, h + 1, __ATOMIC_RELEASE);
	}
	return res;
}

#endif
