/*
 * reader.c - read iotape traces: open a file, its header, the index or a
 * walk of the frames, the summary.
 *
 * The file is mapped; each chunk frame is decompressed into one buffer and
 * decoded (reader_chunk.c, chunk.c) into an arena that is reset when the
 * reader moves on.  Opening is apart from the items because it runs once
 * and must judge the whole file (a trailer that lies, a frame cut short),
 * while reading chunks runs per item and may run on the thread of ahead.c.
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

#include "reader_int.h"

/* Both the header and the chunks come through here (reader_int.h). */
int iot_rd_decompress(struct slot *s, const uint8_t *src, size_t size,
		      const uint8_t **rec, size_t *rlen)
{
	unsigned long long cs = ZSTD_getFrameContentSize(src, size);
	size_t k, i = 1;
	uint64_t v = 0;
	int shift = 0;

	if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR ||
	    cs > IOT_MAX_FRAME_CONTENT || cs < 2)
		return IOT_E_CORRUPT;
	/* Past 16 MiB, demand a ratio zstd can reach: a tiny hostile frame
	 * must not make us allocate hundreds of megabytes.  Not a lower one:
	 * bytes a program wrote, kept by `record --data` (up to 64 MiB a
	 * call or request), can be one byte repeated, which zstd stores as
	 * a run block of 4 bytes per 128 KiB; 40 MiB of one letter written
	 * in one call made a frame over 3,900 times smaller, and the trace
	 * it was in could not be read. */
	if (cs > (16u << 20) && cs / IOT_MAX_FRAME_RATIO > size)
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
	int rc = iot_rd_decompress(&r->slots[0], src, size, &p, &len);

	if (rc)
		return rc;
	iot_arena_pb_allocator(a, &pa);
	*rec = iotape__record__unpack(&pa, len, p);
	return *rec ? 0 : IOT_E_CORRUPT;
}

/* The mapped pages of a frame that has been decompressed are not needed
 * again (a rewind faults them back in from the page cache): dropped from
 * the process, so that reading a file of any length keeps a few frames
 * resident, not all of them. */
void iot_rd_release_range(const struct iot_reader *r, uint64_t from, uint64_t to)
{
	size_t ps = (size_t)getpagesize();
	size_t lo = (size_t)from & ~(ps - 1);
	size_t hi = (size_t)to & ~(ps - 1);

	if (r->mapped && hi > lo)
		madvise((void *)(r->data + lo), hi - lo, MADV_DONTNEED);
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
		int64_t te = (int64_t)iot_rd_next_time(r, i, &x), tx = (int64_t)x;

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
		if ((rc = iot_rd_load_chunk(r, r->cur, &f, 0)))
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

/* The header keys the writer knew only later (Index.extra, format 1.3
 * without a version change) after the header's own, in the header's
 * arena: iot_header_get() finds the header's own first.  @return : 0 or
 * -ENOMEM. */
static int late_keys(struct iot_reader *r, const Iotape__Index *idx)
{
	size_t n = r->hdr.n_extra, i, k = 0;
	struct iot_kv *kv = iot_arena_alloc(r->hdr_arena, (n + idx->n_extra) * sizeof(*kv));

	if (!kv)
		return -ENOMEM;
	if (n)
		memcpy(kv, r->hdr.extra, n * sizeof(*kv));
	for (i = 0; i < idx->n_extra; i++) {
		const Iotape__KeyValue *m = idx->extra[i];

		if (!m->has_key || !m->has_value)
			continue;
		kv[n + k].key = iot_arena_strndup(r->hdr_arena, (const char *)m->key.data,
						  m->key.len);
		kv[n + k].value = iot_arena_strndup(r->hdr_arena, (const char *)m->value.data,
						    m->value.len);
		if (!kv[n + k].key || !kv[n + k].value)
			return -ENOMEM;
		k++;
	}
	r->hdr.extra = kv;
	r->hdr.n_extra = n + k;
	r->n_late = k;
	return 0;
}

size_t iot_rd_late(const struct iot_reader *r, const struct iot_kv **kv)
{
	*kv = r->hdr.extra + (r->hdr.n_extra - r->n_late);
	return r->n_late;
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
	if (idx->n_extra && late_keys(r, idx) < 0)
		goto out;
	used = 1;
out:
	if (!used) {
		r->n_frames = 0;
		r->sum.index_damaged = 1;
	}
	iot_arena_free(a);
	/* nor does the mapping keep the index's pages */
	iot_rd_release_range(r, start, r->len);
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

int iot_rd_slot_init(struct slot *s)
{
	s->arena = iot_arena_new(256 * 1024);
	s->dctx = ZSTD_createDCtx();
	return s->arena && s->dctx ? 0 : -ENOMEM;
}

void iot_rd_slot_free(struct slot *s)
{
	iot_arena_free(s->arena);
	ZSTD_freeDCtx(s->dctx);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static int reader_init(struct iot_reader *r)
{
	int rc;

	r->hdr_arena = iot_arena_new(16 * 1024);
	if (!r->hdr_arena)
		return -ENOMEM;
	if ((rc = iot_rd_slot_init(&r->slots[0])))
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
	for (i = 0; i < 1 + IOT_AHEAD_MAX; i++)
		iot_rd_slot_free(&r->slots[i]);
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
