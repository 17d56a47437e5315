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
#include <unistd.h>
#include <zstd.h>

#include "writer_int.h"

/* ---- writing frames (caller's thread or the writer thread) ---- */

/* The first error is set under the lock, and stored atomically so that
 * iot_wr_err(), which every appended event calls, reads it without the lock
 * (a lock and an unlock per event were 3 % of the recorder's CPU). */
void iot_wr_set_err(struct iot_writer *w, int err)
{
	pthread_mutex_lock(&w->lock);
	if (!w->err)
		__atomic_store_n(&w->err, err, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);
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

	if ((rc = iot_wr_err(w)))
		return rc;
	/* a chunk's columns in blocks of their own: FORMAT.md */
	if (meta)
		n_cuts = iot_chunk_cuts(raw, len, cuts, sizeof(cuts) / sizeof(cuts[0]));
	k = iot_compress_frame_cuts(cctx, level, raw, len, cuts, n_cuts, out, cap);
	if (k < 0) {
		iot_wr_set_err(w, (int)k);
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
			iot_wr_set_err(w, -ENOMEM);
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
int iot_wr_submit(struct iot_writer *w, const struct iot_frame *meta, long len)
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
	iot_wr_chunk_reset(w);
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
	int rc = iot_wr_flush_chunk(w);

	if (w->background && wait) {
		pthread_mutex_lock(&w->lock);
		while ((w->qhead || w->busy) && w->thread_started)
			pthread_cond_wait(&w->cond, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	return rc ? rc : iot_wr_err(w);
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
	iot_wr_flush_chunk(w);
	stop_thread(w);		/* drains the queue first */
	rc = iot_wr_err(w);
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
