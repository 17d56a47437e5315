/*
 * columns.c - the column encodings of format 1.3 (FORMAT.md, "Columns of
 * format 1.3"), both ways, and where a chunk frame's blocks end.
 *
 * What they buy, measured on 1M cp -a shaped events (tests/bench/format.sh):
 * zstd codes all literals of a block with one Huffman table, so a varint
 * column whose bytes mix uniform low 7 bits and small high parts pays about
 * a bit per byte for the mix; split in two columns (low 7 bits, the rest),
 * each in blocks of its own, the times cost 15% less.  Paths of a tree walk
 * share long prefixes with one of the last few paths (cp -a alternates
 * source and destination): stored as "the first p bytes of the string k
 * before, then this suffix", the string table costs 40% less than zstd's
 * own matches make of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

/* How many earlier strings a string's prefix is looked for in; the
 * shortest prefix worth a reference. */
#define NAME_WINDOW 8
#define NAME_MIN_PREFIX 3

static size_t common_prefix(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	size_t n = na < nb ? na : nb, i = 0;

	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

int iot_names_pack(const ProtobufCBinaryData *s, size_t n, struct iot_names *nm)
{
	size_t i, j, total = 0;

	nm->len = 0;
	nm->any_base = 0;
	for (i = 0; i < n; i++) {
		if (s[i].len && memchr(s[i].data, 0, s[i].len))
			return 1;
		total += s[i].len + 1;
	}
	if (iot_grow((void **)&nm->buf, &nm->buf_cap, total ? total : 1, 1) ||
	    iot_grow((void **)&nm->base, &nm->cap, n ? n : 1, sizeof(*nm->base)) ||
	    iot_grow((void **)&nm->prefix, &nm->cap_prefix, n ? n : 1,
		     sizeof(*nm->prefix)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		size_t best = 0, best_k = 0;

		for (j = 1; j <= NAME_WINDOW && j <= i; j++) {
			size_t p = common_prefix(s[i - j].data, s[i - j].len, s[i].data,
						 s[i].len);

			if (p > best) {
				best = p;
				best_k = j;
			}
		}
		if (best < NAME_MIN_PREFIX)
			best = best_k = 0;
		nm->base[i] = (uint32_t)best_k;
		nm->prefix[i] = (uint32_t)best;
		nm->any_base |= best_k != 0;
		if (s[i].len > best)
			memcpy(nm->buf + nm->len, s[i].data + best, s[i].len - best);
		nm->len += s[i].len - best;
		nm->buf[nm->len++] = 0;
	}
	return 0;
}

void iot_names_free(struct iot_names *nm)
{
	free(nm->buf);
	free(nm->base);
	free(nm->prefix);
	memset(nm, 0, sizeof(*nm));
}

void iot_split7(const uint64_t *v, size_t n, uint32_t *lo, uint64_t *hi)
{
	size_t i;

	for (i = 0; i < n; i++) {
		lo[i] = (uint32_t)(v[i] & 127);
		hi[i] = v[i] >> 7;
	}
}

/* How many 0 bytes @p..@p+@n holds, eight at a time. */
static size_t zeros(const uint8_t *p, size_t n)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
	size_t i = 0, k = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		/* bit 7 of each byte that is 0, exactly (no borrow across
		 * bytes), then summed into the top byte by the multiply */
		w = ~(((w & lo7) + lo7) | w | lo7);
		k += (size_t)(((w >> 7) * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		k += p[i] == 0;
	return k;
}

/* The 1.3 string table into c->strings: NUL-terminated copies in @a,
 * all in one allocation.  The first loop checks every prefix against
 * the string it is taken from and sums the lengths, so that a hostile
 * chunk cannot ask for more than it holds. */
static int expand_names(struct iot_arena *a, Iotape__Chunk *c)
{
	const uint8_t *p = c->names.data, *end = p + c->names.len;
	size_t n, i, k, pre, slen, total = 0;
	uint8_t *s;

	if (c->n_strings)
		return IOT_E_CORRUPT;	/* both tables: which one? */
	if (c->names.len && end[-1] != 0)
		return IOT_E_CORRUPT;
	n = zeros(p, c->names.len);
	if ((c->n_name_base != n && c->n_name_base != 0) ||
	    c->n_name_prefix != c->n_name_base)
		return IOT_E_CORRUPT;
	if (!n)
		return 0;
	c->strings = iot_arena_alloc(a, n * sizeof(*c->strings));
	if (!c->strings)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		slen = strlen((const char *)p);
		k = c->n_name_base ? c->name_base[i] : 0;
		pre = c->n_name_base ? c->name_prefix[i] : 0;
		if (k > i || (k == 0 && pre) || (k && pre > c->strings[i - k].len))
			return IOT_E_CORRUPT;
		/* a string is at most the whole names field plus prefixes, each
		 * of which is bounded the same way: no overflow below 2^32
		 * strings of 2^32 bytes */
		c->strings[i].len = pre + slen;
		total += pre + slen + 1;
		p += slen + 1;
	}
	s = iot_arena_alloc(a, total);
	if (!s)
		return -ENOMEM;
	for (i = 0, p = c->names.data; i < n; i++) {
		pre = c->n_name_base ? c->name_prefix[i] : 0;
		slen = c->strings[i].len - pre;
		if (pre)
			memcpy(s, c->strings[i - c->name_base[i]].data, pre);
		memcpy(s + pre, p, slen + 1);
		c->strings[i].data = s;
		s += pre + slen + 1;
		p += slen + 1;
	}
	c->n_strings = n;
	return 0;
}

/* hi * 128 + lo as a column of @n values, in place of @hi (the arena's,
 * which nothing reads after this). */
static int join7(const uint32_t *lo, size_t n_lo, uint64_t *hi, size_t n_hi,
		 uint64_t **out, size_t *n)
{
	uint32_t bad = 0;
	size_t i;

	if (*n || n_lo != n_hi)
		return IOT_E_CORRUPT;
	if (!n_lo)
		return 0;
	/* checked after the loop, which then has no branch */
	for (i = 0; i < n_lo; i++) {
		bad |= lo[i];
		hi[i] = hi[i] << 7 | lo[i];
	}
	if (bad > 127)
		return IOT_E_CORRUPT;
	*out = hi;
	*n = n_lo;
	return 0;
}

int iot_chunk_expand(struct iot_arena *a, Iotape__Chunk *c)
{
	int rc = 0;

	if (c->n_t_enter_lo || c->n_t_enter_hi)
		rc = join7(c->t_enter_lo, c->n_t_enter_lo, c->t_enter_hi,
			   c->n_t_enter_hi, (uint64_t **)&c->t_enter, &c->n_t_enter);
	if (!rc && (c->n_duration_lo || c->n_duration_hi))
		rc = join7(c->duration_lo, c->n_duration_lo, c->duration_hi,
			   c->n_duration_hi, &c->duration, &c->n_duration);
	if (!rc && c->has_names)
		rc = expand_names(a, c);
	else if (!rc && (c->n_name_base || c->n_name_prefix))
		rc = IOT_E_CORRUPT;
	return rc ? rc : iot_ps_expand(a, c);
}

/* Read a varint at *@p (< @end). @return : 0 or -1. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

size_t iot_chunk_cuts(const uint8_t *raw, size_t len, size_t *cuts, size_t max)
{
	const uint8_t *p = raw + 1, *end = raw + len, *last = raw;
	uint64_t v, key;
	unsigned prev = 0;
	size_t n = 0;

	/* TraceFile tag and length, Record.chunk tag and length */
	if (len < 2 || varint(&p, end, &v) || p >= end || *p++ != ((2 << 3) | 2) ||
	    varint(&p, end, &v))
		return 0;
	while (p < end && n < max) {
		const uint8_t *f = p;

		if (varint(&p, end, &key))
			break;
		if ((key & 7) == 2) {
			if (varint(&p, end, &v) || v > (uint64_t)(end - p))
				break;
			p += v;
		} else if ((key & 7) == 0) {
			if (varint(&p, end, &v))
				break;
		} else {
			break;		/* the writer packs no fixed-size fields */
		}
		if ((unsigned)(key >> 3) != prev && f - last >= IOT_MIN_BLOCK) {
			cuts[n++] = (size_t)(f - raw);
			last = f;
		}
		prev = (unsigned)(key >> 3);
	}
	return n;
}
