/*
 * writer_int.h - private to the writer (writer.c, writer_chunk.c,
 * writer_items.c): the writer's state and what its files share.
 */
#ifndef IOTAPE_WRITER_INT_H
#define IOTAPE_WRITER_INT_H

#include <pthread.h>
#include <zstd.h>

#include "iotape.h"
#include "internal.h"

#define DEF_FLUSH_EVENTS 8192
#define DEF_FLUSH_MS 250
#define DEF_LEVEL 5
/* The producer blocks only when this much packed data waits for the
 * writer thread: many seconds of tracing, far behind the disk. */
#define QUEUE_MAX_BYTES (64u << 20)
/* A chunk whose events and async requests keep this many bytes of
 * written data (`record --data`) is flushed: frames stay a few MiB, not
 * 8192 writes' worth. */
#define DATA_FLUSH_BYTES (8u << 20)
/* ... and a chunk that is mostly such data is compressed at this level:
 * zstd -5 took 0.47 s of CPU for the 42 MiB tar cf of linux-6.1 fs/
 * writes, -1 0.19 s (2026-12-02), and the recorder's CPU is taken from
 * the program it records */
#define DATA_LEVEL 1

struct wjob {
	struct wjob *next;
	uint8_t *raw;
	size_t len;
	int level;
	struct iot_frame meta;
};

struct str_ent {
	uint32_t off, len, hash;
};

struct iot_writer {
	int fd;
	int level;
	struct iot_kv *late;		/* iot_writer_set_extra(): Index.extra */
	size_t n_late;
	uint32_t flush_events;
	int64_t flush_ns;		/* <0: never by time */
	ZSTD_CCtx *cctx;

	/* the chunk being built */
	size_t n, cap;
	int64_t *t_enter;
	uint64_t *duration;
	uint32_t *tid_idx, *nr, *nargs, *path, *path2, *ev_flags, *pre_ns, *cpu_ns,
		 *slept_ns, *run_ns, *woke_ns, *waited_ns, *waker, *gap_waker, *ready_ns, *data_len;
	int64_t *ret;
	int64_t *args;
	size_t n_args, cap_args;
	uint32_t *t_lo, *d_lo;		/* the 1.3 time columns, at packing */
	uint64_t *t_hi, *d_hi;
	struct iot_names names;		/* the 1.3 string table, at packing */
	struct iot_ps_cols psc;		/* the 1.3 path state columns, at packing */
	uint32_t *ps_ref;		/* their paths in the string table */
	size_t cap_ps_ref;
	int any_path2, any_flags, any_pre, any_cpu, any_slept, any_run, any_woke, any_waited,
	    any_waker, any_gap_waker, any_ready;
	uint8_t *dbuf;			/* the events' kept data, concatenated */
	size_t dbuf_len, dbuf_cap;
	uint8_t *abuf;			/* the async requests', after them */
	size_t abuf_len, abuf_cap;
	int64_t t_min, t_max;
	int64_t chunk_t0;		/* when the chunk got its first item */

	char *sbuf;			/* string bytes */
	size_t sbuf_len, sbuf_cap;
	struct str_ent *strs;
	size_t n_strs, cap_strs;
	uint32_t *ht;			/* open addressing: string index + 1 */
	size_t ht_cap;

	int32_t *tids, *tid_pids;
	size_t n_tids, cap_tids;
	size_t last_tid;

	struct iot_arena *arena;	/* path state / process copies */
	Iotape__PathState **ps;
	size_t n_ps, cap_ps;
	Iotape__Process **procs;
	size_t n_procs, cap_procs;
	Iotape__AsyncOp **aio;
	size_t n_aio, cap_aio;
	Iotape__MapPages **mp;
	size_t n_mp, cap_mp;

	uint64_t seq;
	uint64_t events;		/* appended */
	uint64_t events_flushed;	/* in chunks handed out */

	uint8_t *raw, *out;		/* foreground buffers */
	size_t raw_cap, out_cap;

	/* shared with the writer thread, under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int background, thread_started, stop, busy;
	pthread_t thread;
	struct wjob *qhead, *qtail;
	size_t q_bytes;
	int err;			/* first write error */
	uint64_t bytes;			/* written to the file */
	struct iot_frame *frames;
	size_t n_frames, cap_frames;
};

/* The first error: set once under the lock (writer.c), read without it
 * by every appended event */
static inline int iot_wr_err(struct iot_writer *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_ACQUIRE);
}

/* writer.c: the first error set, and a packed chunk handed to the
 * writer thread or written now */
void iot_wr_set_err(struct iot_writer *w, int err);
int iot_wr_submit(struct iot_writer *w, const struct iot_frame *meta, long len);

/* writer_chunk.c */
void iot_wr_chunk_reset(struct iot_writer *w);
int iot_wr_flush_chunk(struct iot_writer *w);
int iot_wr_maybe_flush(struct iot_writer *w);
long iot_wr_path_ref(struct iot_writer *w, const char *s, size_t n);
long iot_wr_tid_index(struct iot_writer *w, int32_t tid, int32_t pid);
int iot_wr_ev_grow(struct iot_writer *w);

#endif
