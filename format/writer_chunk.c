/*
 * writer_chunk.c - the chunk a writer builds: its columns, its string
 * table and thread indexes, packed into one Chunk record when the flush
 * policy says (every flush_events events, flush_ms milliseconds, or
 * DATA_FLUSH_BYTES of kept data).  See writer.c, FORMAT.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash.h"
#include "writer_int.h"

/* ---- building a chunk ---- */

void iot_wr_chunk_reset(struct iot_writer *w)
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
long iot_wr_path_ref(struct iot_writer *w, const char *s, size_t n)
{
	size_t before = w->n_strs;
	long idx = intern(w, s, n);

	if (idx <= 0)
		return idx;
	return (long)before + 2 - idx;
}

long iot_wr_tid_index(struct iot_writer *w, int32_t tid, int32_t pid)
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

int iot_wr_ev_grow(struct iot_writer *w)
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

int iot_wr_flush_chunk(struct iot_writer *w)
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
	rc = iot_wr_submit(w, &meta, len);
	w->seq++;
	w->events_flushed += w->n;
out:
	iot_wr_chunk_reset(w);
	if (rc)
		iot_wr_set_err(w, rc);
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
int iot_wr_maybe_flush(struct iot_writer *w)
{
	if (w->n >= w->flush_events || w->dbuf_len + w->abuf_len >= DATA_FLUSH_BYTES)
		return iot_wr_flush_chunk(w);
	if (w->flush_ns >= 0) {
		int64_t now = coarse_now_ns();

		if (!w->chunk_t0)
			w->chunk_t0 = now;
		else if (now - w->chunk_t0 >= w->flush_ns)
			return iot_wr_flush_chunk(w);
	}
	return 0;
}
