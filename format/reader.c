/*
 * reader.c - read iotape traces: header, index or frame walk, chunks.
 *
 * The file is mapped; each chunk frame is decompressed into one buffer and
 * decoded (chunk.c) into an arena that is reset when the reader moves on.  Every
 * column is checked against the event count before use, so a hostile file
 * yields an error, never a wild read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "iotape.h"
#include "internal.h"

/* A chunk decoded: what it was decoded into and from.  Two of them when
 * the next chunk is decoded ahead (ahead.c): the one read, the one being
 * loaded. */
struct slot {
	ZSTD_DCtx *dctx;
	uint8_t *buf;			/* decompressed frame */
	size_t buf_cap;
	struct iot_arena *arena;
	Iotape__Chunk *ch;
	const char **str;		/* NUL-terminated copies of ch->strings */
	uint64_t *last_exit;		/* per tid index, see next_time() */
	uint8_t *seen;
	int spans;			/* loaded for iot_reader_set_spans() */
};

struct iot_reader {
	const uint8_t *data;
	size_t len;
	int mapped;

	struct iot_header hdr;
	struct iot_arena *hdr_arena;
	uint64_t hdr_size;
	struct iot_summary sum;
	struct iot_frame *frames;
	size_t n_frames;

	struct slot slots[1 + IOT_AHEAD_MAX];
	struct iot_ahead *ahead;	/* iot_reader_set_ahead() */
	int depth;			/* chunks it decodes ahead */
	size_t ahead_next;		/* the next frame to post to it */

	/* iteration */
	size_t next_frame;		/* frame to load when this one ends */
	size_t cur_frame;
	struct slot *cur;		/* the chunk being read */
	struct iot_arena *arena;	/* its arena */
	const Iotape__Chunk *ch;	/* its chunk, NULL between chunks */
	size_t i_proc, i_ps, i_ev, i_arg, i_aio, i_mp;
	size_t i_data;			/* bytes of the chunk's data given out */
	uint64_t prev_exit;		/* time decoding, see to_deltas() */
	int err;			/* sticky until rewind/seek */
	int spans;			/* iot_reader_set_spans() */
};

/* Decompress the frame at @src into s->buf and find its Record bytes.
 * @return : 0 with *@rec, *@rlen set, or IOT_E_CORRUPT / -ENOMEM. */
static int decompress_frame(struct slot *s, const uint8_t *src, size_t size,
			    const uint8_t **rec, size_t *rlen)
{
	unsigned long long cs = ZSTD_getFrameContentSize(src, size);
	size_t k, i = 1;
	uint64_t v = 0;
	int shift = 0;

	if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR ||
	    cs > IOT_MAX_FRAME_CONTENT || cs < 2)
		return IOT_E_CORRUPT;
	/* Past 16 MiB, demand a believable ratio: a tiny hostile frame must
	 * not make us allocate hundreds of megabytes. */
	if (cs > (16u << 20) && cs / 1024 > size)
		return IOT_E_CORRUPT;
	if (cs > s->buf_cap) {
		uint8_t *b = realloc(s->buf, cs);

		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->buf_cap = cs;
	}
	k = ZSTD_decompressDCtx(s->dctx, s->buf, cs, src, size);
	if (ZSTD_isError(k) || k != cs)
		return IOT_E_CORRUPT;
	if (s->buf[0] != IOT_RECORD_TAG)
		return IOT_E_CORRUPT;
	for (;;) {
		if (i >= cs || shift > 63)
			return IOT_E_CORRUPT;
		v |= (uint64_t)(s->buf[i] & 0x7f) << shift;
		shift += 7;
		if (!(s->buf[i++] & 0x80))
			break;
	}
	if (v != cs - i)
		return IOT_E_CORRUPT;
	*rec = s->buf + i;
	*rlen = cs - i;
	return 0;
}

/* Decompress and unpack a whole Record (the header) with protobuf-c. */
static int decode_frame(struct iot_reader *r, const uint8_t *src, size_t size,
			struct iot_arena *a, Iotape__Record **rec)
{
	ProtobufCAllocator pa;
	const uint8_t *p;
	size_t len;
	int rc = decompress_frame(&r->slots[0], src, size, &p, &len);

	if (rc)
		return rc;
	iot_arena_pb_allocator(a, &pa);
	*rec = iotape__record__unpack(&pa, len, p);
	return *rec ? 0 : IOT_E_CORRUPT;
}

/* Turn a path column value (see path_ref() in writer.c: 0 none, 1 the
 * next new string, k the string introduced k-1 strings ago) into the
 * table index + 1, in place.  *@seen counts the strings introduced. */
static int path_index(uint32_t *v, size_t *seen, size_t n_strings)
{
	if (*v == 0)
		return 0;
	if (*v > *seen + 1)
		return IOT_E_CORRUPT;
	if (*v == 1 && ++*seen > n_strings)
		return IOT_E_CORRUPT;
	*v = (uint32_t)(*seen + (*v == 1 ? 0 : 2 - *v));
	return 0;
}

/* A chunk decoded for spans: only its threads and times. */
static int check_times(const Iotape__Chunk *c)
{
	size_t n = c->n_t_enter, i;

	if (c->n_duration != n || c->n_tid_idx != n || n > UINT32_MAX ||
	    (c->n_tid_pids != c->n_tids && c->n_tid_pids != 0))
		return IOT_E_CORRUPT;
	for (i = 0; i < n; i++)
		if (c->tid_idx[i] >= c->n_tids)
			return IOT_E_CORRUPT;
	return 0;
}

/* Reject a chunk whose columns do not agree; resolve its path columns. */
static int check_chunk(Iotape__Chunk *c)
{
	size_t n = c->n_t_enter, i, total = 0, seen = 0;
	uint64_t data = 0;

	if (c->n_duration != n || c->n_tid_idx != n || c->n_nr != n ||
	    c->n_ret != n || c->n_nargs != n ||
	    (c->n_path != n && c->n_path != 0) ||
	    (c->n_path2 != n && c->n_path2 != 0) ||
	    (c->n_ev_flags != n && c->n_ev_flags != 0) ||
	    (c->n_pre_ns != n && c->n_pre_ns != 0) ||
	    (c->n_cpu_ns != n && c->n_cpu_ns != 0) ||
	    (c->n_slept_ns != n && c->n_slept_ns != 0) ||
	    (c->n_data_len != n && c->n_data_len != 0) ||
	    (c->n_tid_pids != c->n_tids && c->n_tid_pids != 0))
		return IOT_E_CORRUPT;
	if (n > UINT32_MAX)
		return IOT_E_CORRUPT;
	for (i = 0; i < c->n_data_len; i++) {
		/* each length is below 2^32: the sum cannot wrap */
		data += c->data_len[i];
		if (data > (c->has_data ? c->data.len : 0))
			return IOT_E_CORRUPT;
	}
	for (i = 0; i < n; i++) {
		if (c->tid_idx[i] >= c->n_tids || c->nargs[i] > IOT_MAX_ARGS)
			return IOT_E_CORRUPT;
		total += c->nargs[i];
		if ((c->n_path && path_index(&c->path[i], &seen, c->n_strings)) ||
		    (c->n_path2 && path_index(&c->path2[i], &seen, c->n_strings)))
			return IOT_E_CORRUPT;
	}
	return total == c->n_args ? 0 : IOT_E_CORRUPT;
}

/* The mapped pages of a frame that has been decompressed are not needed
 * again (a rewind faults them back in from the page cache): dropped from
 * the process, so that reading a file of any length keeps a few frames
 * resident, not all of them. */
static void release_range(const struct iot_reader *r, uint64_t from, uint64_t to)
{
	size_t ps = (size_t)getpagesize();
	size_t lo = (size_t)from & ~(ps - 1);
	size_t hi = (size_t)to & ~(ps - 1);

	if (r->mapped && hi > lo)
		madvise((void *)(r->data + lo), hi - lo, MADV_DONTNEED);
}

static void release_frame(const struct iot_reader *r, const struct iot_frame *f)
{
	release_range(r, f->offset, f->offset + f->size);
}

/* Decode frame @f as a chunk into slot @s; with @spans, only what
 * iot_reader_set_spans() gives.  Touches nothing of @r but @s, so that it
 * can run on the thread of ahead.c. */
static int load_slot(const struct iot_reader *r, struct slot *s, const struct iot_frame *f,
		     int spans)
{
	const uint8_t *rec, *cb;
	Iotape__Chunk *c;
	size_t i, len, clen;
	int rc;

	s->ch = NULL;
	iot_arena_reset(s->arena);
	if (f->offset > r->len || f->size > r->len - f->offset)
		return IOT_E_TRUNCATED;
	rc = decompress_frame(s, r->data + f->offset, f->size, &rec, &len);
	release_frame(r, f);
	if (rc || (rc = iot_record_chunk(rec, len, &cb, &clen)) ||
	    (rc = iot_chunk_decode_fields(s->arena, cb, clen,
					  spans ? IOT_CHUNK_TIMES : IOT_CHUNK_ALL, &c)) ||
	    (rc = iot_chunk_expand(s->arena, c)))
		return rc;
	if ((rc = spans ? check_times(c) : check_chunk(c)))
		return rc;
	s->spans = spans;
	s->str = NULL;
	if (c->n_strings) {
		s->str = iot_arena_alloc(s->arena, c->n_strings * sizeof(*s->str));
		if (!s->str)
			return -ENOMEM;
		for (i = 0; i < c->n_strings; i++) {
			/* names (1.3) are expanded with their 0 byte */
			s->str[i] = c->has_names ? (const char *)c->strings[i].data :
				    iot_arena_strndup(s->arena,
						      (const char *)c->strings[i].data,
						      c->strings[i].len);
			if (!s->str[i])
				return -ENOMEM;
		}
	}
	s->last_exit = iot_arena_alloc(s->arena, (c->n_tids + 1) * sizeof(*s->last_exit));
	s->seen = iot_arena_alloc(s->arena, c->n_tids + 1);
	if (!s->last_exit || !s->seen)
		return -ENOMEM;
	memset(s->seen, 0, c->n_tids + 1);
	s->ch = c;
	return 0;
}

static int ahead_load(void *ctx, void *slot, size_t frame, int spans)
{
	const struct iot_reader *r = ctx;

	return load_slot(r, slot, &r->frames[frame], spans);
}

/* Read slot @s from its start. */
static void use_slot(struct iot_reader *r, struct slot *s)
{
	r->cur = s;
	r->arena = s->arena;
	r->ch = s->ch;
	r->i_proc = r->i_ps = r->i_ev = r->i_arg = r->i_aio = r->i_mp = 0;
	r->i_data = 0;
	r->prev_exit = 0;
}

/* Frame @f as the current chunk, in slot @s. */
static int load_chunk(struct iot_reader *r, struct slot *s, const struct iot_frame *f,
		      int spans)
{
	int rc = load_slot(r, s, f, spans);

	use_slot(r, s);
	return rc;
}

/* With the thread, frame k goes to slot k mod (depth + 1): the frames
 * in flight, k + 1 to k + depth, are then never in the slot read. */
static struct slot *slot_of(struct iot_reader *r, size_t k)
{
	return &r->slots[k % (size_t)(r->depth + 1)];
}

/* Frame @k of the index as the current chunk: the one decoded ahead if it
 * is that one (else it is loaded here, and what was ahead dropped), and
 * then the thread is given the frames up to k + depth. */
static int next_chunk(struct iot_reader *r, size_t k)
{
	void *s;
	int rc;

	if (!r->ahead)
		return load_chunk(r, r->cur, &r->frames[k], r->spans);
	if (iot_ahead_take(r->ahead, k, r->spans, &s, &rc)) {
		use_slot(r, s);
	} else {
		rc = load_chunk(r, slot_of(r, k), &r->frames[k], r->spans);
		r->ahead_next = k + 1;
	}
	while (!rc && r->ahead_next < r->n_frames && r->ahead_next <= k + (size_t)r->depth &&
	       iot_ahead_post(r->ahead, slot_of(r, r->ahead_next), r->ahead_next, r->spans))
		r->ahead_next++;
	return rc;
}

/* Undo the writer's to_deltas(): enter time of event @i, exit in *@x. */
static inline uint64_t next_time(struct iot_reader *r, size_t i, uint64_t *x)
{
	const Iotape__Chunk *c = r->ch;
	struct slot *s = r->cur;
	uint32_t t = c->tid_idx[i];
	uint64_t te = (s->seen[t] ? s->last_exit[t] : r->prev_exit) +
		      (uint64_t)c->t_enter[i];

	*x = r->prev_exit = s->last_exit[t] = te + c->duration[i];
	s->seen[t] = 1;
	return te;
}

/* Fill @f's counts and time range from the loaded chunk. */
static void chunk_stats(struct iot_reader *r, struct iot_frame *f)
{
	const Iotape__Chunk *c = r->ch;
	size_t i;

	f->events = (uint32_t)c->n_t_enter;
	f->path_states = (uint32_t)c->n_path_states;
	f->processes = (uint32_t)c->n_processes;
	f->t_min = INT64_MAX;
	f->t_max = INT64_MIN;
	for (i = 0; i < c->n_t_enter; i++) {
		uint64_t x;
		int64_t te = (int64_t)next_time(r, i, &x), tx = (int64_t)x;

		if (te < f->t_min)
			f->t_min = te;
		if (tx > f->t_max)
			f->t_max = tx;
	}
}

static int add_frame(struct iot_reader *r, const struct iot_frame *f, size_t *cap)
{
	if (r->n_frames == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct iot_frame *p = realloc(r->frames, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->frames = p;
		*cap = c;
	}
	r->frames[r->n_frames++] = *f;
	return 0;
}

static void sum_frames(struct iot_reader *r)
{
	struct iot_summary *s = &r->sum;
	size_t i;

	s->frames = r->n_frames;
	s->events = s->path_states = s->processes = 0;
	s->t_min = INT64_MAX;
	s->t_max = INT64_MIN;
	for (i = 0; i < r->n_frames; i++) {
		const struct iot_frame *f = &r->frames[i];

		s->events += f->events;
		s->path_states += f->path_states;
		s->processes += f->processes;
		if (f->events && f->t_min < s->t_min)
			s->t_min = f->t_min;
		if (f->events && f->t_max > s->t_max)
			s->t_max = f->t_max;
	}
	if (!s->events)
		s->t_min = s->t_max = 0;
	s->good_t_max = s->t_max;
}

/* No usable index: walk the frames from the header on, decoding each chunk
 * to count it, and stop at the first incomplete or corrupt one. */
static int walk_frames(struct iot_reader *r)
{
	uint64_t off = r->hdr_size, events = 0;
	size_t cap = 0;
	int rc = 0;

	r->n_frames = 0;
	while (off < r->len) {
		size_t rem = r->len - off, fsz;
		struct iot_frame f;

		if (rem < 4) {
			rc = IOT_E_TRUNCATED;
			break;
		}
		if ((iot_get_le32(r->data + off) & IOT_SKIPPABLE_MASK) == IOT_SKIPPABLE_MAGIC) {
			uint32_t sz;

			if (rem < 8) {
				rc = IOT_E_TRUNCATED;
				break;
			}
			sz = iot_get_le32(r->data + off + 4);
			if (sz > rem - 8) {
				rc = IOT_E_TRUNCATED;
				break;
			}
			off += 8 + (uint64_t)sz;
			continue;
		}
		fsz = ZSTD_findFrameCompressedSize(r->data + off, rem);
		if (ZSTD_isError(fsz)) {
			rc = ZSTD_getErrorCode(fsz) == ZSTD_error_srcSize_wrong
				? IOT_E_TRUNCATED : IOT_E_CORRUPT;
			break;
		}
		memset(&f, 0, sizeof(f));
		f.offset = off;
		f.size = fsz;
		f.first_event = events;
		if ((rc = load_chunk(r, r->cur, &f, 0)))
			break;
		chunk_stats(r, &f);
		if ((rc = add_frame(r, &f, &cap)))
			break;
		events += f.events;
		off += fsz;
	}
	r->ch = NULL;
	iot_arena_reset(r->arena);
	sum_frames(r);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		r->sum.damage = rc;
		r->sum.damage_frame = r->n_frames;
		r->sum.damage_offset = off;
	}
	return 0;
}

/* Use the index trailer if it is there, its checksum is right (1.1) and it
 * agrees with the file.  A trailer that is there but fails is reported as
 * sum.index_damaged: the frames are walked instead, and their own
 * checksums vouch for every event.
 * @return : 1 if used, 0 if absent or unusable (walk instead). */
static int read_index(struct iot_reader *r)
{
	const uint8_t *d = r->data;
	uint64_t ilen, start = r->len, off, events = 0;
	Iotape__Index *idx;
	ProtobufCAllocator pa;
	struct iot_arena *a = NULL;
	size_t i, cap = 0;
	int used = 0;

	if (r->len < r->hdr_size + 8 + IOT_TRAILER_LEN ||
	    memcmp(d + r->len - 4, IOT_TRAILER_MAGIC, 4) != 0)
		return 0;
	ilen = iot_get_le32(d + r->len - 8);
	if (ilen > r->len - r->hdr_size - 8 - IOT_TRAILER_LEN)
		goto out;
	start = r->len - IOT_TRAILER_LEN - ilen - 8;
	if (iot_get_le32(d + start) != IOT_SKIPPABLE_MAGIC ||
	    iot_get_le32(d + start + 4) != ilen + IOT_TRAILER_LEN)
		goto out;
	if (iot_index_check(d + start + 8, ilen, r->hdr.format_minor) < 0)
		goto out;
	/* An arena of its own, freed below: the chunks' arena keeps its
	 * largest block, and the unpacked index of a long file (80 bytes a
	 * frame) would stay as that. */
	a = iot_arena_new(0);
	if (!a)
		goto out;
	iot_arena_pb_allocator(a, &pa);
	idx = iotape__index__unpack(&pa, ilen, d + start + 8);
	if (!idx)
		goto out;
	/* the table as long as it needs to be, not doubled to it */
	r->frames = malloc((idx->n_frames ? idx->n_frames : 1) * sizeof(*r->frames));
	if (!r->frames)
		goto out;
	cap = idx->n_frames;
	off = r->hdr_size;
	for (i = 0; i < idx->n_frames; i++) {
		const Iotape__FrameInfo *fi = idx->frames[i];
		struct iot_frame f;

		if (fi->offset != off || fi->size == 0 || fi->size > start - off ||
		    fi->first_event != events)
			goto out;
		memset(&f, 0, sizeof(f));
		f.offset = fi->offset;
		f.size = fi->size;
		f.first_event = fi->first_event;
		f.events = fi->events;
		f.path_states = fi->path_states;
		f.processes = fi->processes;
		f.t_min = fi->has_t_min ? fi->t_min : INT64_MAX;
		f.t_max = fi->has_t_max ? fi->t_max : INT64_MIN;
		if (add_frame(r, &f, &cap))
			goto out;
		off += fi->size;
		events += fi->events;
	}
	if (off != start || events != idx->events)
		goto out;
	sum_frames(r);
	r->sum.has_index = 1;
	r->sum.clean_close = idx->clean_close;
	r->sum.repaired = idx->repaired;
	r->sum.dropped_events = idx->dropped_events;
	used = 1;
out:
	if (!used) {
		r->n_frames = 0;
		r->sum.index_damaged = 1;
	}
	iot_arena_free(a);
	/* nor does the mapping keep the index's pages */
	release_range(r, start, r->len);
	return used;
}

static int read_header(struct iot_reader *r)
{
	Iotape__Record *rec;
	size_t fsz;
	int rc;

	if (r->len == 0)
		return IOT_E_EMPTY;
	if (r->len < 4 || iot_get_le32(r->data) != ZSTD_MAGICNUMBER)
		return IOT_E_NOT_IOTAPE;
	fsz = ZSTD_findFrameCompressedSize(r->data, r->len);
	if (ZSTD_isError(fsz))
		return ZSTD_getErrorCode(fsz) == ZSTD_error_srcSize_wrong
			? IOT_E_TRUNCATED : IOT_E_CORRUPT;
	rc = decode_frame(r, r->data, fsz, r->arena, &rec);
	if (rc == 0 && (rec->body_case != IOTAPE__RECORD__BODY_HEADER || !rec->header))
		rc = IOT_E_NOT_IOTAPE;
	if (rc == 0)
		rc = iot_header_unpack(r->hdr_arena, rec->header, &r->hdr);
	iot_arena_reset(r->arena);
	r->hdr_size = fsz;
	return rc;
}

static int slot_init(struct slot *s)
{
	s->arena = iot_arena_new(256 * 1024);
	s->dctx = ZSTD_createDCtx();
	return s->arena && s->dctx ? 0 : -ENOMEM;
}

static int reader_init(struct iot_reader *r)
{
	int rc;

	r->hdr_arena = iot_arena_new(16 * 1024);
	if (!r->hdr_arena)
		return -ENOMEM;
	if ((rc = slot_init(&r->slots[0])))
		return rc;
	r->cur = &r->slots[0];
	r->arena = r->cur->arena;
	r->sum.file_size = r->len;
	if ((rc = read_header(r)))
		return rc;
	if (!read_index(r))
		return walk_frames(r);
	return 0;
}

int iot_reader_open_mem(struct iot_reader **rp, const void *buf, size_t len)
{
	struct iot_reader *r;
	int rc;

	if (!rp || (!buf && len))
		return IOT_E_ARG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->data = buf;
	r->len = len;
	rc = reader_init(r);
	if (rc) {
		iot_reader_close(r);
		return rc;
	}
	*rp = r;
	return 0;
}

int iot_reader_open(struct iot_reader **rp, const char *path)
{
	struct iot_reader *r = NULL;
	struct stat st;
	void *p = NULL;
	int fd, rc;

	if (!rp || !path)
		return IOT_E_ARG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto out;
	}
	if (st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			rc = -errno;
			goto out;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = -ENOMEM;
		if (p)
			munmap(p, (size_t)st.st_size);
		goto out;
	}
	r->data = p;
	r->len = (size_t)st.st_size;
	r->mapped = p != NULL;
	rc = reader_init(r);
	if (rc) {
		iot_reader_close(r);
		goto out;
	}
	*rp = r;
out:
	close(fd);
	return rc;
}

void iot_reader_close(struct iot_reader *r)
{
	size_t i;

	if (!r)
		return;
	/* first: the thread may be reading the mapping */
	iot_ahead_stop(r->ahead);
	if (r->mapped)
		munmap((void *)r->data, r->len);
	iot_arena_free(r->hdr_arena);
	for (i = 0; i < 1 + IOT_AHEAD_MAX; i++) {
		iot_arena_free(r->slots[i].arena);
		ZSTD_freeDCtx(r->slots[i].dctx);
		free(r->slots[i].buf);
	}
	free(r->frames);
	free(r);
}

const struct iot_header *iot_reader_header(const struct iot_reader *r)
{
	return &r->hdr;
}

const struct iot_summary *iot_reader_summary(const struct iot_reader *r)
{
	return &r->sum;
}

const char *iot_header_get(const struct iot_header *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->n_extra; i++)
		if (h->extra[i].key && strcmp(h->extra[i].key, key) == 0)
			return h->extra[i].value;
	return NULL;
}

const struct iot_frame *iot_reader_frames(const struct iot_reader *r, size_t *n,
					  uint64_t *hdr_size)
{
	*n = r->n_frames;
	if (hdr_size)
		*hdr_size = r->hdr_size;
	return r->frames;
}

const uint8_t *iot_reader_data(const struct iot_reader *r, size_t *len)
{
	*len = r->len;
	return r->data;
}

/* ---- iteration ---- */

static const char *bstr(struct iot_arena *a, protobuf_c_boolean has,
			const ProtobufCBinaryData *b, uint32_t *len)
{
	*len = has ? (uint32_t)b->len : 0;
	return has ? iot_arena_strndup(a, (const char *)b->data, b->len) : NULL;
}

static int fill_process(struct iot_reader *r, const Iotape__Process *m,
			struct iot_process *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->kind = m->kind;
	p->t_ns = m->t_ns;
	p->pid = m->pid;
	p->tid = m->tid;
	p->ppid = m->ppid;
	p->ptid = m->ptid;
	p->clone_flags = m->clone_flags;
	p->exit_status = m->exit_status;
	p->utime_ns = m->utime_ns;
	p->stime_ns = m->stime_ns;
	p->old_tid = m->old_tid;
	p->cwd = bstr(r->arena, m->has_cwd, &m->cwd, &p->cwd_len);
	p->exe = bstr(r->arena, m->has_exe, &m->exe, &p->exe_len);
	if (m->n_argv) {
		const char **argv = iot_arena_alloc(r->arena, m->n_argv * sizeof(*argv));
		uint32_t *alen = iot_arena_alloc(r->arena, m->n_argv * sizeof(*alen));

		if (!argv || !alen)
			return -ENOMEM;
		for (i = 0; i < m->n_argv; i++)
			if (!(argv[i] = bstr(r->arena, 1, &m->argv[i], &alen[i])))
				return -ENOMEM;
		p->argc = (uint32_t)m->n_argv;
		p->argv = argv;
		p->argv_len = alen;
	}
	return 0;
}

static void fill_path_state(struct iot_reader *r, const Iotape__PathState *m,
			    struct iot_path_state *s)
{
	memset(s, 0, sizeof(*s));
	s->path = bstr(r->arena, m->has_path, &m->path, &s->path_len);
	s->target = bstr(r->arena, m->has_target, &m->target, &s->target_len);
	s->type = m->type;
	s->size = m->size;
	s->mode = m->mode;
	s->uid = m->uid;
	s->gid = m->gid;
	s->atime_ns = m->atime_ns;
	s->mtime_ns = m->mtime_ns;
	s->ctime_ns = m->ctime_ns;
	s->nlink = m->nlink;
	s->dev = m->dev;
	s->ino = m->ino;
	s->rdev = m->rdev;
	s->t_ns = m->t_ns;
	s->flags = m->flags;
}

static void fill_event(struct iot_reader *r, struct iot_event *ev)
{
	uint64_t t_exit;
	const Iotape__Chunk *c = r->ch;
	size_t i = r->i_ev++;
	uint32_t ti = c->tid_idx[i], p;

	ev->t_enter = (int64_t)next_time(r, i, &t_exit);
	ev->t_exit = (int64_t)t_exit;
	ev->tid = c->tids[ti];
	ev->pid = c->n_tid_pids ? c->tid_pids[ti] : ev->tid;
	ev->nr = (int32_t)c->nr[i];
	ev->flags = c->n_ev_flags ? c->ev_flags[i] : 0;
	ev->pre_ns = c->n_pre_ns ? c->pre_ns[i] : 0;
	ev->cpu_ns = c->n_cpu_ns ? c->cpu_ns[i] : 0;
	ev->slept_ns = c->n_slept_ns ? c->slept_ns[i] : 0;
	ev->data_len = c->n_data_len ? c->data_len[i] : 0;
	ev->data = ev->data_len ? c->data.data + r->i_data : NULL;
	r->i_data += ev->data_len;
	ev->ret = c->ret[i];
	ev->nargs = c->nargs[i];
	memset(ev->args, 0, sizeof(ev->args));
	if (ev->nargs) {
		memcpy(ev->args, c->args + r->i_arg, ev->nargs * sizeof(ev->args[0]));
		r->i_arg += ev->nargs;
	}
	p = c->n_path ? c->path[i] : 0;
	ev->path = p ? r->cur->str[p - 1] : NULL;
	ev->path_len = p ? (uint32_t)c->strings[p - 1].len : 0;
	p = c->n_path2 ? c->path2[i] : 0;
	ev->path2 = p ? r->cur->str[p - 1] : NULL;
	ev->path2_len = p ? (uint32_t)c->strings[p - 1].len : 0;
}

/* All the events of the current chunk as one span. */
static void fill_span(struct iot_reader *r, struct iot_span *sp)
{
	const Iotape__Chunk *c = r->ch;
	uint32_t t0 = c->tid_idx[r->i_ev];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	sp->events = c->n_t_enter - r->i_ev;
	sp->tid = c->tids[t0];
	sp->pid = c->n_tid_pids ? c->tid_pids[t0] : sp->tid;
	for (i = r->i_ev; i < c->n_t_enter; i++) {
		uint64_t x;
		int64_t te = (int64_t)next_time(r, i, &x);
		int64_t end = (int64_t)x > te ? (int64_t)x : te;

		if (te < lo)
			lo = te;
		if (end > hi)
			hi = end;
	}
	r->i_ev = c->n_t_enter;
	sp->t_min = lo;
	sp->t_end = hi;
}

static void fill_aio(struct iot_reader *r, const Iotape__AsyncOp *m,
		     struct iot_aio *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = m->kind;
	a->api = m->api;
	a->event = m->event;
	a->t_ns = m->t_ns;
	a->pid = m->pid;
	a->tid = m->tid;
	a->ctx = m->ctx;
	a->opcode = m->opcode;
	a->fd = m->fd;
	a->off = m->off;
	a->len = m->len;
	a->flags = m->flags;
	a->rw_flags = m->rw_flags;
	a->user_data = m->user_data;
	a->id = m->id;
	a->res = m->res;
	a->resfd = m->has_resfd ? m->resfd : -1;
	a->buf_index = m->buf_index;
	a->nvals = (uint32_t)m->n_vals;
	a->vals = m->vals;
	a->path = bstr(r->arena, m->has_path, &m->path, &a->path_len);
	a->path2 = bstr(r->arena, m->has_path2, &m->path2, &a->path2_len);
}

/* A chunk that fails to decode although the index listed it: report it
 * as damage and stop there. */
static int chunk_damage(struct iot_reader *r, size_t frame, int rc)
{
	r->err = rc;
	if (rc == IOT_E_CORRUPT || rc == IOT_E_TRUNCATED) {
		if (!r->sum.damage || frame < r->sum.damage_frame) {
			r->sum.damage = rc;
			r->sum.damage_frame = frame;
			r->sum.damage_offset = r->frames[frame].offset;
			r->sum.good_t_max = frame ? r->frames[frame - 1].t_max : 0;
		}
	}
	return rc;
}

int iot_reader_next(struct iot_reader *r, struct iot_item *it)
{
	int rc;

	for (;;) {
		const Iotape__Chunk *c = r->ch;

		if (r->err)
			return r->err;
		if (!c) {
			const struct iot_frame *f;

			if (r->next_frame >= r->n_frames)
				return 0;
			f = &r->frames[r->next_frame];
			rc = next_chunk(r, r->next_frame);
			if (!rc && r->ch->n_t_enter != f->events)
				rc = IOT_E_CORRUPT;
			if (rc) {
				r->ch = NULL;
				return chunk_damage(r, r->next_frame, rc);
			}
			r->cur_frame = r->next_frame++;
			continue;
		}
		it->chunk = r->cur_frame;
		if (r->i_proc < c->n_processes) {
			it->kind = IOT_ITEM_PROCESS;
			rc = fill_process(r, c->processes[r->i_proc++], &it->u.proc);
			return rc ? rc : 1;
		}
		if (r->cur->spans) {
			if (r->i_ev < c->n_t_enter) {
				it->kind = IOT_ITEM_SPAN;
				fill_span(r, &it->u.span);
				return 1;
			}
			r->ch = NULL;
			continue;
		}
		if (r->i_ps < c->n_path_states) {
			it->kind = IOT_ITEM_PATH_STATE;
			fill_path_state(r, c->path_states[r->i_ps++], &it->u.ps);
			return 1;
		}
		if (r->i_ev < c->n_t_enter) {
			it->kind = IOT_ITEM_EVENT;
			fill_event(r, &it->u.ev);
			return 1;
		}
		if (r->i_aio < c->n_async_ops) {
			it->kind = IOT_ITEM_AIO;
			fill_aio(r, c->async_ops[r->i_aio++], &it->u.aio);
			return 1;
		}
		if (r->i_mp < c->n_map_pages) {
			const Iotape__MapPages *m = c->map_pages[r->i_mp++];
			struct iot_mpages *mp = &it->u.mp;

			it->kind = IOT_ITEM_MPAGES;
			memset(mp, 0, sizeof(*mp));
			mp->event = m->event;
			mp->t_ns = m->t_ns;
			mp->pid = m->pid;
			mp->tid = m->tid;
			mp->path = bstr(r->arena, m->has_path, &m->path, &mp->path_len);
			mp->page_size = m->page_size ? m->page_size : 4096;
			mp->n_read = (uint32_t)(m->n_read_runs / 2);
			mp->n_write = (uint32_t)(m->n_write_runs / 2);
			mp->read_runs = m->read_runs;
			mp->write_runs = m->write_runs;
			mp->why = m->why;
			mp->addr = m->addr;
			mp->flags = m->flags;
			return 1;
		}
		r->ch = NULL;
	}
}

int iot_reader_seek_frame(struct iot_reader *r, uint64_t frame)
{
	if (frame > r->n_frames)
		return IOT_E_RANGE;
	r->ch = NULL;
	r->err = 0;
	r->next_frame = (size_t)frame;
	return 0;
}

int iot_reader_set_ahead(struct iot_reader *r, int on)
{
	int depth = on < 0 ? 0 : on > IOT_AHEAD_MAX ? IOT_AHEAD_MAX : on, i, rc = 0;

	if (r->ahead && depth == r->depth)
		return 0;
	/* off, or another depth: the slots change */
	iot_ahead_stop(r->ahead);
	r->ahead = NULL;
	r->depth = 0;
	for (i = 1; !rc && i <= depth; i++)
		if (!r->slots[i].dctx)
			rc = slot_init(&r->slots[i]);
	if (!rc && depth)
		rc = iot_ahead_start(&r->ahead, ahead_load, r);
	if (!rc)
		r->depth = depth;
	return rc;
}

void iot_reader_set_spans(struct iot_reader *r, int on)
{
	r->spans = on != 0;
}

int iot_reader_rewind(struct iot_reader *r)
{
	return iot_reader_seek_frame(r, 0);
}

int iot_reader_seek_time(struct iot_reader *r, int64_t t_ns)
{
	size_t i;

	for (i = 0; i < r->n_frames; i++)
		if (r->frames[i].events && r->frames[i].t_max >= t_ns)
			return iot_reader_seek_frame(r, i);
	iot_reader_seek_frame(r, r->n_frames);
	return IOT_E_RANGE;
}
