/*
 * frame.c - zstd frames, shared by the writer and iot_repair() (the
 * index trailer is in index.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* for ZSTD_c_useBlockSplitter, an experimental parameter */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "iotape.h"
#include "internal.h"

int iot_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

int iot_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

long iot_compress_frame(void *cctx, int level, const uint8_t *raw, size_t len,
			uint8_t **out, size_t *cap)
{
	return iot_compress_frame_cuts(cctx, level, raw, len, NULL, 0, out, cap);
}

long iot_compress_frame_cuts(void *cctx, int level, const uint8_t *raw, size_t len,
			     const size_t *cuts, size_t n, uint8_t **out, size_t *cap)
{
	/* each flush may add a block header beyond the bound */
	size_t bound = ZSTD_compressBound(len) + 8 * n + 64, done = 0, i, r;
	ZSTD_outBuffer ob;

	if (iot_grow((void **)out, cap, bound, 1))
		return -ENOMEM;
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	/* A chunk is a row of columns of different byte statistics (varint
	 * times, small codes, path text); each gets its own block, and so
	 * its own literal table, from the cuts the writer knows (flushes at
	 * column starts).  zstd's block splitter, which guessed them before
	 * (-3% at level 3, FORMAT.md), now saves 0.02% on top of the cuts
	 * and cost 30% of level 3's instructions (a 191,489-event bpf
	 * recording: 1,635,085 bytes, 220 M instructions with it; 1,635,346,
	 * 154 M without): off, whatever the library's default. */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_useBlockSplitter, ZSTD_ps_disable);
	/* the content size goes into the frame header, as readers demand */
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cctx, len)))
		return -EIO;
	ob.dst = *out;
	ob.size = *cap;
	ob.pos = 0;
	for (i = 0; i <= n; i++) {
		size_t end = i < n ? cuts[i] : len;
		ZSTD_inBuffer ib;

		if (end < done || end > len)
			return IOT_E_ARG;
		ib.src = raw + done;
		ib.size = end - done;
		ib.pos = 0;
		do {
			r = ZSTD_compressStream2(cctx, &ob, &ib,
						 i < n ? ZSTD_e_flush : ZSTD_e_end);
			if (ZSTD_isError(r) || (r && ob.pos == ob.size))
				return -EIO;
		} while (r || ib.pos < ib.size);
		done = end;
	}
	return (long)ob.pos;
}

long iot_pack_record(const Iotape__Record *rec, uint8_t **raw, size_t *cap)
{
	size_t sz = iotape__record__get_packed_size(rec), k = 0;
	uint64_t v = sz;

	if (iot_grow((void **)raw, cap, sz + 11, 1))
		return -ENOMEM;
	(*raw)[k++] = IOT_RECORD_TAG;
	do {
		(*raw)[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	iotape__record__pack(rec, *raw + k);
	return (long)(k + sz);
}

void iot_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}
