/*
 * hash.h - the one string hash of iotape: the recorder's path set, the
 * writer's string tables and the replayer's maps all use it.
 *
 * Eight bytes a step (a multiply and a shift per word): FNV's multiply
 * per byte took ~80 ns on a 60-byte path, and the recorder hashed every
 * path it met.  The length is mixed in last, not first, so that the
 * state after the first k words does not depend on where the string
 * ends: iot_hash_prefixes() gets the hash of every "/"-prefix of a path
 * in the one pass that hashes the path, each equal to iot_hash() of that
 * prefix.  Header only: nothing of it is exported by libiotape.
 */
#ifndef IOT_HASH_H
#define IOT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IOT_HASH_M 0xff51afd7ed558ccdULL

static inline uint64_t iot_hash_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * IOT_HASH_M;
	return h ^ (h >> 29);
}

static inline uint64_t iot_hash_end(uint64_t h, size_t n)
{
	h ^= (uint64_t)n * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/*! iot_hash() : a 64-bit hash of the @n bytes at @s; @seed picks one of
 *  a family (maps keyed by different things use different seeds). */
static inline uint64_t iot_hash(const void *s, size_t n, uint64_t seed)
{
	const unsigned char *p = s;
	uint64_t h = seed, w;
	size_t left = n;

	for (; left >= 8; p += 8, left -= 8) {
		memcpy(&w, p, 8);
		h = iot_hash_step(h, w);
	}
	if (left) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* the last 8 bytes in one load, shifted down to the last
		 * @left: the same word as the zero-padded copy below, which
		 * gcc makes byte stores read back as one word, a stall (a
		 * third of the recorder's hashing of paths) */
		if (n >= 8) {
			memcpy(&w, p + left - 8, 8);
			w >>= 8 * (8 - left);
		} else
#endif
		{
			w = 0;
			memcpy(&w, p, left);
		}
		h = iot_hash_step(h, w);
	}
	return iot_hash_end(h, n);
}

/* iot_hash() of bytes given a piece at a time: a state to copy, keep
 * and go back to (a path cleaned component by component). */
struct iot_hasher {
	uint64_t h;
	size_t n;			/* bytes so far */
	unsigned char part[8];		/* the last n % 8 of them */
};

static inline void iot_hasher_init(struct iot_hasher *s, uint64_t seed)
{
	s->h = seed;
	s->n = 0;
}

static inline void iot_hasher_add(struct iot_hasher *s, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t w;

	while (len > 0) {
		size_t have = s->n & 7, take = 8 - have < len ? 8 - have : len;

		memcpy(s->part + have, b, take);
		s->n += take;
		b += take;
		len -= take;
		if ((s->n & 7) == 0) {
			memcpy(&w, s->part, 8);
			s->h = iot_hash_step(s->h, w);
		}
	}
}

/*! iot_hasher_value() : iot_hash() of every byte added so far. */
static inline uint64_t iot_hasher_value(const struct iot_hasher *s)
{
	uint64_t h = s->h, w = 0;

	if (s->n & 7) {
		memcpy(&w, s->part, s->n & 7);
		h = iot_hash_step(h, w);
	}
	return iot_hash_end(h, s->n);
}

/* Bit 7 of each byte of @w that equals @c (exact: no carries between
 * bytes, unlike the shorter has-zero test). */
static inline uint64_t iot_hash_bytes_eq(uint64_t w, unsigned char c)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t x = w ^ (0x0101010101010101ULL * c);

	return ~(((x & lo7) + lo7) | x | lo7);
}

/*! iot_hash_prefixes() :
 *  Hash the @n bytes at @s with @seed, and in the same pass each prefix
 *  that ends before a '/' at an offset >= 1 ("/a" and "/a/b" of
 *  "/a/b/c"): its length in @len[k] and iot_hash(s, len[k], seed) in
 *  @h[k], shortest first, at most @max of them.
 *  @return : the hash of all @n bytes; *@count : the prefixes stored. */
static inline uint64_t iot_hash_prefixes(const char *s, size_t n, uint64_t seed, uint32_t *len,
					 uint64_t *h, size_t max, size_t *count)
{
	uint64_t st = seed, w, pw;
	size_t off, k = 0;

	for (off = 0; off < n; off += 8) {
		size_t m = n - off < 8 ? n - off : 8, j;

		w = 0;
		memcpy(&w, s + off, m);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		{
			uint64_t hit = iot_hash_bytes_eq(w, '/');

			/* the zero padding of a short last word is no '/' */
			for (; hit; hit &= hit - 1) {
				j = (size_t)__builtin_ctzll(hit) / 8;
				if (off + j == 0 || k == max)
					continue;
				pw = j ? iot_hash_step(st, w & ((1ULL << (8 * j)) - 1)) : st;
				len[k] = (uint32_t)(off + j);
				h[k++] = iot_hash_end(pw, off + j);
			}
		}
#else
		for (j = 0; j < m; j++) {
			if (s[off + j] != '/' || off + j == 0 || k == max)
				continue;
			pw = 0;
			memcpy(&pw, s + off, j);
			len[k] = (uint32_t)(off + j);
			h[k++] = iot_hash_end(j ? iot_hash_step(st, pw) : st, off + j);
		}
#endif
		st = iot_hash_step(st, w);
	}
	*count = k;
	return iot_hash_end(st, n);
}

#endif
