/*
 * reader_int.h - what reader.c (opening a trace: the header, the index or
 * a walk of the frames) and reader_chunk.c (a chunk decoded into a slot,
 * the items given out) share: the reader itself, its slots, and the time
 * decoding both run over a chunk.
 *
 * Private to format/: other modules use the iot_reader_*() of iotape.h.
 */
#ifndef IOT_READER_INT_H
#define IOT_READER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

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
	uint64_t *last_exit;		/* per tid index, see iot_rd_next_time() */
	uint8_t *seen;
	int spans;			/* loaded for iot_reader_set_spans() */
	int extra;			/* has a column fill_event() may skip */
	struct iot_raw_args args;	/* the args column, if left packed */
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
	size_t n_late;			/* hdr.extra's last n_late: Index.extra */

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
	const uint8_t *arg_p;		/* the next event's, in cur->args */
	size_t i_data;			/* bytes of the chunk's data given out */
	size_t i_adata;			/* ... and where the next request's start */
	uint64_t prev_exit;		/* time decoding, see to_deltas() */
	int err;			/* sticky until rewind/seek */
	int spans;			/* iot_reader_set_spans() */
};

/* ---- reader.c ---- */

/*! iot_rd_decompress() : decompress the frame at @src into s->buf and
 * find its Record bytes.
 * @return : 0 with *@rec, *@rlen set, or IOT_E_CORRUPT / -ENOMEM. */
int iot_rd_decompress(struct slot *s, const uint8_t *src, size_t size,
		      const uint8_t **rec, size_t *rlen);
/*! iot_rd_release_range() : drop the mapped pages of [@from, @to). */
void iot_rd_release_range(const struct iot_reader *r, uint64_t from, uint64_t to);
/*! iot_rd_slot_init() : a slot's arena and decompression context.
 * @return : 0 or -ENOMEM. */
int iot_rd_slot_init(struct slot *s);

/*! iot_rd_slot_free() : what a slot holds (its arena, decompression
 *  context and buffer) let go, the slot left empty (all zeros). */
void iot_rd_slot_free(struct slot *s);

/* ---- reader_chunk.c ---- */

/*! iot_rd_load_chunk() : frame @f as the current chunk, in slot @s.
 * @return : 0, an IOT_E_ code or -ENOMEM. */
int iot_rd_load_chunk(struct iot_reader *r, struct slot *s, const struct iot_frame *f,
		      int spans);

/* Undo the writer's to_deltas(): enter time of event @i, exit in *@x. */
static inline uint64_t iot_rd_next_time(struct iot_reader *r, size_t i, uint64_t *x)
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

#endif
