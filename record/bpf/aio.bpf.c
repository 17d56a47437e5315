/*
 * aio.bpf.c - libaio under `iotape record --backend bpf`: what the ptrace backend reads at io_submit's and io_getevents' stops
 * (record/aio.c), read here with no stop: io_submit names its requests in
 * an array of @nr pointers to 64-byte iocbs, which the program wrote just
 * before the call (their pages are in), so they are read at its
 * sys_enter, one BE_AIO_IOCB record each (with a vectored one's iovec
 * lengths); io_getevents and io_pgetevents return io_events the kernel
 * has just written at their sys_exit (BE_AIO_EVENTS); io_setup writes
 * its context behind its pointer (BE_AIO_CTX).  The records come before
 * their call's own record, stamped with its entry time.  What is seen
 * and not read (an unreadable iocb, more than BE_AIO_CBS_MAX in one call,
 * io_events past BE_AIO_EVS_MAX) is sent as a count (lost), never left
 * out silently.  libaio reaps only through the syscall, so nothing is
 * missed that ptrace sees; a program reaping the ring itself is missed
 * by both.
 *
 * An object of its own, loaded when a followed task first calls io_setup
 * (record/bpf_aio.c, at the guard's stop of that call: no libaio call
 * comes before one), so that a recording of a program that makes no
 * context does not verify this code (~1,000 of the entry and exit
 * programs' instructions processed).  It is given the first object's
 * maps by descriptor (one ring, one set of followed tasks).  Its entry
 * program is attached to sys_enter after the first object's, which has
 * taken io_submit's arguments and entry time by then and writes no
 * record of its own at that entry (the call's record comes at its exit);
 * its exit program is not attached: the first object's exit tail-calls
 * it (tails) before it writes the call's record, and it tail-calls that
 * exit back, so that these records come first, as the recorder reads
 * them.  Plain raw tracepoints, no CO-RE: libbpf loads it without reading
 * the kernel's BTF.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define IOCB_CMD_PREADV_	7
#define IOCB_CMD_PWRITEV_	8

/* the UAPI iocb (linux/aio_abi.h), fixed: read without a CO-RE
 * relocation */
struct uiocb {
	__u64 aio_data;
	__u32 aio_key, aio_rw_flags;
	__u16 aio_lio_opcode;
	__s16 aio_reqprio;
	__u32 aio_fildes;
	__u64 aio_buf, aio_nbytes;
	__s64 aio_offset;
	__u64 aio_reserved2;
	__u32 aio_flags, aio_resfd;
};

struct aio_work {
	__u64 ctx, ptrs, t, base;
	__u32 n, lost;
	__s64 ret;
};

/* the record being written, and the loops' state: map memory (as
 * argwork, the verifier checks each step once) */
struct aio_buf {
	struct be_aio r;
	/* iovec lengths, or io_events; twice what is used, so that a
	 * record's length can be bounded for the verifier by a mask */
	__u64 data[2 * BE_AIO_VEC_MAX];
	struct aio_work w;
};

LOOP_STATE(aiobuf, struct aio_buf, aio_buf)

static __always_inline void aio_hdr(struct aio_buf *b, __u32 type, __s32 nr, __u64 t)
{
	hdr(&b->r.h, type);
	b->r.h.t = t;
	b->r.nr = nr;
	b->r.n = 0;
	b->r.ctx = b->w.ctx;
	b->r.ptr = 0;
	b->r.lost = 0;
	b->r.pad = 0;
}

static __always_inline void aio_emit(struct aio_buf *b)
{
	__u64 n = b->r.n <= BE_AIO_VEC_MAX ? b->r.n : BE_AIO_VEC_MAX;
	__u64 len = sizeof(b->r) + n * 8;

	b->r.n = (__u32)n;
	b->r.h.len = (__u32)len;
	/* (the compiler drops a test it can prove idle; the verifier cannot) */
	asm volatile("%0 &= 0x3fff" : "+r"(len));
	emit_max(b, len, sizeof(b->r) + sizeof(b->data), 0);
}

/* iovec @i of a vectored iocb: its length */
static long aio_vec_one(__u64 i, void *arg)
{
	struct aio_buf *b = aio_buf();
	__u64 v[2] = { 0, 0 };

	if (!b || i >= BE_AIO_VEC_MAX)
		return 1;
	if (bpf_probe_read_user(v, sizeof(v), (void *)(b->w.base + i * 16)) < 0) {
		b->r.lost = 1;
		return 1;
	}
	b->data[i & (BE_AIO_VEC_MAX - 1)] = v[1];
	b->r.n = (__u32)i + 1;
	return 0;
}

/* iocb @i of the call: one record, or one more lost */
static long aio_iocb_one(__u64 i, void *arg)
{
	struct aio_buf *b = aio_buf();
	struct uiocb *cb;
	__u64 p = 0;

	if (!b)
		return 1;
	if (bpf_probe_read_user(&p, 8, (void *)(b->w.ptrs + i * 8)) < 0) {
		/* the array itself: the rest is unread */
		b->w.lost += b->w.n - (__u32)i;
		return 1;
	}
	aio_hdr(b, BE_AIO_IOCB, NR_IO_SUBMIT, b->w.t);
	b->r.ptr = p;
	/* unread: sent in its place, as one lost (an iovec unread: the
	 * request as a whole) */
	if (bpf_probe_read_user(b->r.cb, sizeof(b->r.cb), (void *)p) < 0) {
		b->r.lost = 1;
	} else {
		cb = (struct uiocb *)b->r.cb;
		if (cb->aio_lio_opcode == IOCB_CMD_PREADV_ ||
		    cb->aio_lio_opcode == IOCB_CMD_PWRITEV_) {
			__u64 cnt = cb->aio_nbytes;

			b->w.base = cb->aio_buf;
			bpf_loop(cnt < BE_AIO_VEC_MAX ? (__u32)cnt : BE_AIO_VEC_MAX, aio_vec_one,
				 NULL, 0);
		}
	}
	if (b->r.lost)
		b->r.n = 0;
	aio_emit(b);
	return 0;
}

/* one record of what was seen and not read past the last one sent */
static __always_inline void aio_lost(struct aio_buf *b, __u32 type, __s32 nr)
{
	if (!b->w.lost)
		return;
	aio_hdr(b, type, nr, b->w.t);
	b->r.lost = b->w.lost;
	aio_emit(b);
}

static __always_inline int aio_submit_enter(__u64 ctx, __u64 n, __u64 ptrs, __u64 t)
{
	struct aio_buf *b = aio_buf();

	if (!b || (__s64)n <= 0)
		return 0;
	b->w.ctx = ctx;
	b->w.ptrs = ptrs;
	b->w.t = t;
	b->w.lost = 0;
	b->w.n = n < 0xffffffffULL ? (__u32)n : 0xffffffffu;
	if (n > BE_AIO_CBS_MAX) {
		b->w.lost = b->w.n - BE_AIO_CBS_MAX;
		n = BE_AIO_CBS_MAX;
	}
	b->w.n = (__u32)n;
	bpf_loop((__u32)n, aio_iocb_one, NULL, 0);
	aio_lost(b, BE_AIO_IOCB, NR_IO_SUBMIT);
	return 0;
}

/* io_events @i * BE_AIO_EVS on: one record */
static long aio_evs_one(__u64 i, void *arg)
{
	struct aio_buf *b = aio_buf();
	__u64 first = i * BE_AIO_EVS, k;
	__s32 nr;

	if (!b || b->w.ret <= 0 || first >= (__u64)b->w.ret)
		return 1;
	k = (__u64)b->w.ret - first;
	if (k > BE_AIO_EVS)
		k = BE_AIO_EVS;
	nr = b->r.nr;
	aio_hdr(b, BE_AIO_EVENTS, nr, b->w.t);
	if (bpf_probe_read_user(b->data, (k & (2 * BE_AIO_EVS - 1)) * 32,
				(void *)(b->w.base + first * 32)) < 0) {
		b->w.lost += (__u32)k;
		return 0;
	}
	b->r.n = (__u32)k * 4;
	aio_emit(b);
	return 0;
}

/* (the recorder has the call's context: its first argument) */
__noinline int aio_call_exit(__s32 nr, __u64 a1, __u64 a3, __u64 t, __s64 ret)
{
	struct aio_buf *b = aio_buf();
	__u64 v = 0;

	if (!b || ret < 0)
		return 0;
	b->w.ctx = 0;
	b->w.t = t;
	b->w.lost = 0;
	if (nr == NR_IO_SETUP) {
		if (ret != 0)
			return 0;
		aio_hdr(b, BE_AIO_CTX, nr, t);
		if (bpf_probe_read_user(&v, 8, (void *)a1) < 0)
			b->r.lost = 1;
		b->r.ctx = v;
		aio_emit(b);
		return 0;
	}
	if (ret == 0)
		return 0;
	b->w.base = a3;
	b->w.ret = ret;
	b->r.nr = nr;
	if (ret > BE_AIO_EVS_MAX) {
		b->w.lost = (__u32)(ret - BE_AIO_EVS_MAX);
		b->w.ret = BE_AIO_EVS_MAX;
	}
	bpf_loop(BE_AIO_EVS_MAX / BE_AIO_EVS, aio_evs_one, NULL, 0);
	aio_lost(b, BE_AIO_EVENTS, nr);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(iotape_aio_enter, void *regs, long id)
{
	struct tstate *fl;

	if (id != NR_IO_SUBMIT)
		return 0;
	fl = followed(bpf_get_current_task_btf());
	/* the first object's entry took the call (busy): its arguments as
	 * they came, its entry time */
	if (!fl || !fl->busy || fl->nr != NR_IO_SUBMIT)
		return 0;
	return aio_submit_enter(fl->args[0], fl->args[1], fl->args[2], fl->t_enter);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(iotape_aio_exit, void *regs, long ret)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());

	if (fl && fl->busy)
		aio_call_exit(fl->nr, fl->args[1], fl->args[3], fl->t_enter, ret);
	/* back to the first object's exit, for the call's record */
	bpf_tail_call(ctx, &tails, TAIL_EXIT);
	return 0;
}
