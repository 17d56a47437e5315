/*
 * aio_int.h - what record/aio.c (libaio, and what both kinds share) and
 * record/uring.c (io_uring rings) share: the contexts and rings being
 * followed, and the writing of AsyncOp records.
 */
#ifndef REC_AIO_INT_H
#define REC_AIO_INT_H

#include <linux/io_uring.h>

#include "rec.h"
#include "uring_abi.h"

#define MAX_BATCH 4096		/* requests read per call */
#define RING_PATH "anon_inode:[io_uring]"
#define REG_MAX 8		/* threads that registered one ring, kept */

/* A request in flight: what a completion of it carries into the trace. */
struct inflight {
	uint64_t key;			/* user_data (io_uring), iocb address (libaio) */
	uint32_t opcode;
	int32_t fd;
	uint32_t flags;
	char *path;
};

struct rec_actx {
	uint32_t api;
	pid_t pid;
	uint64_t ctx;			/* aio_context_t, or the ring's fd */
	/* io_uring */
	uint32_t flags, sq_entries, cq_entries, features;
	struct io_sqring_offsets sq_off;
	struct io_cqring_offsets cq_off;
	uint64_t sq_ring, cq_ring, sqes;	/* where the program mapped them; 0: not */
	uint32_t cq_seen;
	/* the kernel's SQ head when last read (a count of every request it
	 * took, mod 2^32), and how many of them are in the trace: SQPOLL
	 * rings take requests without a syscall */
	uint32_t sq_head;
	int head_known;
	uint32_t captured;
	char **files;			/* registered files' paths */
	uint32_t n_files;
	/* the indices threads registered the ring's descriptor under
	 * (IORING_REGISTER_RING_FDS: a table of each thread's own) */
	struct { pid_t tid; uint32_t idx; } reg[REG_MAX];
	uint32_t n_reg;
	struct inflight *fl;
	uint32_t n_fl, cap_fl;
	/* the bpf backend (bpf_uring.c): the ring's records come from the
	 * kernel, not its memory; they wait here for the event of the call
	 * they came in (tid 0: of none, SQPOLL's: the ring's next enter) */
	int bpf;
	int setup_done;
	struct rec_uring_held *held;
	uint32_t n_held, cap_held;
	uint32_t missed;		/* libaio: requests io_submit took, not read */
	/* completions read before their request was: aio.c early() */
	struct rec_early *early;
	uint32_t n_early, cap_early;
};

struct rec_early {
	uint64_t event, key, data;
	int64_t res, t_ns;
	pid_t tid;
};

struct rec_uring_held {
	struct rec_aio_req r;
	pid_t tid;
};

struct rec_aio {
	struct rec_actx **c;
	uint32_t n, cap;
};

/* the context (libaio) or ring (io_uring, @ctx its descriptor) of @pid,
 * or NULL; *@idx its index in c->aio when @idx is set */
struct rec_actx *rec_actx_find(struct rec_ctx *c, uint32_t api, pid_t pid, uint64_t ctx,
			       uint32_t *idx);
/* a new one (an old one of the same key is dropped), or NULL */
struct rec_actx *rec_actx_new(struct rec_ctx *c, uint32_t api, pid_t pid, uint64_t ctx);
/* @r zeroed, then the fields every record has */
void rec_aio_init(struct iot_aio *r, uint32_t kind, uint32_t api, uint64_t event,
		  int64_t t_ns, const struct rec_task *t, uint64_t ctx);
/* write @a, counted in the summary */
void rec_aio_emit(struct rec_ctx *c, const struct iot_aio *a);
/* the completion of request @key (@data its user data): written with
 * what its request was, when it is known */
void rec_aio_emit_complete(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			   uint64_t event, uint64_t key, uint64_t data, int64_t res,
			   int64_t t_ns);
/* the records @t collected at the entry: the first @done requests */
void rec_aio_emit_submits(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, int64_t done);
/* a new record of @t's call, or NULL */
struct rec_aio_req *rec_aio_req_add(struct rec_task *t);
void rec_aio_req_path(struct rec_aio_req *r, const char *p, uint32_t len);
/* the @n iovecs at @addr: their lengths into @r's vals; @return : the sum */
uint64_t rec_aio_req_iovecs(struct rec_task *t, struct rec_aio_req *r, uint64_t addr,
			    uint64_t n);

/* @vals (@n of them, now @r's) as @r's iovec lengths; @return : their sum */
uint64_t rec_aio_req_vals(struct rec_aio_req *r, int64_t *vals, uint32_t n);

/* libaio (libaio.c): io_submit's iocbs at the entry, io_getevents'
 * completions at the exit */
void rec_libaio_submit_entry(struct rec_ctx *c, struct rec_task *t);
void rec_libaio_getevents_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event);

/* io_uring (uring.c) */
void rec_uring_setup_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event);
/* a ring of @pid at descriptor @fd, as io_uring_setup made it, or NULL */
struct rec_actx *rec_uring_ring_new(struct rec_ctx *c, pid_t pid, int fd, uint32_t flags,
				    uint32_t sq_entries, uint32_t cq_entries);
/* What the bpf backend gives of a request in place of the program's
 * memory: a vectored request's bytes, the paths of a path request. */
struct rec_uring_kern {
	uint64_t vec_bytes;
	const uint64_t *iov;		/* each iovec's length, or NULL */
	uint32_t niov;
	const char *str[2];
};
/* @s, an SQE of ring @a that @t's process submitted, into @r; with @k
 * (the bpf backend) nothing is read from the program's memory: @return :
 * 0 if a path request came without its path, else 1 */
int rec_uring_sqe_req(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		      const struct io_uring_sqe *s, struct rec_aio_req *r,
		      const struct rec_uring_kern *k);
/* a registration of @op on @a into @r (its values left to the caller) */
void rec_uring_reg_req(struct rec_actx *a, uint32_t op, struct rec_aio_req *r);
/* a new record of @tid waiting on @a, or NULL */
struct rec_aio_req *rec_uring_held_add(struct rec_actx *a, pid_t pid, pid_t tid);
/* the records waiting on @a of @t's (and of no call, with @any) into
 * @t's call, their paths' states taken: @return : how many */
uint32_t rec_uring_held_take(struct rec_ctx *c, struct rec_actx *a, struct rec_task *t,
			     int any);
/* the records waiting on @a (@all; else those of @t's and of no call),
 * written now as records of @event, @t's */
void rec_uring_held_flush(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
			  uint64_t event, int all);
void rec_uring_held_free(struct rec_actx *a);
/* the ring a call of @t names by @arg, or with @registered by an index
 * @t's thread registered it under */
struct rec_actx *rec_uring_ring_of(struct rec_ctx *c, struct rec_task *t, uint64_t arg,
				   int registered);
void rec_uring_enter_entry(struct rec_ctx *c, struct rec_task *t);
/* every CQE posted since the last one seen: written now as records of
 * @event, or with @collect kept in @t's records, written after its event */
void rec_uring_reap(struct rec_ctx *c, struct rec_task *t, struct rec_actx *a,
		    uint64_t event, int collect);
void rec_uring_register_entry(struct rec_ctx *c, struct rec_task *t);
void rec_uring_register_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event);

#endif
