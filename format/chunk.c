/*
 * chunk.c - decode a Chunk record without protobuf-c's generic unpacker.
 *
 * protobuf-c parses packed columns one element at a time through a
 * per-type switch: over half of all decoding time.  This reads the same
 * wire format with plain varint loops into the same Iotape__Chunk struct:
 * 2.3x fewer instructions for the columns, 1.5x for reading a whole
 * trace (callgrind, 1M cp -a events).  It follows the protobuf rules a reader
 * must: fields in any order, repeated fields split over several records,
 * packed or unpacked, unknown fields skipped, last value wins for
 * scalars.  PathState and Process messages, which are few, still go
 * through protobuf-c.  The columns of format 1.3 are decoded here as
 * they are stored; iot_chunk_expand() (columns.c) turns them into the
 * older ones.  The reader may have the args column left packed
 * (iot_chunk_decode_raw()): checked here, decoded per event there.
 */
#include <errno.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* Field numbers of Chunk (trace.proto) and how a column stores values. */
#define F_MAX 56
enum col_type { C_NONE, C_U32, C_U64, C_S32, C_S64 };

static const uint8_t col_type[F_MAX + 1] = {
	[3] = C_S32, [4] = C_S32, [5] = C_S64, [6] = C_U64, [7] = C_U32,
	[8] = C_U32, [9] = C_S64, [10] = C_U32, [11] = C_S64, [12] = C_U32,
	[13] = C_U32, [14] = C_U32, [18] = C_U32, [22] = C_U32, [23] = C_U32,
	[24] = C_U32, [25] = C_U64, [26] = C_U32, [27] = C_U64, [28] = C_U32,
	[30] = C_U32, [31] = C_U64, [32] = C_U32, [33] = C_U32, [34] = C_U32,
	[35] = C_S64, [36] = C_S64, [37] = C_S64, [38] = C_U32, [39] = C_U64,
	[40] = C_S64, [41] = C_S64, [42] = C_U64, [43] = C_U32, [44] = C_U32,
	[46] = C_U32, [47] = C_U32, [49] = C_U32, [50] = C_U32, [51] = C_U32,
	[52] = C_U32, [53] = C_U32, [54] = C_U32, [55] = C_U32, [56] = C_U64,
};

struct cur {
	const uint8_t *p, *end;
};

static inline int get_varint(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 70 && c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return IOT_E_CORRUPT;
}

/* Skip a field of wire type @wt; LEN fields also give their bytes. */
static int skip_field(struct cur *c, int wt, const uint8_t **data, size_t *len)
{
	uint64_t v;

	switch (wt) {
	case WT_VARINT:
		return get_varint(c, &v);
	case WT_I64:
	case WT_I32:
		v = wt == WT_I64 ? 8 : 4;
		break;
	case WT_LEN:
		if (get_varint(c, &v))
			return IOT_E_CORRUPT;
		break;
	default:
		return IOT_E_CORRUPT;
	}
	if (v > (uint64_t)(c->end - c->p))
		return IOT_E_CORRUPT;
	if (data) {
		*data = c->p;
		*len = (size_t)v;
	}
	c->p += v;
	return 0;
}

static void *column(Iotape__Chunk *ch, unsigned f, size_t **n)
{
	switch (f) {
	case 3: *n = &ch->n_tids; return &ch->tids;
	case 4: *n = &ch->n_tid_pids; return &ch->tid_pids;
	case 5: *n = &ch->n_t_enter; return &ch->t_enter;
	case 6: *n = &ch->n_duration; return &ch->duration;
	case 7: *n = &ch->n_tid_idx; return &ch->tid_idx;
	case 8: *n = &ch->n_nr; return &ch->nr;
	case 9: *n = &ch->n_ret; return &ch->ret;
	case 10: *n = &ch->n_nargs; return &ch->nargs;
	case 11: *n = &ch->n_args; return &ch->args;
	case 12: *n = &ch->n_path; return &ch->path;
	case 13: *n = &ch->n_path2; return &ch->path2;
	case 14: *n = &ch->n_ev_flags; return &ch->ev_flags;
	case 22: *n = &ch->n_name_base; return &ch->name_base;
	case 23: *n = &ch->n_name_prefix; return &ch->name_prefix;
	case 24: *n = &ch->n_t_enter_lo; return &ch->t_enter_lo;
	case 25: *n = &ch->n_t_enter_hi; return &ch->t_enter_hi;
	case 26: *n = &ch->n_duration_lo; return &ch->duration_lo;
	case 27: *n = &ch->n_duration_hi; return &ch->duration_hi;
	case 28: *n = &ch->n_ps_path; return &ch->ps_path;
	case 30: *n = &ch->n_ps_type; return &ch->ps_type;
	case 31: *n = &ch->n_ps_size; return &ch->ps_size;
	case 32: *n = &ch->n_ps_mode; return &ch->ps_mode;
	case 33: *n = &ch->n_ps_uid; return &ch->ps_uid;
	case 34: *n = &ch->n_ps_gid; return &ch->ps_gid;
	case 35: *n = &ch->n_ps_atime; return &ch->ps_atime;
	case 36: *n = &ch->n_ps_mtime; return &ch->ps_mtime;
	case 37: *n = &ch->n_ps_ctime; return &ch->ps_ctime;
	case 38: *n = &ch->n_ps_nlink; return &ch->ps_nlink;
	case 39: *n = &ch->n_ps_dev; return &ch->ps_dev;
	case 40: *n = &ch->n_ps_ino; return &ch->ps_ino;
	case 41: *n = &ch->n_ps_t; return &ch->ps_t;
	case 42: *n = &ch->n_ps_rdev; return &ch->ps_rdev;
	case 43: *n = &ch->n_ps_flags; return &ch->ps_flags;
	case 44: *n = &ch->n_ps_target; return &ch->ps_target;
	case 46: *n = &ch->n_cpu_ns; return &ch->cpu_ns;
	case 47: *n = &ch->n_slept_ns; return &ch->slept_ns;
	case 49: *n = &ch->n_data_len; return &ch->data_len;
	case 50: *n = &ch->n_run_ns; return &ch->run_ns;
	case 51: *n = &ch->n_woke_ns; return &ch->woke_ns;
	case 52: *n = &ch->n_waited_ns; return &ch->waited_ns;
	case 53: *n = &ch->n_waker; return &ch->waker;
	case 54: *n = &ch->n_gap_waker; return &ch->gap_waker;
	case 55: *n = &ch->n_ready_ns; return &ch->ready_ns;
	case 56: *n = &ch->n_ps_data; return &ch->ps_data;
	default: *n = &ch->n_pre_ns; return &ch->pre_ns;
	}
}

static inline void store(void *arr, int type, size_t i, uint64_t v)
{
	switch (type) {
	case C_U32:
		((uint32_t *)arr)[i] = (uint32_t)v;
		break;
	case C_U64:
		((uint64_t *)arr)[i] = v;
		break;
	case C_S32:
		((int32_t *)arr)[i] = (int32_t)(((uint32_t)v >> 1) ^ -((uint32_t)v & 1));
		break;
	default:
		((int64_t *)arr)[i] = (int64_t)((v >> 1) ^ -(v & 1));
	}
}

/* The varint in the 8 bytes @w (little-endian) whose first byte without
 * the high bit is marked by @m (bit 7 of that byte): its 7-bit groups
 * packed together.  @return : the value; *@len its bytes. */
static inline uint64_t varint_in(uint64_t w, uint64_t m, unsigned *len)
{
	uint64_t t = m & -m;		/* the stop byte's bit 7 */

	*len = (unsigned)(__builtin_ctzll(t) >> 3) + 1;
	w &= t | (t - 1);		/* its bytes; the stop bit is 0 in @w */
	w = (w & 0x007f007f007f007full) | (w & 0x7f007f007f007f00ull) >> 1;
	w = (w & 0x00003fff00003fffull) | (w & 0x3fff00003fff0000ull) >> 2;
	return (w & 0x000000000fffffffull) | (w & 0x0fffffff00000000ull) >> 4;
}

/* One loop per element type, with the count in a register: a store
 * through the array may not alias it.  Varints of one to three bytes
 * take short paths, longer ones of up to 8 bytes come from one load
 * without a loop. */
#define FILL_LOOP(T, CONV) do {						\
	T *a = (T *)arr;						\
	while (c.p < c.end) {						\
		uint64_t w_, m_;					\
		unsigned l_;						\
									\
		if (!(*c.p & 0x80))					\
			v = *c.p++;					\
		else if (c.end - c.p >= 3 && !(c.p[1] & 0x80)) {	\
			v = (c.p[0] & 0x7fu) | (uint64_t)c.p[1] << 7;	\
			c.p += 2;					\
		} else if (c.end - c.p >= 3 && !(c.p[2] & 0x80)) {	\
			v = (c.p[0] & 0x7fu) | (c.p[1] & 0x7fu) << 7 |	\
			    (uint64_t)c.p[2] << 14;			\
			c.p += 3;					\
		} else if (c.end - c.p >= 8 &&				\
			   (memcpy(&w_, c.p, 8),			\
			    m_ = ~w_ & 0x8080808080808080ull)) {	\
			v = varint_in(w_, m_, &l_);			\
			c.p += l_;					\
		} else if (get_varint(&c, &v))				\
			return IOT_E_CORRUPT;				\
		a[k++] = (T)(CONV);					\
	}								\
} while (0)

/* A column of one-byte varints only (most columns: tid_idx, nargs,
 * path, the low 7 bits of the times): eight at a time, unrolled. */
#define WIDEN(T, CONV) do {						\
	T *a = (T *)arr + k;					\
	size_t i_ = 0;							\
									\
	for (; i_ + 8 <= len; i_ += 8) {				\
		v = p[i_]; a[i_] = (T)(CONV);				\
		v = p[i_ + 1]; a[i_ + 1] = (T)(CONV);			\
		v = p[i_ + 2]; a[i_ + 2] = (T)(CONV);			\
		v = p[i_ + 3]; a[i_ + 3] = (T)(CONV);			\
		v = p[i_ + 4]; a[i_ + 4] = (T)(CONV);			\
		v = p[i_ + 5]; a[i_ + 5] = (T)(CONV);			\
		v = p[i_ + 6]; a[i_ + 6] = (T)(CONV);			\
		v = p[i_ + 7]; a[i_ + 7] = (T)(CONV);			\
	}								\
	for (; i_ < len; i_++) {					\
		v = p[i_];						\
		a[i_] = (T)(CONV);					\
	}								\
} while (0)

/* How many varints end in @p..@p+@n: the bytes without the high bit,
 * eight at a time.  A slot per byte instead held four times the memory,
 * and a second chunk decoded ahead (ahead.c) doubles that. */
static size_t varints(const uint8_t *p, size_t n)
{
	size_t i = 0, k = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		/* a 1 in each byte that ends a varint, summed by the multiply
		 * into the top byte (at most 8: no carry) */
		w = (~w >> 7) & 0x0101010101010101ull;
		k += (size_t)((w * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		k += !(p[i] & 0x80);
	return k;
}

/* Append the varints of @p..@end to column @f; @single: they are all of
 * one byte. */
static int fill_packed(Iotape__Chunk *ch, unsigned f, const uint8_t *p, size_t len,
		       int single)
{
	struct cur c = { p, p + len };
	size_t *n;
	void *arr = *(void **)column(ch, f, &n);
	size_t k = *n;
	uint64_t v;

	if (!len)	/* an empty record: the column may have no array */
		return 0;
	if (single) {
		switch (col_type[f]) {
		case C_U32:
			WIDEN(uint32_t, v);
			break;
		case C_U64:
			WIDEN(uint64_t, v);
			break;
		case C_S32:
			WIDEN(int32_t, ((uint32_t)v >> 1) ^ -((uint32_t)v & 1));
			break;
		default:
			WIDEN(int64_t, (v >> 1) ^ -(v & 1));
		}
		*n = k + len;
		return 0;
	}
	switch (col_type[f]) {
	case C_U32:
		FILL_LOOP(uint32_t, v);
		break;
	case C_U64:
		FILL_LOOP(uint64_t, v);
		break;
	case C_S32:
		FILL_LOOP(int32_t, ((uint32_t)v >> 1) ^ -((uint32_t)v & 1));
		break;
	default:
		FILL_LOOP(int64_t, (v >> 1) ^ -(v & 1));
	}
	*n = k;
	return 0;
}

/* Where the args column is in the chunk (pass 0 of walk()). */
struct args_rec {
	const uint8_t *p;		/* its last packed record */
	size_t len;
	unsigned packed, unpacked;	/* records, elements not packed */
};

/* Whether @p..@p+@n are whole varints of at most 10 bytes (what
 * get_varint() takes): no run of 10 bytes with the high bit, the last
 * byte without it.  Eight bytes at a time: a run inside a word is
 * shorter than 8, so only the runs across words are added up. */
static int varints_ok(const uint8_t *p, size_t n)
{
	size_t i = 0, run = 0;

	if (!n || p[n - 1] & 0x80)
		return 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w, t;

		memcpy(&w, p + i, 8);
		t = ~w & 0x8080808080808080ull;	/* the bytes that end one */
		if (!t) {
			run += 8;
		} else {
			if (run + (size_t)(__builtin_ctzll(t) >> 3) >= 10)
				return 0;
			run = (size_t)(__builtin_clzll(t) >> 3);
		}
		if (run >= 10)
			return 0;
	}
	for (; i < n; i++) {
		run = p[i] & 0x80 ? run + 1 : 0;
		if (run >= 10)
			return 0;
	}
	return 1;
}

/* Walk the Chunk's fields.  Pass 0 counts the elements of every repeated
 * field, and marks in *@multi the packed columns that have a varint of
 * more than one byte; pass 1 fills the arrays allocated in between. */
static int walk(Iotape__Chunk *ch, const uint8_t *buf, size_t len, int pass,
		size_t *count, uint64_t *multi, struct args_rec *ar, ProtobufCAllocator *pa,
		uint64_t fields)
{
	struct cur c = { buf, buf + len };
	uint64_t key, v;
	size_t *n, dlen = 0;
	const uint8_t *data;
	int rc;

	while (c.p < c.end) {
		unsigned f;
		int wt;

		if (get_varint(&c, &key))
			return IOT_E_CORRUPT;
		f = key >> 3 <= F_MAX ? (unsigned)(key >> 3) : 0;
		if (!(fields >> f & 1))
			f = 0;		/* not asked for: skipped as unknown */
		wt = (int)(key & 7);
		if (col_type[f] && wt == WT_VARINT) {	/* unpacked element */
			if (get_varint(&c, &v))
				return IOT_E_CORRUPT;
			if (pass == 0) {
				count[f]++;
				ar->unpacked += f == 11;
			} else {
				void *arr = *(void **)column(ch, f, &n);

				store(arr, col_type[f], (*n)++, v);
			}
			continue;
		}
		if ((f == 1 || f == 17) && wt == WT_VARINT) {
			if (get_varint(&c, &v))
				return IOT_E_CORRUPT;
			if (f == 1) {
				ch->has_seq = 1;
				ch->seq = v;
			} else {
				ch->has_first_event = 1;
				ch->first_event = v;
			}
			continue;
		}
		data = NULL;
		if ((rc = skip_field(&c, wt, &data, &dlen)))
			return rc;
		if (!data || wt != WT_LEN || f == 0 || f == 1 || f == 17)
			continue;	/* unknown, or a wire type we do not expect */
		if (col_type[f]) {
			if (pass == 0) {
				size_t k = varints(data, dlen);

				count[f] += k;
				*multi |= (uint64_t)(k != dlen) << f;
				if (f == 11) {
					ar->packed++;
					ar->p = data;
					ar->len = dlen;
				}
			} else if ((rc = fill_packed(ch, f, data, dlen, !(*multi >> f & 1)))) {
				return rc;
			}
		} else if (f == 21 || f == 29 || f == 45 || f == 48) {
			/* optional bytes: the last one wins */
			ProtobufCBinaryData *b = f == 21 ? &ch->names :
						 f == 29 ? &ch->ps_names :
						 f == 45 ? &ch->ps_targets : &ch->data;

			*(f == 21 ? &ch->has_names : f == 29 ? &ch->has_ps_names :
			  f == 45 ? &ch->has_ps_targets : &ch->has_data) = 1;
			b->data = (uint8_t *)data;
			b->len = dlen;
		} else if (pass == 0) {
			count[f]++;
		} else if (f == 2) {
			ch->strings[ch->n_strings].data = (uint8_t *)data;
			ch->strings[ch->n_strings++].len = dlen;
		} else if (f == 15) {
			Iotape__PathState *m = iotape__path_state__unpack(pa, dlen, data);

			if (!m)
				return IOT_E_CORRUPT;
			ch->path_states[ch->n_path_states++] = m;
		} else if (f == 16) {
			Iotape__Process *m = iotape__process__unpack(pa, dlen, data);

			if (!m)
				return IOT_E_CORRUPT;
			ch->processes[ch->n_processes++] = m;
		} else if (f == 19) {
			Iotape__AsyncOp *m = iotape__async_op__unpack(pa, dlen, data);

			if (!m)
				return IOT_E_CORRUPT;
			ch->async_ops[ch->n_async_ops++] = m;
		} else if (f == 20) {
			Iotape__MapPages *m = iotape__map_pages__unpack(pa, dlen, data);

			if (!m)
				return IOT_E_CORRUPT;
			ch->map_pages[ch->n_map_pages++] = m;
		}
	}
	return 0;
}

static const size_t col_size[] = {
	[C_U32] = 4, [C_U64] = 8, [C_S32] = 4, [C_S64] = 8,
};

int iot_chunk_decode(struct iot_arena *a, const uint8_t *buf, size_t len,
		     Iotape__Chunk **out)
{
	return iot_chunk_decode_fields(a, buf, len, IOT_CHUNK_ALL, out);
}

int iot_chunk_decode_fields(struct iot_arena *a, const uint8_t *buf, size_t len,
			    uint64_t fields, Iotape__Chunk **out)
{
	struct iot_raw_args raw;

	return iot_chunk_decode_raw(a, buf, len, fields & ~IOT_CHUNK_ARGS_RAW, out, &raw);
}

int iot_chunk_decode_raw(struct iot_arena *a, const uint8_t *buf, size_t len,
			 uint64_t fields, Iotape__Chunk **out, struct iot_raw_args *raw)
{
	Iotape__Chunk *ch = iot_arena_alloc(a, sizeof(*ch));
	size_t count[F_MAX + 1] = { 0 }, *n, n_raw = 0;
	struct args_rec ar = { NULL, 0, 0, 0 };
	uint64_t multi = 0;
	ProtobufCAllocator pa;
	unsigned f;
	int rc;

	raw->p = raw->end = NULL;
	if (!ch)
		return -ENOMEM;
	iotape__chunk__init(ch);
	iot_arena_pb_allocator(a, &pa);
	if ((rc = walk(ch, buf, len, 0, count, &multi, &ar, &pa, fields)))
		return rc;
	/* args left packed: checked here as the fill would, then skipped */
	if ((fields & IOT_CHUNK_ARGS_RAW) && (fields >> 11 & 1) && ar.packed == 1 &&
	    !ar.unpacked && count[11]) {
		if (!varints_ok(ar.p, ar.len))
			return IOT_E_CORRUPT;
		raw->p = ar.p;
		raw->end = ar.p + ar.len;
		n_raw = count[11];
		count[11] = 0;
		fields &= ~(1ull << 11);
	}
	for (f = 2; f <= F_MAX; f++) {
		void **arr;
		size_t sz;

		if (!count[f] || f == 17 || f == 21 || f == 29 || f == 45 || f == 48)
			continue;
		if (col_type[f]) {
			arr = column(ch, f, &n);
			sz = col_size[col_type[f]];
		} else if (f == 2) {
			arr = (void **)&ch->strings;
			sz = sizeof(*ch->strings);
		} else if (f == 15) {
			arr = (void **)&ch->path_states;
			sz = sizeof(*ch->path_states);
		} else if (f == 16) {
			arr = (void **)&ch->processes;
			sz = sizeof(*ch->processes);
		} else if (f == 19) {
			arr = (void **)&ch->async_ops;
			sz = sizeof(*ch->async_ops);
		} else {
			arr = (void **)&ch->map_pages;
			sz = sizeof(*ch->map_pages);
		}
		/* counts are bounded by @len, so this cannot overflow; args
		 * has IOT_MAX_ARGS zeros of room after its values, which
		 * the reader's fill_event() reads (and masks) */
		*arr = iot_arena_alloc(a, (count[f] + (f == 11 ? IOT_MAX_ARGS : 0)) * sz);
		if (!*arr)
			return -ENOMEM;
		if (f == 11)
			memset((int64_t *)*arr + count[f], 0, IOT_MAX_ARGS * sz);
	}
	ch->has_seq = ch->has_first_event = ch->has_names = 0;
	ch->has_ps_names = ch->has_ps_targets = ch->has_data = 0;
	if ((rc = walk(ch, buf, len, 1, count, &multi, &ar, &pa, fields)))
		return rc;
	if (raw->p)
		ch->n_args = n_raw;
	*out = ch;
	return 0;
}

int iot_record_chunk(const uint8_t *buf, size_t len, const uint8_t **chunk,
		     size_t *clen)
{
	struct cur c = { buf, buf + len };
	uint64_t key;
	const uint8_t *data;
	size_t dlen = 0;
	int rc;

	*chunk = NULL;
	while (c.p < c.end) {
		if (get_varint(&c, &key))
			return IOT_E_CORRUPT;
		data = NULL;
		if ((rc = skip_field(&c, (int)(key & 7), &data, &dlen)))
			return rc;
		/* Record is a oneof: the last member present wins */
		if (key == ((2 << 3) | WT_LEN)) {
			*chunk = data;
			*clen = dlen;
		} else if (key == ((1 << 3) | WT_LEN)) {
			*chunk = NULL;
		}
	}
	return *chunk ? 0 : IOT_E_CORRUPT;
}
