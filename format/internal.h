/*
 * internal.h - private to the format library (writer, reader, repair).
 * Nothing outside format/ includes this.
 */
#ifndef IOT_INTERNAL_H
#define IOT_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

#include "iotape.h"
#include "trace.pb-c.h"

/* The index trailer: a zstd skippable frame whose content is
 * Index bytes, uint32 LE length of them, "IOTX". */
#define IOT_SKIPPABLE_MAGIC 0x184D2A50u
#define IOT_SKIPPABLE_MASK 0xFFFFFFF0u
#define IOT_TRAILER_MAGIC "IOTX"
#define IOT_TRAILER_LEN 8		/* uint32 length + "IOTX" */

/* No frame may decompress to more than this (hostile input). */
#define IOT_MAX_FRAME_CONTENT (256u << 20)
/* ... nor, past 16 MiB, at a ratio over this: zstd's best, a run block
 * (3 bytes of header and the byte) for each 128 KiB block */
#define IOT_MAX_FRAME_RATIO ((128u << 10) / 4)

/* Every frame starts with this byte: field 1 (TraceFile.record), wire
 * type 2 (length-delimited). */
#define IOT_RECORD_TAG 0x0a

/* One chunk frame as the index describes it. */
struct iot_frame {
	uint64_t offset, size;
	uint64_t first_event;
	uint32_t events, path_states, processes;
	int64_t t_min, t_max;		/* INT64_MAX/INT64_MIN if no events */
};

/*! iot_arena_keep_used() : with @on, a reset of @a keeps one block that
 *  holds all it was given since the last reset (else its largest block):
 *  for the slots decoded on a thread of their own (reader_chunk.c). */
void iot_arena_keep_used(struct iot_arena *a, int on);
/*! iot_arena_pb_allocator() : fill @pa so protobuf-c allocates from @a. */
void iot_arena_pb_allocator(struct iot_arena *a, ProtobufCAllocator *pa);

static inline uint32_t iot_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*! iot_put_le32() : store @v little-endian at @p. */
void iot_put_le32(uint8_t *p, uint32_t v);

/*! iot_grow() : make *@p (of *@cap elements of @elem bytes) hold @need.
 *  @return : 0 or -ENOMEM (then *@p is unchanged). */
int iot_grow(void **p, size_t *cap, size_t need, size_t elem);

/*! iot_pack_record() :
 *  Pack @rec behind its TraceFile tag and varint length into *@raw.
 *  @return : the length or a negative code. */
long iot_pack_record(const Iotape__Record *rec, uint8_t **raw, size_t *cap);

/*! iot_header_pack() : pack @h (plus version and syscall table) as a
 *  length-delimited Record into *@raw. @return : the length or < 0. */
long iot_header_pack(const struct iot_header *h, uint8_t **raw, size_t *cap);

/*! iot_pb_kvs() : @n key/value pairs @src as protobuf KeyValues, into
 *  *@kv and the pointers to them, *@kvp (both for the caller to free; the
 *  strings are @src's, not copied).  The header's extra pairs and the
 *  index's.  @return : 0 or -ENOMEM (nothing left allocated). */
int iot_pb_kvs(const struct iot_kv *src, size_t n, Iotape__KeyValue **kv,
	       Iotape__KeyValue ***kvp);

/*! iot_header_unpack() : fill @h from @m, strings copied into @a.
 *  @return : 0, IOT_E_NOT_IOTAPE (magic), IOT_E_VERSION or -ENOMEM. */
int iot_header_unpack(struct iot_arena *a, const Iotape__Header *m,
		      struct iot_header *h);

/*! iot_record_chunk() :
 *  Find the Chunk inside the Record bytes @buf.
 *  @return : 0 with *@chunk, *@clen set, or IOT_E_CORRUPT (not a chunk). */
int iot_record_chunk(const uint8_t *buf, size_t len, const uint8_t **chunk,
		     size_t *clen);

/*! iot_chunk_decode() :
 *  Decode Chunk bytes into *@out, allocated from @a; strings point into
 *  @buf.  Column lengths are not checked against each other here.
 *  @return : 0, IOT_E_CORRUPT or -ENOMEM. */
int iot_chunk_decode(struct iot_arena *a, const uint8_t *buf, size_t len,
		     Iotape__Chunk **out);

/* Field sets of Chunk (bit k: field k of trace.proto) for
 * iot_chunk_decode_fields(): every field; what an event's thread and
 * times need (tids, tid_pids, t_enter, duration, tid_idx and their 1.3
 * forms) with the processes, seq and first_event. */
#define IOT_CHUNK_ALL ((1ull << 63) - 1)
/* ... and, added to a set with args, leave the args column as its packed
 * bytes (struct iot_raw_args) when it is one packed record, as the
 * reference writer writes it, checked but not decoded: the reader decodes
 * each event's values as it gives the event out (reader_chunk.c). */
#define IOT_CHUNK_ARGS_RAW (1ull << 63)

/* The args column left packed: @p..@end hold n_args varints (sint64),
 * each of at most 10 bytes, the last one ending at @end.  @p is NULL when
 * the column was decoded (or is empty). */
struct iot_raw_args {
	const uint8_t *p, *end;
};
#define IOT_CHUNK_TIMES ((1ull << 1) | (1ull << 3) | (1ull << 4) | (1ull << 5) | \
			 (1ull << 6) | (1ull << 7) | (1ull << 16) | (1ull << 17) | \
			 (1ull << 24) | (1ull << 25) | (1ull << 26) | (1ull << 27))

/* ---- ahead.c: the next chunks decoded on a thread of their own ---- */

/* jobs in flight at most: chunks decoded ahead, each in a slot of its own */
#define IOT_AHEAD_MAX 4

struct iot_ahead;
/* Load frame @frame into @slot (@mode: the caller's); @return : 0 or < 0. */
typedef int (*iot_ahead_load_fn)(void *ctx, void *slot, size_t frame, int mode);

/*! iot_ahead_start() : start the thread. @return : 0 or -errno. */
int iot_ahead_start(struct iot_ahead **ap, iot_ahead_load_fn load, void *ctx);
/*! iot_ahead_post() : have @frame loaded into @slot, after the jobs
 *  posted before; the caller must not touch @slot until it takes it.
 *  @return : 1, or 0 if IOT_AHEAD_MAX jobs are posted already (not
 *            posted: the slot is the caller's). */
int iot_ahead_post(struct iot_ahead *a, void *slot, size_t frame, int mode);
/*! iot_ahead_take() : the oldest job, if it is @frame in @mode: wait for
 *  it to end.  Otherwise every job is dropped (the one in hand ended).
 *  @return : 1 with *@slot and its load's *@rc, or 0 (then no slot is
 *            the thread's). */
int iot_ahead_take(struct iot_ahead *a, size_t frame, int mode, void **slot, int *rc);
/*! iot_ahead_stop() : end the job in hand, stop and free the thread. */
void iot_ahead_stop(struct iot_ahead *a);

/*! iot_chunk_decode_fields() :
 *  As iot_chunk_decode(), but only the fields in the set @fields; the
 *  others are skipped as unknown fields are (their columns stay empty).
 *  @return : 0, IOT_E_CORRUPT or -ENOMEM. */
int iot_chunk_decode_fields(struct iot_arena *a, const uint8_t *buf, size_t len,
			    uint64_t fields, Iotape__Chunk **out);

/*! iot_chunk_decode_raw() :
 *  As iot_chunk_decode_fields(); with IOT_CHUNK_ARGS_RAW in @fields, the
 *  args column may be left packed in *@raw (then c->args is NULL and
 *  c->n_args its count).  @return : as iot_chunk_decode(). */
int iot_chunk_decode_raw(struct iot_arena *a, const uint8_t *buf, size_t len,
			 uint64_t fields, Iotape__Chunk **out, struct iot_raw_args *raw);

/*! iot_chunk_expand() :
 *  Turn the 1.3 columns of @c (names, t_enter_lo/hi, duration_lo/hi, ps_*)
 *  into strings, t_enter, duration and path_states, allocated from @a;
 *  strings then end with a 0 byte.  @return : 0, IOT_E_CORRUPT or -ENOMEM. */
int iot_chunk_expand(struct iot_arena *a, Iotape__Chunk *c);

/* The 1.3 string table being packed: names, name_base, name_prefix. */
struct iot_names {
	uint8_t *buf;
	size_t len, buf_cap;
	uint32_t *base, *prefix;
	size_t cap, cap_prefix;
	int any_base;
};

/*! iot_names_pack() : encode the @n strings @s into @nm.
 *  @return : 0; 1 if a string holds a 0 byte (then they cannot be
 *  written as names); -ENOMEM. */
int iot_names_pack(const ProtobufCBinaryData *s, size_t n, struct iot_names *nm);

/*! iot_names_free() : free @nm's buffers. */
void iot_names_free(struct iot_names *nm);

/*! iot_split7() : @lo[i] = @v[i] & 127, @hi[i] = @v[i] >> 7. */
void iot_split7(const uint64_t *v, size_t n, uint32_t *lo, uint64_t *hi);

/* The 1.3 path state columns being packed. */
struct iot_ps_cols {
	size_t cap;
	uint32_t *path, *type, *mode, *uid, *gid, *nlink, *flags, *target;
	uint64_t *size, *dev, *rdev;
	int64_t *atime, *mtime, *ctime, *ino, *t;
	uint8_t *names, *targets;
	size_t names_len, names_cap, targets_len, targets_cap;
	uint64_t *data;			/* ps_data */
	size_t data_len, data_cap;
};

/*! iot_ps_pack() :
 *  Set the path state columns of @ch from the @n states @ps; @in_table[i]
 *  is 1 + the index of state i's path in the chunk's string table, or 0.
 *  @return : 0; 1 if a path or target holds a 0 byte, or a state has
 *  extended attributes or attribute flags (then the states must be
 *  written as messages);
 *  -ENOMEM. */
int iot_ps_pack(Iotape__PathState *const *ps, size_t n, const uint32_t *in_table,
		struct iot_ps_cols *pc, Iotape__Chunk *ch);

/*! iot_ps_expand() : the path state columns of @c into c->path_states
 *  (after its strings are expanded). @return : 0, IOT_E_CORRUPT, -ENOMEM. */
int iot_ps_expand(struct iot_arena *a, Iotape__Chunk *c);

/*! iot_ps_cols_free() : free @pc's buffers. */
void iot_ps_cols_free(struct iot_ps_cols *pc);

/* A chunk frame's columns go to blocks of their own (each gets its own
 * literal table), except those shorter than this, which join the next. */
#define IOT_MIN_BLOCK 1024

/*! iot_chunk_cuts() :
 *  The offsets in the packed chunk record @raw (TraceFile tag, length,
 *  Record) where a column starts that should start a block: at most @max
 *  into @cuts, increasing.  @return : how many (0 if @raw is no chunk). */
size_t iot_chunk_cuts(const uint8_t *raw, size_t len, size_t *cuts, size_t max);

/*! iot_write_all() : write(2) until done. @return : 0 or -errno. */
int iot_write_all(int fd, const void *buf, size_t len);

/*! iot_compress_frame() : compress @len bytes of @raw as one frame. */
long iot_compress_frame(void *cctx, int level, const uint8_t *raw, size_t len,
			uint8_t **out, size_t *cap);

/*! iot_compress_frame_cuts() :
 *  The same, ending a zstd block at each of the @n increasing offsets
 *  @cuts (still one frame, which any zstd decoder reads).
 *  @return : the compressed size or a negative code. */
long iot_compress_frame_cuts(void *cctx, int level, const uint8_t *raw, size_t len,
			     const size_t *cuts, size_t n, uint8_t **out, size_t *cap);

/*! iot_index_frame() :
 *  Build the index trailer frame (skippable) for @frames, with the late
 *  header keys @extra[@n_extra] (Index.extra), into a malloc'd buffer
 *  *@out. @return : its size or a negative code. */
long iot_index_frame(const struct iot_frame *frames, size_t n,
		     uint64_t dropped, int clean_close, int repaired,
		     const struct iot_kv *extra, size_t n_extra, uint8_t **out);

/*! iot_rd_late() : the header keys @r found in the index (Index.extra),
 *  for a rewritten index to keep.  @return : how many, *@kv set. */
size_t iot_rd_late(const struct iot_reader *r, const struct iot_kv **kv);

/*! iot_index_check() :
 *  Check the checksum that ends the Index bytes @idx (@len bytes) of a
 *  file whose header says minor version @format_minor.
 *  @return : 1 checksum good; 0 none, and a 1.0 file need not have one;
 *            IOT_E_CORRUPT wrong or missing (1.1 and later). */
int iot_index_check(const uint8_t *idx, size_t len, uint32_t format_minor);

/*! iot_reader_frames() :
 *  @return : the table of good chunk frames (from the index or the walk);
 *  *@n gets its length; *@hdr_size the size of the header frame (at 0). */
const struct iot_frame *iot_reader_frames(const struct iot_reader *r, size_t *n,
					  uint64_t *hdr_size);

/*! iot_reader_data() : @return : the whole file's bytes (mapped). */
const uint8_t *iot_reader_data(const struct iot_reader *r, size_t *len);

#endif /* IOT_INTERNAL_H */
