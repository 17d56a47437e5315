/*
 * bpf_int.h - what record/bpf.c (loading), bpf_drain.c (the drain loop),
 * bpf_calib.c (the gap measured at the attach) and bpf_events.c (records
 * into events) share.
 */
#ifndef IOT_BPF_INT_H
#define IOT_BPF_INT_H

#include <pthread.h>

#include "bpf_ring.h"

/* A call between its entry and exit records: decoded at its exit, when
 * its result tells what its paths were before it ran. */
struct pend {
	struct be_enter *e;
	size_t size;
	size_t cap;			/* e's allocated bytes */
	struct pend *next;		/* on the spare list */
};

/* entries' buffers kept for reuse, at most */
#define PEND_SPARE_MAX	64

/* --backend mixed: a record of the programs held for the round that
 * merges it with the fast path's records by time (bpf_drain.c) */
struct bq_item {
	uint64_t key;			/* its entry time (a call), else its time */
	uint64_t seq;			/* ring order: ties keep it */
	size_t off, len;		/* in struct rec_bpf's qbuf */
};

/* a fast-path slot to free once its round is decoded */
struct bq_release {
	pid_t tid;
	uint64_t t;
	int proc;
};

struct iotape_uring_bpf;
struct iotape_aio_bpf;

struct rec_bpf {
	struct iotape_bpf *skel;		/* bpftool's skeleton (build/gen/iotape.skel.h) */
	struct iotape_uring_bpf *uskel;	/* io_uring's, once loaded (bpf_uring.c) */
	int uring_tried;		/* its load was tried: 1, and failed: 2 */
	struct iotape_aio_bpf *askel;	/* libaio's, once loaded (bpf_aio.c) */
	int aio_tried;			/* its load was tried: 1, and failed: 2 */
	struct rec_ring ring;		/* bpf_ring.c */
	void **pending;			/* by tid: a struct pend */
	size_t npend;			/* how many: none left, the end does not
					 * read the pid_max entries (32 MiB at
					 * pid_max 4194304) */
	int pid_max;
	struct pend *spare;		/* buffers of entries done with */
	size_t nspare;
	uint64_t drops;			/* of the programs, counted so far */
	char *cwd;			/* the program's first cwd, its state before it ran */
	uint32_t cwd_len;
	int cwd_done;
	struct rec_pre cwd_pre;
	int guard_fd;			/* bpf_guard.c's listener, or -1 */
	/* --backend mixed (c->fast set): records held for their round */
	char *qbuf;
	size_t qlen, qcap;
	struct bq_item *q;
	size_t nq, capq;
	uint64_t seq;
	struct bq_release *rel;
	size_t nrel, caprel;
	pid_t *dead;			/* the threads that ended in a round, */
	int *dead_status;		/* ... their wait status */
	int64_t *dead_left;		/* ... the call each was leaving + 1 and
					 * its result, in pairs (be_gone) */
	size_t capdead;
	struct rec_bpf_aio *aio;	/* libaio's records by thread (bpf_aio.c) */
	uint64_t t_first, t_last;	/* the first and last record's times */
	/* what the load takes from the options, read before its thread
	 * starts (the recorder changes them while it runs) */
	uint32_t ring_bytes;
	uint64_t wake_bytes, stub_ip;
	/* the load in a thread of its own (rec_bpf_start(), rec_bpf_wait()),
	 * and the unload at the end (rec_bpf_unload_start()) */
	pthread_t th;
	int th_running;
	int load_err;
	const char *load_why;
	pthread_mutex_t mu;		/* loaded, for rec_bpf_wait_loaded() */
	pthread_cond_t cv;
	int loaded;			/* the programs are in the kernel (or failed) */
};

/* --backend mixed: free @tid's fast-path slots claimed before @t after
 * this round (@proc: the process's entries too) */
void rec_bpf_release(struct rec_ctx *c, pid_t tid, uint64_t t, int proc);

/* @t ended (@status: its wait status; CPU times, @rec_ns of them the
 * programs' at its faults): its call in flight as unfinished, its EXIT
 * record, and it is deleted */
void rec_bpf_emit_exit(struct rec_ctx *c, struct rec_task *t, int64_t now, int status,
		       int64_t ut, int64_t st, int64_t rec_ns);
/* libbpf's ring buffer callback: one record of the programs */
int rec_bpf_record(void *ctx, void *data, size_t size);

/* bpf_mmap.c: a file mapping the programs follow (BE_FMAP), pages of
 * one faulted in or dirtied (BE_MPAGE) */
void rec_bpf_fmap(struct rec_ctx *c, const struct be_fmap *r);
void rec_bpf_mpage(struct rec_ctx *c, const struct be_mpage *r);

/* bpf_drain.c: libbpf's ring buffer callback, the one the ring is
 * opened with: the measuring child's records taken out, the others
 * decoded (or, with the fast path, held for their round) */
int rec_bpf_on_record(void *ctx, void *data, size_t size);

/* bpf_calib.c: the child that measures what the programs add to a gap,
 * started right after the attach and reaped before the program is
 * followed; its records are taken out of the ring, never events */
#define CALIB_N 400

struct calib_state {
	pid_t pid;			/* the child, until reaped (-1) */
	pid_t tid;			/* its records, until taken out */
	int failed;
	uint64_t last_exit;
	uint32_t n;
	int64_t gaps[CALIB_N];
};
extern struct calib_state rec_bpf_calib;

/* a record of the child's (its tid: rec_bpf_calib.tid) */
void rec_bpf_calib_take(const void *data, size_t size);
/* the child started and followed, right after the attach */
void rec_bpf_calib_start(struct rec_bpf *b);
/* the child reaped, its records taken out, its median gap kept */
void rec_bpf_calib_end(struct rec_bpf *b);

/* bpf.c: a later object's maps of common.bpf.h made the first object's
 * (by descriptor, before its load): one ring, one set of followed tasks.
 * @return : 0 or libbpf's error */
struct bpf_map;
int rec_bpf_share_maps(struct rec_bpf *b, struct bpf_map *rb, struct bpf_map *tstate,
		       struct bpf_map *scratch, struct bpf_map *drops);

/* bpf_uring.c: io_uring's programs unloaded, if they were loaded */
void rec_bpf_uring_free(struct rec_ctx *c);

/* bpf_aio.c: a BE_AIO_* record, kept for its call */
void rec_bpf_aio_record(struct rec_ctx *c, const void *data, size_t size);
/* what the records of @tid's call entered at @t_enter hold, or NULL */
const struct rec_aio_view *rec_bpf_aio_view(struct rec_ctx *c, pid_t tid, uint64_t t_enter);
/* @tid's call is decoded (or will never be): its records go */
void rec_bpf_aio_done(struct rec_ctx *c, pid_t tid);
void rec_bpf_aio_free(struct rec_ctx *c);
/* libaio's programs unloaded, if they were loaded */
void rec_bpf_aio_unload(struct rec_ctx *c);

#endif
