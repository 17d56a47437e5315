/*
 * fp.h - the shared-memory layout between the in-process fast path
 * (libiotape-fast.so, loaded with LD_PRELOAD) and the recorder that drains
 * it (record/fp_drain.c).
 *
 * One memfd, mapped MAP_SHARED by the recorder and by every traced process.
 * A header page, then FP_NSLOTS slots; a thread claims a free slot on its
 * first wrapped call and logs into that slot's ring.  Each ring has exactly
 * one producer (the thread, and its signal handlers) and one consumer (the
 * recorder), so head/tail need no lock: the thread reserves with a CAS on
 * head (a signal handler may reserve in the middle of a wrapper), marks
 * the record ENTERED before the syscall and DONE after it, and the
 * recorder consumes DONE records in reservation order, clears them and
 * moves tail.
 */
#ifndef FP_H
#define FP_H

#include <stdint.h>
#include <sys/uio.h>

#define FP_MAGIC	0x46544f49u	/* "IOTF" */
#define FP_VERSION	7
#define FP_NSLOTS	128
#define FP_SLOT_HDR	4096
#define FP_RING_BYTES	(1u << 20)	/* per thread; memfd pages stay sparse */
#define FP_NPROCS	150	/* processes at once, in the 4 KiB header */
#define FP_MAX_SITES	64	/* libc call sites patched (patch.c) */
#define FP_SHM_BYTES	(4096ul + (uint64_t)FP_NSLOTS * (FP_SLOT_HDR + FP_RING_BYTES))
#define FP_SHM_END	(FP_SHM_ADDR + FP_SHM_BYTES)

/*
 * The syscall stub is copied to this fixed address so the recorder's
 * seccomp filter, built before the program's libraries are even loaded,
 * knows the one instruction pointer whose calls it lets through untraced.
 * Low in the address space like rr's page: PIE, libraries and mmap live
 * far above.
 */
#define FP_STUB_ADDR	0x70000000ul
/*
 * Where each process maps the shared memory, if it can (else anywhere):
 * a fixed range below the stub, so that the bpf backend's seccomp filter,
 * also built before any library is loaded, can stop a munmap or a
 * MAP_FIXED mmap that may hit it (record/bpf_guard.c) and switch the
 * library off first, as the ptrace backend does at its stops.
 */
#define FP_SHM_ADDR	0x60000000ul

/* bytes from the stub's start to the instruction after `syscall` */
#define FP_STUB_RET_OFF	25

/* close(FP_FLUSH_FD) from outside the stub: "my ring is full, drain it" */
#define FP_FLUSH_FD	(-4242)

#define FP_ENV		"IOTAPE_FAST_SHM"

/*
 * A write-family call whose bytes are all zeros is flagged (IOT_EV_ZERO),
 * so that its replay writes zeros too.  Both sides look at most this many
 * bytes: a longer call is not flagged, by the library (which reads its own
 * memory) nor at a ptrace stop (which copies it out), so that the two
 * record the same.
 */
#define FP_ZERO_MAX	(16u << 20)
#define FP_ZERO_IOVS	1024	/* UIO_MAXIOV: more, and the call fails */

/* Whether the @cnt buffers of @iov (at most FP_ZERO_IOVS) are looked at
 * for zeros: some bytes, at most FP_ZERO_MAX in all, no NULL base with a
 * length.  The lengths first, on both sides, so that a call too long to
 * look at costs no read of its bytes. */
static inline int fp_zero_iovs_fit(const struct iovec *iov, uint64_t cnt)
{
	uint64_t j, sum = 0;

	for (j = 0; j < cnt; j++) {
		sum += iov[j].iov_len;
		if (sum > FP_ZERO_MAX || (iov[j].iov_len && !iov[j].iov_base))
			return 0;
	}
	return sum > 0;
}

enum { FP_SLOT_FREE = 0, FP_SLOT_OWNED = 1 };
enum { FP_REC_EMPTY = 0, FP_REC_DONE = 1, FP_REC_PAD = 2, FP_REC_ENTERED = 3 };

struct fp_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t nslots;
	uint32_t ring_bytes;
	uint64_t stub_ret_ip;	/* seccomp_data.instruction_pointer of the stub */
	/*
	 * vfork children in flight.  A vfork child shares its parent's
	 * memory and TLS, so it would log into the parent's ring under the
	 * parent's tid; while this is not 0 every wrapper takes the traced
	 * path.  Set by the recorder at the parent's vfork event, before the
	 * child first runs; cleared at VFORK_DONE or the parent's death.
	 */
	uint32_t hold;
	/* `record --data`: the library copies the bytes of a write-family
	 * call asking to write at most this many into its record (0: off) */
	uint32_t data_max;
	/*
	 * Where each process mapped this memory and its on/off word, so that
	 * a program unmapping it (munmap, mmap MAP_FIXED over it) is seen at
	 * that call's stop and its library switched off first: its wrappers
	 * then take the traced path instead of writing into a hole.  A
	 * process that finds no free entry keeps the fast path off.
	 */
	struct fp_proc {
		int32_t pid;	/* 0: free (CAS by the process, reset by the recorder) */
		uint32_t pad;
		uint64_t map;	/* the mapping's address in that process */
		uint64_t state;	/* address of its int "fast path on" word */
	} procs[FP_NPROCS];
	/*
	 * libc's call sites patch.c found, from the start of libc's code,
	 * so that one process scans libc (1.4 MB, about a millisecond) and
	 * the others only check the signature at each.
	 */
	struct fp_sites {
		uint32_t state;	/* FP_SITES_*: CAS empty -> writing, then ready */
		uint32_t n;
		uint64_t text_size;	/* of the libc they were found in */
		uint32_t off[FP_MAX_SITES];
	} sites;
};

enum { FP_SITES_EMPTY = 0, FP_SITES_WRITING = 1, FP_SITES_READY = 2 };

struct fp_slot {
	uint32_t state;		/* FP_SLOT_* (CAS by threads, reset by the recorder) */
	int32_t tid;
	uint64_t head;		/* bytes reserved, ever (producer) */
	uint64_t tail;		/* bytes consumed, ever (recorder) */
	uint64_t full;		/* times the ring was full */
	/* CLOCK_MONOTONIC ns of the claim: the bpf backend frees a slot
	 * when its thread ends or execs, after the new image may have
	 * claimed another under the same tid (record/bpf_drain.c) */
	uint64_t t_claim;
};

/*
 * One call.  args[] hold what the recorder would have read at the entry
 * stop: for IOVLEN the sum of the iovec lengths, for OFFPTR the offset
 * the pointer pointed at before the call (-1 for NULL), for OPENHOW
 * open_how.flags and, in the next two arguments, open_how.mode and
 * open_how.resolve.  data[] holds,
 * in argument order, each string argument (PATH, PATH2, STR2 of
 * format/syscalls.def) as a uint32 length (FP_NOSTR for a NULL pointer)
 * and the bytes with a NUL, then, 8-aligned, one struct fp_pst per
 * non-empty PATH/PATH2 argument: the lstat of that path just before the
 * call, which the recorder needs to describe the starting tree.
 */
struct fp_rec {
	uint32_t len;		/* whole record, 8-aligned */
	uint32_t state;		/* FP_REC_*; written last, with release order */
	int32_t nr;
	int32_t tid;
	uint64_t args[6];
	int64_t ret;
	uint64_t t_enter;	/* CLOCK_MONOTONIC ns */
	uint64_t t_exit;
	uint64_t t_wrap;	/* when the library began its own work for it */
	uint16_t nstr;		/* strings in data[] */
	uint16_t npst;		/* struct fp_pst in data[] after the strings */
	uint32_t pst_off;	/* where the first fp_pst starts in data[] */
	uint32_t flags;		/* FP_RF_* */
	uint32_t data_off;	/* FP_RF_DATA: where in data[] the written bytes start */
	char data[];
};

#define FP_NOSTR	0xffffffffu

/* fp_rec.flags */
#define FP_RF_ZERO	0x1	/* the bytes a write-family call wrote were all zeros */
/* data[] holds, at data_off, the bytes a write-family call asked to write
 * (`record --data`): as many as its length argument, or the sum of its
 * iovecs' */
#define FP_RF_DATA	0x2

/*
 * A write asking to write more than this, whose bytes --data keeps, is
 * not logged in-process: its record would take a quarter of the ring
 * (and a copy); it takes the ptrace stop, which reads the bytes once
 * the call has returned.
 */
#define FP_DATA_RING_MAX (256u << 10)

/* A symlink's fp_pst is followed by its target (tspace bytes) and then by
 * a second fp_pst: stat() through the link, the state of what it pointed
 * at, which a later call in the same batch may remove. */
#define FP_PST_UNKNOWN	(-1)	/* err: not taken; the recorder takes it */

struct fp_pst {
	int32_t err;		/* 0: lstat worked; else its errno, or FP_PST_UNKNOWN */
	uint32_t mode;		/* st_mode, type bits included */
	uint32_t uid, gid, nlink;
	uint32_t tlen;		/* symlink target length (0: not a symlink) */
	uint32_t tspace;	/* bytes after this struct holding it (8-aligned) */
	/* err ENOENT: how many trailing components of the path were missing
	 * (1: only the last; 0: not known), so the recorder does not take a
	 * parent made by a later call for one that was there */
	uint32_t missing;
	uint64_t size, ino, dev, rdev;
	int64_t atime_ns, mtime_ns, ctime_ns;
	uint64_t blocks;	/* st_blocks: fewer than the size needs, a file with holes */
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

#define FP_ALIGN8(x)	(((x) + 7u) & ~(uint32_t)7u)

#endif
