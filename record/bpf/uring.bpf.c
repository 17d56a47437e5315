/*
 * uring.bpf.c - io_uring under the bpf backend (record/bpf_uring.c): an
 * object of its own, loaded by the recorder when a followed program first
 * calls io_uring_setup (the guard holds that call until these programs
 * are attached, record/bpf_guard.c), so that a recording of a program
 * that makes no ring does not pay their load, and a kernel without
 * io_uring, or whose BTF lacks its types, still records everything else.
 * Its maps but urings are iotape.bpf.c's (common.bpf.h), given by
 * descriptor.
 *
 * The ptrace backend reads a ring's SQEs and CQEs in the program's
 * memory at io_uring_enter's stops.  Here the kernel's own tracepoints
 * say it: io_uring_submit_req for each request as the kernel takes it
 * (its io_kiocb, the command already prepared from the SQE),
 * io_uring_complete for each completion as it is posted, in whatever
 * context posts it.  A ring in SQPOLL mode is no different: its kernel
 * thread takes the requests, and the tracepoint fires there.  The rings
 * of followed processes are known by their io_ring_ctx, from their
 * io_uring_create in a followed task; a ring another program makes at a
 * freed ring's address is taken out.  The command's fields are the
 * kernel's internal layout (struct io_rw, io_sync, io_close), relocated
 * by CO-RE: a kernel whose BTF lacks them refuses these programs, and the
 * recorder says so and records on without them.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct uring_ring {
	__u32 pid;
	__s32 fd;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);		/* the io_ring_ctx */
	__type(value, struct uring_ring);
} urings SEC(".maps");

/* the followed thread whose io_uring call this runs in, or 0 */
static __always_inline __u32 uring_in_call(void)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());

	if (!fl || !fl->busy || (fl->nr != NR_IO_URING_ENTER && fl->nr != NR_IO_URING_REGISTER))
		return 0;
	return (__u32)bpf_get_current_pid_tgid();
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(iotape_uring_create, int fd, void *rctx, __u32 sq_entries, __u32 cq_entries,
	     __u32 flags)
{
	__u64 key = (__u64)rctx;
	struct uring_ring r;
	struct be_uring_setup *u;

	if (!followed(bpf_get_current_task_btf())) {
		bpf_map_delete_elem(&urings, &key);
		return 0;
	}
	r.pid = bpf_get_current_pid_tgid() >> 32;
	r.fd = fd;
	if (bpf_map_update_elem(&urings, &key, &r, BPF_ANY) < 0) {
		count_drop();
		return 0;
	}
	u = scratch_buf();
	if (!u)
		return 0;
	hdr(&u->h, BE_URING_SETUP);
	u->h.len = sizeof(*u);
	u->ring_fd = fd;
	u->flags = flags;
	u->sq_entries = sq_entries;
	u->cq_entries = cq_entries;
	emit(u, sizeof(*u), 0);
	return 0;
}

#define IORING_ENTER_GETEVENTS_		1u
#define IORING_ENTER_REGISTERED_RING_	(1u << 4)
#define IORING_SETUP_SQPOLL_		(1u << 1)
#define IO_RINGFD_REG_MAX_		16

/*
 * A followed thread's io_uring_enter that waits (GETEVENTS, min_complete)
 * waits for min_complete in the ring, the completions the program left
 * there unreaped included: how many it left as it enters, from the ring's
 * CQ head and tail as the program sees them (struct io_rings), where the
 * ptrace backend reads them in the program's memory (record/uring.c).
 * The ring is its descriptor's file, or with IORING_ENTER_REGISTERED_RING
 * the one the thread registered at that index; named in the record as the
 * ring's requests are (its process and descriptor at its making).  Not on
 * an SQPOLL ring (as under ptrace).  Runs at every call of every task
 * once these programs are loaded: any other call leaves at the first test.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(iotape_uring_enter, const struct uregs *regs, long id)
{
	struct task_struct *task;
	struct io_ring_ctx *rctx;
	struct uring_ring *r;
	struct be_uring_ready y;
	struct file **fds, *f = NULL;
	__u32 fd, head, tail;
	__u64 key, fl;

	if (id != NR_IO_URING_ENTER)
		return 0;
	task = bpf_get_current_task_btf();
	fl = regs->r10;
	if (!(fl & IORING_ENTER_GETEVENTS_) || !(__u32)regs->dx || !followed(task))
		return 0;
	fd = (__u32)regs->di;
	if (fl & IORING_ENTER_REGISTERED_RING_) {
		if (fd >= IO_RINGFD_REG_MAX_)
			return 0;
		fds = BPF_CORE_READ(task, io_uring, registered_rings);
	} else {
		if (fd >= BPF_CORE_READ(task, files, fdt, max_fds))
			return 0;
		fds = BPF_CORE_READ(task, files, fdt, fd);
	}
	if (!fds || bpf_probe_read_kernel(&f, sizeof(f), fds + fd) || !f)
		return 0;
	key = (__u64)BPF_CORE_READ(f, private_data);
	r = bpf_map_lookup_elem(&urings, &key);
	if (!r)
		return 0;	/* not a ring of a followed process */
	rctx = (struct io_ring_ctx *)key;
	if (BPF_CORE_READ(rctx, flags) & IORING_SETUP_SQPOLL_)
		return 0;
	head = BPF_CORE_READ(rctx, rings, cq.head);
	tail = BPF_CORE_READ(rctx, rings, cq.tail);
	if (tail == head || tail - head > BPF_CORE_READ(rctx, cq_entries))
		return 0;
	hdr(&y.h, BE_URING_READY);
	y.h.len = sizeof(y);
	y.h.pid = r->pid;
	y.ring_fd = r->fd;
	y.n = tail - head;
	emit(&y, sizeof(y), 0);
	return 0;
}

#define O_LARGEFILE_	0100000
#define IOSQE_ASYNC_	(1u << 4)

/* path @i (0, 1) of a request, the kernel's copy, into @q's data */
static __always_inline void uring_str(struct be_uring_sqe *q, __u32 i, struct filename *f)
{
	const char *name = BPF_CORE_READ(f, name);
	long n;

	n = bpf_probe_read_kernel_str(q->data + (i ? BE_STR_MAX : 0), BE_STR_MAX, name);
	q->slen[i & 1] = n > 0 ? (__u32)n - 1 : BE_FAULT;
	q->nstr = i + 1;
}

/* openat, statx, unlinkat, mkdirat, renameat: their directory, mode or
 * mask, flags and paths, as the SQE had them (the kernel forces them to
 * its workers: that IOSQE_ASYNC is its, not the program's) */
static __always_inline int uring_path_cmd(struct io_kiocb *req, struct be_uring_sqe *q)
{
	__u8 op = q->opcode;

	if (op == IORING_OP_OPENAT) {
		struct io_open *o = (struct io_open *)req;

		q->fd = BPF_CORE_READ(o, dfd);
		q->len = (__u32)BPF_CORE_READ(o, how.mode);
		/* (the kernel adds O_LARGEFILE to every open) */
		q->rw_flags = (__u32)BPF_CORE_READ(o, how.flags) & ~O_LARGEFILE_;
		uring_str(q, 0, BPF_CORE_READ(o, filename));
	} else if (op == IORING_OP_STATX) {
		struct io_statx *x = (struct io_statx *)req;

		q->fd = BPF_CORE_READ(x, dfd);
		q->len = BPF_CORE_READ(x, mask);
		q->rw_flags = BPF_CORE_READ(x, flags);
		q->off = (__u64)BPF_CORE_READ(x, buffer);
		uring_str(q, 0, BPF_CORE_READ(x, filename));
	} else if (op == IORING_OP_UNLINKAT) {
		struct io_unlink *u = (struct io_unlink *)req;

		q->fd = BPF_CORE_READ(u, dfd);
		q->rw_flags = (__u32)BPF_CORE_READ(u, flags);
		uring_str(q, 0, BPF_CORE_READ(u, filename));
	} else if (op == IORING_OP_MKDIRAT) {
		struct io_mkdir *m = (struct io_mkdir *)req;

		q->fd = BPF_CORE_READ(m, dfd);
		q->len = BPF_CORE_READ(m, mode);
		uring_str(q, 0, BPF_CORE_READ(m, filename));
	} else if (op == IORING_OP_RENAMEAT) {
		struct io_rename *r = (struct io_rename *)req;

		q->fd = BPF_CORE_READ(r, old_dfd);
		q->len = (__u32)BPF_CORE_READ(r, new_dfd);
		q->rw_flags = (__u32)BPF_CORE_READ(r, flags);
		uring_str(q, 0, BPF_CORE_READ(r, oldpath));
		uring_str(q, 1, BPF_CORE_READ(r, newpath));
	} else {
		return 0;
	}
	q->flags &= ~IOSQE_ASYNC_;
	return 1;
}

static long uring_iov(__u64 i, void *arg)
{
	struct be_uring_sqe *q = scratch_buf();
	__u64 v[2] = { 0, 0 };

	if (!q || i >= BE_IOV_MAX)
		return 1;
	bpf_probe_read_user(v, sizeof(v), (void *)(q->addr + i * 16));
	q->iov[i] = v[1];
	return 0;
}

/* the request's command, as its SQE said it: @return : 1 if decoded */
static __always_inline int uring_cmd(struct io_kiocb *req, struct be_uring_sqe *q)
{
	__u8 op = q->opcode;

	if (op == IORING_OP_READ || op == IORING_OP_WRITE || op == IORING_OP_READ_FIXED ||
	    op == IORING_OP_WRITE_FIXED || op == IORING_OP_READV || op == IORING_OP_WRITEV) {
		/* the command lives at the start of the io_kiocb */
		struct io_rw *rw = (struct io_rw *)req;

		q->off = BPF_CORE_READ(rw, kiocb.ki_pos);
		q->addr = BPF_CORE_READ(rw, addr);
		q->len = BPF_CORE_READ(rw, len);
		q->rw_flags = (__u32)BPF_CORE_READ(rw, flags);
		if (op == IORING_OP_READV || op == IORING_OP_WRITEV) {
			struct iov_ctx c = { .base = q->addr, .sum = 0 };
			__u32 cnt = q->len < IOV_MAX_SUM ? q->len : IOV_MAX_SUM;

			bpf_loop(cnt, iov_one, &c, 0);
			q->vec_bytes = c.sum;
			/* each length too, for a few (the sum for more) */
			q->niov = q->len <= BE_IOV_MAX ? q->len : 0;
			bpf_loop(q->niov, uring_iov, NULL, 0);
		}
		return 1;
	}
	if (op == IORING_OP_FSYNC || op == IORING_OP_FALLOCATE) {
		struct io_sync *sy = (struct io_sync *)req;

		/* forced to the kernel's workers, as the path ops below */
		q->flags &= ~IOSQE_ASYNC_;

		q->off = BPF_CORE_READ(sy, off);
		if (op == IORING_OP_FSYNC) {
			q->len = (__u32)BPF_CORE_READ(sy, len);
			q->rw_flags = (__u32)BPF_CORE_READ(sy, flags);
		} else {
			/* the SQE's layout: the length in addr, the mode in len */
			q->addr = BPF_CORE_READ(sy, len);
			q->len = (__u32)BPF_CORE_READ(sy, mode);
		}
		return 1;
	}
	if (op == IORING_OP_CLOSE) {
		struct io_close *cl = (struct io_close *)req;

		q->fd = BPF_CORE_READ(cl, fd);
		return 1;
	}
	return op == IORING_OP_NOP || uring_path_cmd(req, q);
}

/* A request's record, of the ring of @req (NULL: not followed), with
 * what every request's holds set; no strings, no iovecs yet */
static __always_inline struct be_uring_sqe *sqe_rec(struct io_kiocb *req)
{
	__u64 key = (__u64)BPF_CORE_READ(req, ctx);
	struct uring_ring *r = bpf_map_lookup_elem(&urings, &key);
	struct be_uring_sqe *q;

	if (!r)
		return NULL;
	q = scratch_buf();
	if (!q)
		return NULL;
	hdr(&q->h, BE_URING_SQE);
	q->h.pid = r->pid;
	q->ring_fd = r->fd;
	q->in_call = uring_in_call();
	q->nstr = 0;
	q->slen[0] = q->slen[1] = BE_NOSTR;
	q->niov = 0;
	return q;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(iotape_uring_sqe, struct io_kiocb *req)
{
	struct be_uring_sqe *q = sqe_rec(req);
	__u64 len;

	if (!q)
		return 0;
	q->opcode = BPF_CORE_READ(req, opcode);
	/* the SQE's IOSQE_* bits are the low bits of the request's flags */
	q->flags = (__u8)BPF_CORE_READ(req, flags);
	/* set from the SQE for every opcode that takes a file: its fd or,
	 * with IOSQE_FIXED_FILE, the index (the file is looked up later) */
	q->fd = BPF_CORE_READ(req, cqe.fd);
	q->user_data = BPF_CORE_READ(req, cqe.user_data);
	q->buf_index = BPF_CORE_READ(req, buf_index);
	q->off = q->addr = q->vec_bytes = 0;
	q->len = q->rw_flags = 0;
	q->decoded = uring_cmd(req, q) ? BE_SQE_DECODED : 0;
	len = sizeof(*q);
	if (q->nstr == 2)
		len += BE_STR_MAX + (q->slen[1] < BE_STR_MAX ? q->slen[1] + 1 : 0);
	else if (q->nstr == 1)
		len += q->slen[0] < BE_STR_MAX ? q->slen[0] + 1 : 0;
	q->h.len = (__u32)len;
	/* (the compiler drops emit()'s bound as idle here; the verifier
	 * needs one: at most two strings past the record, under 16 KiB) */
	asm volatile("%0 &= 0x3fff" : "+r"(len));
	emit(q, len, 0);
	return 0;
}

/*
 * A request the kernel refused while preparing it (an fsync whose SQE has
 * buf_index set, as fio's io_uring engine sends them with fixedbufs):
 * io_uring_submit_req never sees it, only its completion (-EINVAL) came,
 * of no request (2,350 in a fio run).  Taken from its SQE here, as the
 * ptrace backend reads it; what only a prepared command holds (paths,
 * iovecs) is not read.
 */
SEC("tp_btf/io_uring_req_failed")
int BPF_PROG(iotape_uring_failed, const struct io_uring_sqe *sqe, struct io_kiocb *req, int error)
{
	struct be_uring_sqe *q = sqe_rec(req);
	__u8 op;

	if (!q)
		return 0;
	q->h.len = sizeof(*q);
	q->opcode = op = BPF_CORE_READ(sqe, opcode);
	q->flags = BPF_CORE_READ(sqe, flags);
	q->fd = BPF_CORE_READ(sqe, fd);
	q->off = BPF_CORE_READ(sqe, off);
	q->addr = BPF_CORE_READ(sqe, addr);
	q->len = BPF_CORE_READ(sqe, len);
	q->rw_flags = BPF_CORE_READ(sqe, rw_flags);
	q->user_data = BPF_CORE_READ(sqe, user_data);
	q->buf_index = BPF_CORE_READ(sqe, buf_index);
	q->vec_bytes = 0;
	q->decoded = op == IORING_OP_READ || op == IORING_OP_WRITE || op == IORING_OP_READ_FIXED ||
		     op == IORING_OP_WRITE_FIXED || op == IORING_OP_FSYNC ||
		     op == IORING_OP_FALLOCATE || op == IORING_OP_CLOSE || op == IORING_OP_NOP ?
		     BE_SQE_DECODED : 0;
	emit(q, sizeof(*q), 0);
	return 0;
}

/* A completion's record, of ring @rctx (NULL: not followed) */
static struct be_uring_cqe *cqe_rec(void *rctx, __u64 user_data, __s32 res, __u32 flags)
{
	__u64 key = (__u64)rctx;
	struct uring_ring *r = bpf_map_lookup_elem(&urings, &key);
	struct be_uring_cqe *q;

	if (!r)
		return NULL;
	q = scratch_buf();
	if (!q)
		return NULL;
	hdr(&q->h, BE_URING_CQE);
	q->h.len = sizeof(*q);
	q->h.pid = r->pid;
	q->ring_fd = r->fd;
	q->in_call = uring_in_call();
	q->user_data = user_data;
	q->res = res;
	q->flags = flags;
	q->created = 0;
	q->pad = 0;
	return q;
}

/*
 * A completion the full ring could not take goes to the overflow list,
 * and from there into the ring when the program has made room, with no
 * tracepoint of its own: posted here (a thread that submits faster than
 * another reaps, into a ring of 16: 4,765 of 5,000 completions were
 * never seen).
 */
SEC("tp_btf/io_uring_cqe_overflow")
int BPF_PROG(iotape_uring_cqe_over, void *rctx, __u64 user_data, __s32 res, __u32 cflags,
	     void *ocqe)
{
	struct be_uring_cqe *q = cqe_rec(rctx, user_data, res, cflags);

	if (q)
		emit(q, sizeof(*q), 0);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(iotape_uring_cqe, void *rctx, void *req, struct io_uring_cqe *cqe)
{
	struct be_uring_cqe *q = cqe_rec(rctx, BPF_CORE_READ(cqe, user_data),
					 BPF_CORE_READ(cqe, res), BPF_CORE_READ(cqe, flags));

	if (!q)
		return 0;
	/* posted by the task that opened it, or a worker sharing its
	 * descriptors: the new descriptor's file says if it was made */
	if (req && q->res >= 0 && BPF_CORE_READ((struct io_kiocb *)req, opcode) == IORING_OP_OPENAT &&
	    !BPF_CORE_READ((struct io_open *)req, file_slot)) {
		struct file *f = (struct file *)fd_file(q->res);

		if (f && (BPF_CORE_READ(f, f_mode) & FMODE_CREATED_))
			q->created = 1;
	}
	emit(q, sizeof(*q), 0);
	return 0;
}

struct reg_ctx {
	__u64 base;
	__u32 opcode, n;
};

/* one registered value: an int (files, eventfd) or an iovec's length */
static long reg_one(__u64 i, void *arg)
{
	struct reg_ctx *c = arg;
	struct be_uring_reg *g = scratch_buf();
	__s64 v = 0;

	if (!g || i >= BE_REG_MAX)
		return 1;
	if (c->opcode == IORING_REGISTER_BUFFERS) {
		__u64 iov[2];

		if (bpf_probe_read_user(iov, sizeof(iov), (void *)(c->base + i * 16)) < 0)
			return 1;
		v = (__s64)iov[1];
	} else if (c->opcode == IORING_REGISTER_RING_FDS ||
		   c->opcode == IORING_UNREGISTER_RING_FDS) {
		/* struct io_uring_rsrc_update: the index (written back by the
		 * kernel) and the ring's descriptor, as two values */
		__u32 up[4];

		if (i >= BE_REG_MAX / 2 ||
		    bpf_probe_read_user(up, sizeof(up), (void *)(c->base + i * 16)) < 0)
			return 1;
		g->vals[(2 * i) & (BE_REG_MAX - 1)] = up[0];
		g->vals[(2 * i + 1) & (BE_REG_MAX - 1)] = (__s32)up[2];
		c->n = 2 * (__u32)i + 2;
		return 0;
	} else {
		__s32 fd;

		if (bpf_probe_read_user(&fd, sizeof(fd), (void *)(c->base + i * 4)) < 0)
			return 1;
		v = fd;
	}
	g->vals[i & (BE_REG_MAX - 1)] = v;
	c->n = (__u32)i + 1;
	return 0;
}

/* At the end of a registration, in the caller's call: its arguments are
 * the syscall's, the memory they point at just read by the kernel. */
SEC("tp_btf/io_uring_register")
int BPF_PROG(iotape_uring_reg, void *rctx, unsigned int opcode, unsigned int nr_files,
	     unsigned int nr_bufs, long ret)
{
	__u64 key = (__u64)rctx;
	struct uring_ring *r = bpf_map_lookup_elem(&urings, &key);
	struct task_struct *task = bpf_get_current_task_btf();
	const struct uregs *u;
	struct be_uring_reg *g;
	struct reg_ctx c;
	__u32 n;

	if (!r || ret < 0 || (opcode != IORING_REGISTER_FILES && opcode != IORING_REGISTER_BUFFERS &&
			      opcode != IORING_REGISTER_EVENTFD &&
			      opcode != IORING_REGISTER_EVENTFD_ASYNC &&
			      opcode != IORING_REGISTER_RING_FDS &&
			      opcode != IORING_UNREGISTER_RING_FDS))
		return 0;
	u = (const struct uregs *)bpf_task_pt_regs(task);
	g = scratch_buf();
	if (!u || !g)
		return 0;
	c.base = u->dx;
	c.opcode = opcode;
	c.n = 0;
	n = (__u32)u->r10;
	if (opcode == IORING_REGISTER_EVENTFD || opcode == IORING_REGISTER_EVENTFD_ASYNC)
		n = 1;
	if (opcode == IORING_REGISTER_RING_FDS && ret < n)
		n = (__u32)ret;		/* those it registered */
	if (n > BE_REG_MAX)
		n = BE_REG_MAX;
	bpf_loop(n, reg_one, &c, 0);
	hdr(&g->h, BE_URING_REG);
	g->h.len = sizeof(*g);
	g->h.pid = r->pid;
	g->ring_fd = r->fd;
	g->in_call = uring_in_call();
	g->opcode = opcode;
	g->nvals = c.n;
	emit(g, sizeof(*g), 0);
	return 0;
}
