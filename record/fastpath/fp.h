/*
 * fp.h - the shared-memory layout between the in-process fast path
 * (libiotape-fast.so, loaded with LD_PRELOAD) and the tracer that drains it.
 *
 * One memfd, mapped MAP_SHARED by the tracer and by every traced process.
 * A header page, then FP_NSLOTS slots; a thread claims a free slot on its
 * first wrapped call and logs into that slot's ring.  Each ring has exactly
 * one producer (the thread, and its signal handlers) and one consumer (the
 * tracer), so head/tail need no lock: the thread reserves with a CAS on
 * head (a signal handler may reserve in the middle of a wrapper), commits
 * each record by setting its state, and the tracer consumes committed
 * records in reservation order, zeroes them and moves tail.
 */
#ifndef FP_H
#define FP_H

#include <stdint.h>

#define FP_MAGIC	0x46544f49u	/* "IOTF" */
#define FP_VERSION	1
#define FP_NSLOTS	128
#define FP_SLOT_HDR	4096
#define FP_RING_BYTES	(1u << 20)	/* per thread; memfd pages stay sparse */
#define FP_SHM_BYTES	(4096ul + (uint64_t)FP_NSLOTS * (FP_SLOT_HDR + FP_RING_BYTES))

/*
 * The syscall stub is copied to this fixed address so the tracer's seccomp
 * filter, built before the program's libraries are even loaded, knows the
 * one instruction pointer whose calls it lets through untraced.  Low in
 * the address space like rr's page: PIE, libraries and mmap live far above.
 */
#define FP_STUB_ADDR	0x70000000ul
/* bytes from the stub's start to the instruction after `syscall` */
#define FP_STUB_RET_OFF	25

/* close(FP_FLUSH_FD) from outside the stub: "my ring is full, drain it" */
#define FP_FLUSH_FD	(-4242)

#define FP_ENV		"IOTAPE_FAST_SHM"

enum { FP_SLOT_FREE = 0, FP_SLOT_OWNED = 1 };
enum { FP_REC_EMPTY = 0, FP_REC_DONE = 1, FP_REC_PAD = 2 };

struct fp_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t nslots;
	uint32_t ring_bytes;
	uint64_t stub_ret_ip;	/* seccomp_data.instruction_pointer of the stub */
};

struct fp_slot {
	uint32_t state;		/* FP_SLOT_* (CAS by threads, reset by tracer) */
	int32_t tid;
	uint32_t paused;	/* set by the tracer while a vfork child borrows it */
	uint32_t pad;
	uint64_t head;		/* bytes reserved, ever (producer) */
	uint64_t tail;		/* bytes consumed, ever (tracer) */
	uint64_t full;		/* times the ring was full */
};

struct fp_rec {
	uint32_t len;		/* whole record, 8-aligned */
	uint32_t state;		/* FP_REC_*; written last, with release order */
	int32_t nr;
	int32_t tid;
	uint64_t args[6];
	int64_t ret;
	uint64_t t_enter;	/* CLOCK_MONOTONIC ns */
	uint64_t t_exit;
	uint32_t dlen;		/* bytes of path strings in data[] */
	uint32_t pad;
	char data[];
};

static inline struct fp_slot *fp_slot_at(void *base, unsigned i)
{
	return (struct fp_slot *)((char *)base + 4096 +
				  (uint64_t)i * (FP_SLOT_HDR + FP_RING_BYTES));
}

static inline char *fp_ring_of(struct fp_slot *s)
{
	return (char *)s + FP_SLOT_HDR;
}

#endif
