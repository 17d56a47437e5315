/*
 * writer.c - write iotape traces: a header frame, columnar chunk frames,
 * and an index in a skippable frame at close.  See FORMAT.md.
 *
 * The caller (the recorder's ptrace loop) appends events; every
 * flush_events events or flush_ms milliseconds the buffered items are
 * packed into one Chunk record.  With background=1 the packed chunk is
 * handed to a thread that compresses and writes it, so the tracer never
 * waits on zstd or write(2) unless it is far ahead of the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "iotape.h"
#include "hash.h"
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

/* ---- writing frames (caller's thread or the writer thread) ---- */

/* The first error is set under the lock, and stored atomically so that
 * get_err(), which every appended event calls, reads it without the lock
 * (a lock and an unlock per event were 3 % of the recorder's CPU). */
static void set_err(struct iot_writer *w, int err)
{
	pthread_mutex_lock(&w->lock);
	if (!w->err)
		__atomic_store_n(&w->err, err, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);
}

static int get_err(struct iot_writer *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_ACQUIRE);
}

/* Compress and write one packed record; record its place if it is a chunk.
 * After the first error nothing more is written: whatever follows a torn
 * frame could not be found by a reader anyway. */
static int write_frame(struct iot_writer *w, ZSTD_CCtx *cctx, int level, const uint8_t *raw,
		       size_t len, const struct iot_frame *meta, uint8_t **out,
		       size_t *cap)
{
	long k;
	int rc;
	uint64_t off;
	size_t cuts[32], n_cuts = 0;

	if ((rc = get_err(w)))
		return rc;
	/* a chunk's columns in blocks of their own: FORMAT.md */
	if (meta)
		n_cuts = iot_chunk_cuts(raw, len, cuts, sizeof(cuts) / sizeof(cuts[0]));
	k = iot_compress_frame_cuts(cctx, level, raw, len, cuts, n_cuts, out, cap);
	if (k < 0) {
		set_err(w, (int)k);
		return (int)k;
	}
	rc = iot_write_all(w->fd, *out, (size_t)k);
	pthread_mutex_lock(&w->lock);
	off = w->bytes;
	w->bytes += (size_t)k;	/* a torn write still moved the end */
	if (rc && !w->err)
		__atomic_store_n(&w->err, rc, __ATOMIC_RELEASE);
	if (!rc && meta && !iot_grow((void **)&w->frames, &w->cap_frames,
				 w->n_frames + 1, sizeof(*w->frames))) {
		w->frames[w->n_frames] = *meta;
		w->frames[w->n_frames].offset = off;
		w->frames[w->n_frames].size = (uint64_t)k;
		w->n_frames++;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

static void *writer_thread(void *arg)
{
	struct iot_writer *w = arg;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	uint8_t *out = NULL;
	size_t cap = 0;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct wjob *j;

		while (!w->qhead && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->qhead)
			break;
		j = w->qhead;
		w->qhead = j->next;
		if (!w->qhead)
			w->qtail = NULL;
		w->busy = 1;
		pthread_mutex_unlock(&w->lock);
		if (cctx)
			write_frame(w, cctx, j->level, j->raw, j->len, &j->meta, &out, &cap);
		else
			set_err(w, -ENOMEM);
		pthread_mutex_lock(&w->lock);
		w->q_bytes -= j->len;
		w->busy = 0;
		pthread_cond_broadcast(&w->cond);
		free(j->raw);
		free(j);
	}
	pthread_mutex_unlock(&w->lock);
	ZSTD_freeCCtx(cctx);
	free(out);
	return NULL;
}

/* Hand a packed chunk to the thread, or write it now. */
static int submit(struct iot_writer *w, const struct iot_frame *meta, long len)
{
	struct wjob *j;
	int level = w->dbuf_len > (size_t)len / 2 && w->level > DATA_LEVEL ? DATA_LEVEL : w->level;

	if (!w->background)
		return write_frame(w, w->cctx, level, w->raw, (size_t)len, meta, &w->out,
				   &w->out_cap);
	j = malloc(sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->next = NULL;
	j->raw = w->raw;	/* the job takes the buffer */
	j->len = (size_t)len;
	j->level = level;
	j->meta = *meta;
	w->raw = NULL;
	w->raw_cap = 0;
	pthread_mutex_lock(&w->lock);
	while (w->q_bytes > QUEUE_MAX_BYTES && !w->err)
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->qtail)
		w->qtail->next = j;
	else
		w->qhead = j;
	w->qtail = j;
	w->q_bytes += j->len;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* ---- building a chunk ---- */

static void chunk_reset(struct iot_writer *w)
{
	w->n = 0;
	w->n_args = 0;
	w->any_path2 = w->any_flags = w->any_pre = w->any_cpu = w->any_slept = w->any_run = 0;
	w->any_woke = w->any_waited = w->any_waker = w->any_gap_waker = w->any_ready = 0;
	w->dbuf_len = w->abuf_len = 0;
	w->t_min = INT64_MAX;
	w->t_max = INT64_MIN;
	w->chunk_t0 = 0;
	w->sbuf_len = 0;
	w->n_strs = 0;
	if (w->ht)
		memset(w->ht, 0, w->ht_cap * sizeof(*w->ht));
	w->n_tids = 0;
	w->last_tid = 0;
	w->n_ps = w->n_procs = w->n_aio = w->n_mp = 0;
	iot_arena_reset(w->arena);
}

static int ht_rehash(struct iot_writer *w)
{
	size_t cap = w->ht_cap ? w->ht_cap * 2 : 1024, i;
	uint32_t *ht = calloc(cap, sizeof(*ht));

	if (!ht)
		return -ENOMEM;
	for (i = 0; i < w->n_strs; i++) {
		size_t h = w->strs[i].hash & (cap - 1);

		while (ht[h])
			h = (h + 1) & (cap - 1);
		ht[h] = (uint32_t)i + 1;
	}
	free(w->ht);
	w->ht = ht;
	w->ht_cap = cap;
	return 0;
}

/* Look for @s (hash @hv) in the chunk's string table.
 * @return : its index + 1, or 0 with *@slot the free slot it would take. */
static uint32_t str_slot(const struct iot_writer *w, const void *s, size_t n,
			 uint32_t hv, size_t *slot)
{
	size_t h;

	for (h = hv & (w->ht_cap - 1); w->ht[h]; h = (h + 1) & (w->ht_cap - 1)) {
		const struct str_ent *e = &w->strs[w->ht[h] - 1];

		if (e->hash == hv && e->len == n && memcmp(w->sbuf + e->off, s, n) == 0)
			return w->ht[h];
	}
	*slot = h;
	return 0;
}

/* @return : the string's index + 1 in the chunk table (0 for none), or a
 * negative code. */
static long intern(struct iot_writer *w, const char *s, size_t n)
{
	uint32_t hv, found;
	size_t h = 0;
	struct str_ent *e;

	if (!s)
		return 0;
	if (n > UINT32_MAX / 2)
		return IOT_E_ARG;
	if ((w->n_strs + 1) * 2 > w->ht_cap && ht_rehash(w))
		return -ENOMEM;
	hv = (uint32_t)iot_hash(s, n, 0);
	if ((found = str_slot(w, s, n, hv, &h)))
		return found;
	if (iot_grow((void **)&w->strs, &w->cap_strs, w->n_strs + 1, sizeof(*w->strs)) ||
	    iot_grow((void **)&w->sbuf, &w->sbuf_cap, w->sbuf_len + n + 1, 1))
		return -ENOMEM;
	e = &w->strs[w->n_strs];
	e->off = (uint32_t)w->sbuf_len;
	e->len = (uint32_t)n;
	e->hash = hv;
	if (n)
		memcpy(w->sbuf + w->sbuf_len, s, n);
	w->sbuf_len += n;
	w->ht[h] = (uint32_t)++w->n_strs;
	return (long)w->n_strs;
}

/* @return : 1 + the index of @s in the chunk's string table, or 0. */
static uint32_t str_find(const struct iot_writer *w, const uint8_t *s, size_t n)
{
	size_t h;

	return w->ht_cap ? str_slot(w, s, n, (uint32_t)iot_hash(s, n, 0), &h) : 0;
}

/* The path states as columns (1.3), or as messages if they cannot be. */
static int pack_states(struct iot_writer *w, Iotape__Chunk *ch)
{
	size_t i;
	int rc;

	if (iot_grow((void **)&w->ps_ref, &w->cap_ps_ref, w->n_ps ? w->n_ps : 1,
		     sizeof(*w->ps_ref)))
		return -ENOMEM;
	for (i = 0; i < w->n_ps; i++)
		w->ps_ref[i] = w->ps[i]->has_path ?
			str_find(w, w->ps[i]->path.data, w->ps[i]->path.len) : 0;
	rc = iot_ps_pack(w->ps, w->n_ps, w->ps_ref, &w->psc, ch);
	if (rc == 1) {
		ch->n_path_states = w->n_ps;
		ch->path_states = w->ps;
	}
	return rc < 0 ? rc : 0;
}

/* What the path columns store: 0 for none, 1 for a string new to the
 * chunk (the table lists strings in order of first use), k >= 2 for the
 * string introduced k-1 strings ago.  The copy of cp -a reads as 1 2 2 1:
 * constant patterns zstd removes, where plain indices grow without end. */
static long path_ref(struct iot_writer *w, const char *s, size_t n)
{
	size_t before = w->n_strs;
	long idx = intern(w, s, n);

	if (idx <= 0)
		return idx;
	return (long)before + 2 - idx;
}

static long tid_index(struct iot_writer *w, int32_t tid, int32_t pid)
{
	size_t i;

	if (w->last_tid < w->n_tids && w->tids[w->last_tid] == tid &&
	    w->tid_pids[w->last_tid] == pid)
		return (long)w->last_tid;
	for (i = 0; i < w->n_tids; i++)
		if (w->tids[i] == tid && w->tid_pids[i] == pid)
			goto found;
	if (w->n_tids == w->cap_tids) {
		size_t cap = w->cap_tids, cap2 = w->cap_tids;

		if (iot_grow((void **)&w->tids, &cap, w->n_tids + 1, sizeof(*w->tids)) ||
		    iot_grow((void **)&w->tid_pids, &cap2, w->n_tids + 1,
			     sizeof(*w->tid_pids)))
			return -ENOMEM;
		w->cap_tids = cap < cap2 ? cap : cap2;
	}
	w->tids[i] = tid;
	w->tid_pids[i] = pid;
	w->n_tids++;
found:
	w->last_tid = i;
	return (long)i;
}

static int grow_col(void **p, size_t c, size_t elem)
{
	void *q = realloc(*p, c * elem);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static int ev_grow(struct iot_writer *w)
{
	size_t c = w->cap ? w->cap * 2 : 1024;

#define G(f) grow_col((void **)&w->f, c, sizeof(*w->f))
	if (G(t_enter) || G(duration) || G(tid_idx) || G(nr) || G(nargs) ||
	    G(path) || G(path2) || G(ev_flags) || G(pre_ns) || G(cpu_ns) ||
	    G(slept_ns) || G(run_ns) || G(woke_ns) || G(waited_ns) || G(waker) || G(gap_waker) || G(ready_ns) || G(data_len) || G(ret) ||
	    G(t_lo) || G(t_hi) || G(d_lo) || G(d_hi))
		return -ENOMEM;
#undef G
	w->cap = c;
	return 0;
}

/* Turn absolute enter times into deltas, in place: each event's enter
 * time is stored relative to the exit of the previous event of the same
 * thread (its think time, small and positive), or for a thread's first
 * event in the chunk to the exit of the chunk's previous event (0 for the
 * first).  Times of different threads are not ordered: wrapping unsigned
 * arithmetic keeps every difference exact. */
static int to_deltas(struct iot_writer *w)
{
	uint64_t *last = calloc(w->n_tids ? w->n_tids : 1, sizeof(*last));
	uint8_t *seen = calloc(w->n_tids ? w->n_tids : 1, 1);
	uint64_t prev = 0, te;
	size_t i;

	if (!last || !seen) {
		free(last);
		free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < w->n; i++) {
		uint32_t t = w->tid_idx[i];

		te = (uint64_t)w->t_enter[i];
		w->t_enter[i] = (int64_t)(te - (seen[t] ? last[t] : prev));
		prev = last[t] = te + w->duration[i];
		seen[t] = 1;
	}
	free(last);
	free(seen);
	return 0;
}

/* Pack the buffered items into w->raw. */
static long pack_chunk(struct iot_writer *w, struct iot_frame *meta)
{
	Iotape__Record rec = IOTAPE__RECORD__INIT;
	Iotape__Chunk ch = IOTAPE__CHUNK__INIT;
	ProtobufCBinaryData *strs = NULL;
	size_t i;
	long len;
	int rc;

	if (w->n_strs) {
		strs = malloc(w->n_strs * sizeof(*strs));
		if (!strs)
			return -ENOMEM;
		for (i = 0; i < w->n_strs; i++) {
			strs[i].len = w->strs[i].len;
			strs[i].data = (uint8_t *)w->sbuf + w->strs[i].off;
		}
	}
	if (to_deltas(w)) {
		free(strs);
		return -ENOMEM;
	}
	ch.has_seq = 1;
	ch.seq = w->seq;
	ch.has_first_event = 1;
	ch.first_event = w->events_flushed;
	/* The 1.3 columns (FORMAT.md); a string with a 0 byte in it cannot
	 * be a name: then that chunk's table is written the older way. */
	rc = w->n_strs ? iot_names_pack(strs, w->n_strs, &w->names) : 1;
	if (rc < 0) {
		free(strs);
		return rc;
	}
	if (rc == 0) {
		ch.has_names = 1;
		ch.names.data = w->names.buf;
		ch.names.len = w->names.len;
		ch.n_name_base = ch.n_name_prefix = w->names.any_base ? w->n_strs : 0;
		ch.name_base = w->names.base;
		ch.name_prefix = w->names.prefix;
	} else {
		ch.n_strings = w->n_strs;
		ch.strings = strs;
	}
	ch.n_tids = ch.n_tid_pids = w->n_tids;
	ch.tids = w->tids;
	ch.tid_pids = w->tid_pids;
	iot_split7((const uint64_t *)w->t_enter, w->n, w->t_lo, w->t_hi);
	iot_split7(w->duration, w->n, w->d_lo, w->d_hi);
	ch.n_t_enter_lo = ch.n_t_enter_hi = ch.n_duration_lo = ch.n_duration_hi = w->n;
	ch.t_enter_lo = w->t_lo;
	ch.t_enter_hi = w->t_hi;
	ch.duration_lo = w->d_lo;
	ch.duration_hi = w->d_hi;
	ch.n_tid_idx = ch.n_nr = ch.n_ret = ch.n_nargs = ch.n_path = w->n;
	ch.tid_idx = w->tid_idx;
	ch.nr = w->nr;
	ch.ret = w->ret;
	ch.nargs = w->nargs;
	ch.n_args = w->n_args;
	ch.args = w->args;
	ch.path = w->path;
	ch.n_path2 = w->any_path2 ? w->n : 0;
	ch.path2 = w->path2;
	ch.n_ev_flags = w->any_flags ? w->n : 0;
	ch.ev_flags = w->ev_flags;
	ch.n_pre_ns = w->any_pre ? w->n : 0;
	ch.pre_ns = w->pre_ns;
	ch.n_cpu_ns = w->any_cpu ? w->n : 0;
	ch.cpu_ns = w->cpu_ns;
	ch.n_slept_ns = w->any_slept ? w->n : 0;
	ch.slept_ns = w->slept_ns;
	ch.n_run_ns = w->any_run ? w->n : 0;
	ch.run_ns = w->run_ns;
	ch.n_woke_ns = w->any_woke ? w->n : 0;
	ch.woke_ns = w->woke_ns;
	ch.n_waited_ns = w->any_waited ? w->n : 0;
	ch.waited_ns = w->waited_ns;
	ch.n_waker = w->any_waker ? w->n : 0;
	ch.waker = w->waker;
	ch.n_gap_waker = w->any_gap_waker ? w->n : 0;
	ch.gap_waker = w->gap_waker;
	ch.n_ready_ns = w->any_ready ? w->n : 0;
	ch.ready_ns = w->ready_ns;
	ch.n_data_len = w->dbuf_len ? w->n : 0;
	ch.data_len = w->data_len;
	/* the requests' bytes follow the events': a reader finds each
	 * event's without counting the requests' */
	if (w->abuf_len) {
		if (iot_grow((void **)&w->dbuf, &w->dbuf_cap, w->dbuf_len + w->abuf_len, 1)) {
			free(strs);
			return -ENOMEM;
		}
		memcpy(w->dbuf + w->dbuf_len, w->abuf, w->abuf_len);
		w->dbuf_len += w->abuf_len;
	}
	ch.has_data = w->dbuf_len != 0;
	ch.data.data = w->dbuf;
	ch.data.len = w->dbuf_len;
	if ((rc = pack_states(w, &ch))) {
		free(strs);
		return rc;
	}
	ch.n_processes = w->n_procs;
	ch.processes = w->procs;
	ch.n_async_ops = w->n_aio;
	ch.async_ops = w->aio;
	ch.n_map_pages = w->n_mp;
	ch.map_pages = w->mp;
	rec.body_case = IOTAPE__RECORD__BODY_CHUNK;
	rec.chunk = &ch;
	len = iot_pack_record(&rec, &w->raw, &w->raw_cap);
	free(strs);
	memset(meta, 0, sizeof(*meta));
	meta->first_event = w->events_flushed;
	meta->events = (uint32_t)w->n;
	meta->path_states = (uint32_t)w->n_ps;
	meta->processes = (uint32_t)w->n_procs;
	meta->t_min = w->t_min;
	meta->t_max = w->t_max;
	return len;
}

static int flush_chunk(struct iot_writer *w)
{
	struct iot_frame meta;
	long len;
	int rc;

	if (!w->n && !w->n_ps && !w->n_procs && !w->n_aio && !w->n_mp)
		return 0;
	len = pack_chunk(w, &meta);
	if (len < 0) {
		rc = (int)len;
		goto out;
	}
	rc = submit(w, &meta, len);
	w->seq++;
	w->events_flushed += w->n;
out:
	chunk_reset(w);
	if (rc)
		set_err(w, rc);
	return rc;
}

/* The time for the flush policy: CLOCK_MONOTONIC_COARSE, to the tick
 * (1-4 ms), against a period of 250 ms; read after every appended event,
 * it costs ~8 ns where CLOCK_MONOTONIC costs ~50 on this machine (5 % of
 * a bpf recorder's CPU). */
static int64_t coarse_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0)
		return iot_now_ns();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The flush policy, checked after every append. */
static int maybe_flush(struct iot_writer *w)
{
	if (w->n >= w->flush_events || w->dbuf_len + w->abuf_len >= DATA_FLUSH_BYTES)
		return flush_chunk(w);
	if (w->flush_ns >= 0) {
		int64_t now = coarse_now_ns();

		if (!w->chunk_t0)
			w->chunk_t0 = now;
		else if (now - w->chunk_t0 >= w->flush_ns)
			return flush_chunk(w);
	}
	return 0;
}

int iot_writer_event(struct iot_writer *w, const struct iot_event *ev)
{
	long p1, p2, ti;
	size_t i = w->n, k;
	uint32_t na;
	int rc;

	if ((rc = get_err(w)))
		return rc;
	na = ev->nargs > IOT_MAX_ARGS ? IOT_MAX_ARGS : ev->nargs;
	if (ev->data_len > IOT_DATA_MAX || (ev->data_len && !ev->data))
		return -EINVAL;
	if (i == w->cap && (rc = ev_grow(w)))
		return rc;
	if (iot_grow((void **)&w->args, &w->cap_args, w->n_args + na, sizeof(*w->args)) ||
	    (ev->data_len &&
	     iot_grow((void **)&w->dbuf, &w->dbuf_cap, w->dbuf_len + ev->data_len, 1)))
		return -ENOMEM;
	p1 = path_ref(w, ev->path, ev->path_len);
	p2 = path_ref(w, ev->path2, ev->path2_len);
	ti = tid_index(w, ev->tid, ev->pid);
	if (p1 < 0 || p2 < 0 || ti < 0)
		return p1 < 0 ? (int)p1 : p2 < 0 ? (int)p2 : (int)ti;
	w->t_enter[i] = ev->t_enter;
	w->duration[i] = (uint64_t)ev->t_exit - (uint64_t)ev->t_enter;
	w->tid_idx[i] = (uint32_t)ti;
	w->nr[i] = (uint32_t)ev->nr;
	w->ret[i] = ev->ret;
	w->nargs[i] = na;
	for (k = 0; k < na; k++)
		w->args[w->n_args++] = ev->args[k];
	w->path[i] = (uint32_t)p1;
	w->path2[i] = (uint32_t)p2;
	w->ev_flags[i] = ev->flags;
	w->pre_ns[i] = ev->pre_ns;
	w->cpu_ns[i] = ev->cpu_ns;
	w->slept_ns[i] = ev->slept_ns;
	w->run_ns[i] = ev->run_ns;
	w->woke_ns[i] = ev->woke_ns;
	w->waited_ns[i] = ev->waited_ns;
	w->waker[i] = ev->waker;
	w->gap_waker[i] = ev->gap_waker;
	w->ready_ns[i] = ev->ready_ns;
	w->data_len[i] = ev->data_len;
	if (ev->data_len) {
		memcpy(w->dbuf + w->dbuf_len, ev->data, ev->data_len);
		w->dbuf_len += ev->data_len;
	}
	w->any_path2 |= p2 != 0;
	w->any_flags |= ev->flags != 0;
	w->any_pre |= ev->pre_ns != 0;
	w->any_cpu |= ev->cpu_ns != 0;
	w->any_slept |= ev->slept_ns != 0;
	w->any_run |= ev->run_ns != 0;
	w->any_woke |= ev->woke_ns != 0;
	w->any_waited |= ev->waited_ns != 0;
	w->any_waker |= ev->waker != 0;
	w->any_gap_waker |= ev->gap_waker != 0;
	w->any_ready |= ev->ready_ns != 0;
	if (ev->t_enter < w->t_min)
		w->t_min = ev->t_enter;
	if (ev->t_exit > w->t_max)
		w->t_max = ev->t_exit;
	w->n++;
	w->events++;
	return maybe_flush(w);
}

/* Copy @s into the arena as protobuf bytes; NULL leaves the field absent. */
static int set_bytes(struct iot_arena *a, protobuf_c_boolean *has,
		     ProtobufCBinaryData *b, const char *s, size_t n)
{
	if (!s)
		return 0;
	if (a) {
		s = iot_arena_strndup(a, s, n);
		if (!s)
			return -ENOMEM;
	}
	*has = 1;
	b->len = n;
	b->data = (uint8_t *)s;
	return 0;
}

#define SET(m, f, v) do { (m)->has_##f = 1; (m)->f = (v); } while (0)

int iot_writer_path_state(struct iot_writer *w, const struct iot_path_state *s)
{
	const struct iot_ps_extra *e = s->extra;
	Iotape__PathState *m;
	int rc;

	if ((rc = get_err(w)))
		return rc;
	if (iot_grow((void **)&w->ps, &w->cap_ps, w->n_ps + 1, sizeof(*w->ps)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__path_state__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, s->path, s->path_len)) ||
	    (rc = set_bytes(w->arena, &m->has_target, &m->target, s->target,
			    s->target_len)))
		return rc;
	SET(m, type, s->type);
	SET(m, size, s->size);
	SET(m, mode, s->mode);
	SET(m, uid, s->uid);
	SET(m, gid, s->gid);
	SET(m, atime_ns, s->atime_ns);
	SET(m, mtime_ns, s->mtime_ns);
	SET(m, ctime_ns, s->ctime_ns);
	SET(m, nlink, s->nlink);
	SET(m, dev, s->dev);
	SET(m, ino, s->ino);
	SET(m, rdev, s->rdev);
	SET(m, flags, s->flags);
	SET(m, t_ns, s->t_ns);
	if ((s->flags & IOT_PS_SPARSE) && e && e->n_data) {
		size_t n = (size_t)e->n_data * 2;

		m->data = iot_arena_alloc(w->arena, n * sizeof(*m->data));
		if (!m->data)
			return -ENOMEM;
		memcpy(m->data, e->data, n * sizeof(*m->data));
		m->n_data = n;
	}
	if (e && e->n_xattrs) {
		uint32_t i;

		m->xattr_names = iot_arena_alloc(w->arena, e->n_xattrs * sizeof(*m->xattr_names));
		m->xattr_values = iot_arena_alloc(w->arena, e->n_xattrs * sizeof(*m->xattr_values));
		if (!m->xattr_names || !m->xattr_values)
			return -ENOMEM;
		memset(m->xattr_names, 0, e->n_xattrs * sizeof(*m->xattr_names));
		memset(m->xattr_values, 0, e->n_xattrs * sizeof(*m->xattr_values));
		for (i = 0; i < e->n_xattrs; i++) {
			const struct iot_xattr *x = &e->xattrs[i];
			protobuf_c_boolean has;

			if ((rc = set_bytes(w->arena, &has, &m->xattr_names[i], x->name,
					    x->name_len)) ||
			    (rc = set_bytes(w->arena, &has, &m->xattr_values[i],
					    (const char *)x->value, x->value_len)))
				return rc;
		}
		m->n_xattr_names = m->n_xattr_values = e->n_xattrs;
	}
	w->ps[w->n_ps++] = m;
	return maybe_flush(w);
}

int iot_writer_process(struct iot_writer *w, const struct iot_process *p)
{
	Iotape__Process *m;
	uint32_t i;
	int rc;

	if ((rc = get_err(w)))
		return rc;
	if (iot_grow((void **)&w->procs, &w->cap_procs, w->n_procs + 1, sizeof(*w->procs)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__process__init(m);
	SET(m, kind, p->kind);
	SET(m, t_ns, p->t_ns);
	SET(m, pid, p->pid);
	SET(m, tid, p->tid);
	SET(m, ppid, p->ppid);
	SET(m, ptid, p->ptid);
	SET(m, clone_flags, p->clone_flags);
	SET(m, exit_status, p->exit_status);
	SET(m, utime_ns, p->utime_ns);
	SET(m, stime_ns, p->stime_ns);
	SET(m, old_tid, p->old_tid);
	if (p->rec_ns)
		SET(m, rec_ns, p->rec_ns);
	if (p->argc && p->argv) {
		m->argv = iot_arena_alloc(w->arena, p->argc * sizeof(*m->argv));
		if (!m->argv)
			return -ENOMEM;
		for (i = 0; i < p->argc; i++) {
			const char *a = p->argv[i] ? p->argv[i] : "";
			size_t n = p->argv_len ? p->argv_len[i] : strlen(a);
			protobuf_c_boolean has;

			if ((rc = set_bytes(w->arena, &has, &m->argv[i], a, n)))
				return rc;
		}
		m->n_argv = p->argc;
	}
	if ((rc = set_bytes(w->arena, &m->has_cwd, &m->cwd, p->cwd, p->cwd_len)) ||
	    (rc = set_bytes(w->arena, &m->has_exe, &m->exe, p->exe, p->exe_len)))
		return rc;
	w->procs[w->n_procs++] = m;
	return maybe_flush(w);
}

/* The header frame: the caller's fields, the format version and the
 * syscall table. */
static int write_header(struct iot_writer *w, const struct iot_header *h)
{
	long len = iot_header_pack(h, &w->raw, &w->raw_cap);

	if (len < 0)
		return (int)len;
	return write_frame(w, w->cctx, w->level, w->raw, (size_t)len, NULL, &w->out, &w->out_cap);
}

static void writer_free(struct iot_writer *w)
{
	struct wjob *j, *next;

	if (!w)
		return;
	for (j = w->qhead; j; j = next) {
		next = j->next;
		free(j->raw);
		free(j);
	}
	ZSTD_freeCCtx(w->cctx);
	while (w->n_late--) {
		free((char *)w->late[w->n_late].key);
		free((char *)w->late[w->n_late].value);
	}
	free(w->late);
	free(w->t_enter); free(w->duration); free(w->tid_idx); free(w->nr);
	free(w->nargs); free(w->path); free(w->path2); free(w->ev_flags); free(w->pre_ns);
	free(w->cpu_ns); free(w->slept_ns); free(w->run_ns); free(w->woke_ns); free(w->waited_ns);
	free(w->waker); free(w->gap_waker); free(w->ready_ns);
	free(w->data_len); free(w->dbuf);
	free(w->abuf);
	free(w->t_lo); free(w->t_hi); free(w->d_lo); free(w->d_hi);
	iot_names_free(&w->names);
	iot_ps_cols_free(&w->psc);
	free(w->ps_ref);
	free(w->ret); free(w->args); free(w->sbuf); free(w->strs); free(w->ht);
	free(w->tids); free(w->tid_pids); free(w->ps); free(w->procs);
	free(w->aio); free(w->mp);
	free(w->raw); free(w->out); free(w->frames);
	iot_arena_free(w->arena);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}

int iot_writer_fdopen(struct iot_writer **wp, int fd, const struct iot_header *h,
		      const struct iot_writer_opts *opts)
{
	struct iot_writer *w;
	int rc;

	if (!wp || fd < 0 || !h) {
		if (fd >= 0)
			close(fd);
		return IOT_E_ARG;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->fd = fd;
	w->flush_events = opts && opts->flush_events ? opts->flush_events
						     : DEF_FLUSH_EVENTS;
	w->flush_ns = (int64_t)DEF_FLUSH_MS * 1000000;
	if (opts && opts->flush_ms)
		w->flush_ns = opts->flush_ms < 0 ? -1 : (int64_t)opts->flush_ms * 1000000;
	w->level = opts && opts->level ? opts->level : DEF_LEVEL;
	w->cctx = ZSTD_createCCtx();
	w->arena = iot_arena_new(0);
	if (!w->cctx || !w->arena) {
		rc = -ENOMEM;
		goto fail;
	}
	chunk_reset(w);
	if ((rc = write_header(w, h)))
		goto fail;
	if (opts && opts->background) {
		w->background = 1;
		if (pthread_create(&w->thread, NULL, writer_thread, w)) {
			rc = -EAGAIN;
			goto fail;
		}
		w->thread_started = 1;
	}
	*wp = w;
	return 0;
fail:
	close(w->fd);
	writer_free(w);
	return rc;
}

int iot_writer_open(struct iot_writer **wp, const char *path,
		    const struct iot_header *h, const struct iot_writer_opts *opts)
{
	int fd;

	if (!path)
		return IOT_E_ARG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return iot_writer_fdopen(wp, fd, h, opts);
}

int iot_writer_flush(struct iot_writer *w, int wait)
{
	int rc = flush_chunk(w);

	if (w->background && wait) {
		pthread_mutex_lock(&w->lock);
		while ((w->qhead || w->busy) && w->thread_started)
			pthread_cond_wait(&w->cond, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	return rc ? rc : get_err(w);
}

static void stop_thread(struct iot_writer *w)
{
	if (!w->thread_started)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->thread_started = 0;
}

int iot_writer_close(struct iot_writer *w, uint64_t dropped_events)
{
	uint8_t *idx = NULL;
	long len;
	int rc;

	if (!w)
		return IOT_E_ARG;
	flush_chunk(w);
	stop_thread(w);		/* drains the queue first */
	rc = get_err(w);
	if (!rc) {
		len = iot_index_frame(w->frames, w->n_frames, dropped_events, 1, 0,
				      w->late, w->n_late, &idx);
		rc = len < 0 ? (int)len : iot_write_all(w->fd, idx, (size_t)len);
		if (!rc)
			w->bytes += (size_t)len;
	}
	/* A pipe or /dev/null cannot fsync; that is not a failure to write. */
	if (!rc && fsync(w->fd) && errno != EINVAL && errno != EROFS)
		rc = -errno;
	if (close(w->fd) && !rc && errno != EINTR)
		rc = -errno;
	free(idx);
	writer_free(w);
	return rc;
}

void iot_writer_abort(struct iot_writer *w)
{
	if (!w)
		return;
	/* What was handed to the thread reaches the file, as it would before
	 * a kill; the chunk still being built does not. */
	stop_thread(w);
	close(w->fd);
	writer_free(w);
}

uint64_t iot_writer_bytes(const struct iot_writer *w)
{
	uint64_t b;

	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	b = w->bytes;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return b;
}

uint64_t iot_writer_events(const struct iot_writer *w)
{
	return w->events;
}

int iot_writer_set_extra(struct iot_writer *w, const char *key, const char *value)
{
	struct iot_kv *nl;
	char *k, *v;

	if (!w || !key || !value)
		return IOT_E_ARG;
	if (!(nl = realloc(w->late, (w->n_late + 1) * sizeof(*nl))))
		return -ENOMEM;
	w->late = nl;
	k = strdup(key);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	nl[w->n_late].key = k;
	nl[w->n_late].value = v;
	w->n_late++;
	return 0;
}

int iot_writer_aio(struct iot_writer *w, const struct iot_aio *a)
{
	Iotape__AsyncOp *m;
	int rc;

	if ((rc = get_err(w)))
		return rc;
	if (a->data_len > IOT_DATA_MAX || (a->data_len && !a->data))
		return -EINVAL;
	if (iot_grow((void **)&w->aio, &w->cap_aio, w->n_aio + 1, sizeof(*w->aio)) ||
	    (a->data_len &&
	     iot_grow((void **)&w->abuf, &w->abuf_cap, w->abuf_len + a->data_len, 1)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__async_op__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, a->path, a->path_len)) ||
	    (rc = set_bytes(w->arena, &m->has_path2, &m->path2, a->path2, a->path2_len)))
		return rc;
	SET(m, kind, a->kind);
	SET(m, api, a->api);
	SET(m, event, a->event);
	SET(m, t_ns, a->t_ns);
	SET(m, pid, a->pid);
	SET(m, tid, a->tid);
	SET(m, ctx, a->ctx);
	SET(m, opcode, a->opcode);
	SET(m, fd, a->fd);
	if (a->off)
		SET(m, off, a->off);
	SET(m, len, a->len);
	if (a->flags)
		SET(m, flags, a->flags);
	if (a->rw_flags)
		SET(m, rw_flags, a->rw_flags);
	SET(m, user_data, a->user_data);
	if (a->id)
		SET(m, id, a->id);
	if (a->kind != IOT_AIO_SUBMIT || a->res)
		SET(m, res, a->res);
	if (a->resfd >= 0)
		SET(m, resfd, a->resfd);
	if (a->buf_index)
		SET(m, buf_index, a->buf_index);
	if (a->nvals) {
		m->vals = iot_arena_alloc(w->arena, a->nvals * sizeof(*m->vals));
		if (!m->vals)
			return -ENOMEM;
		memcpy(m->vals, a->vals, a->nvals * sizeof(*m->vals));
		m->n_vals = a->nvals;
	}
	if (a->data_len) {
		SET(m, data_len, a->data_len);
		memcpy(w->abuf + w->abuf_len, a->data, a->data_len);
		w->abuf_len += a->data_len;
	}
	w->aio[w->n_aio++] = m;
	return maybe_flush(w);
}

static uint64_t *copy_runs(struct iot_arena *a, const uint64_t *v, uint32_t pairs)
{
	uint64_t *c = pairs ? iot_arena_alloc(a, 2 * pairs * sizeof(*c)) : NULL;

	if (c)
		memcpy(c, v, 2 * pairs * sizeof(*c));
	return c;
}

int iot_writer_mpages(struct iot_writer *w, const struct iot_mpages *mp)
{
	Iotape__MapPages *m;
	int rc;

	if ((rc = get_err(w)))
		return rc;
	if (iot_grow((void **)&w->mp, &w->cap_mp, w->n_mp + 1, sizeof(*w->mp)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__map_pages__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, mp->path, mp->path_len)))
		return rc;
	SET(m, event, mp->event);
	SET(m, t_ns, mp->t_ns);
	SET(m, pid, mp->pid);
	SET(m, tid, mp->tid);
	SET(m, page_size, mp->page_size);
	SET(m, why, mp->why);
	SET(m, addr, mp->addr);
	if (mp->flags)
		SET(m, flags, mp->flags);
	m->read_runs = copy_runs(w->arena, mp->read_runs, mp->n_read);
	m->write_runs = copy_runs(w->arena, mp->write_runs, mp->n_write);
	if ((mp->n_read && !m->read_runs) || (mp->n_write && !m->write_runs))
		return -ENOMEM;
	m->n_read_runs = 2 * (size_t)mp->n_read;
	m->n_write_runs = 2 * (size_t)mp->n_write;
	w->mp[w->n_mp++] = m;
	return maybe_flush(w);
}
