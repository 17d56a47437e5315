/*
 * frame.c - zstd frames and the index trailer, shared by the writer and
 * iot_repair().
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
	size_t bound = ZSTD_compressBound(len), k;

	if (iot_grow((void **)out, cap, bound, 1))
		return -ENOMEM;
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	/* A chunk is a row of columns of different byte statistics (varint
	 * times, small codes, path text); splitting the block where they
	 * change gives each its own literal table: -3% at level 3 (see
	 * FORMAT.md).  A libzstd without the parameter just says no. */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_useBlockSplitter, ZSTD_ps_enable);
	k = ZSTD_compress2(cctx, *out, *cap, raw, len);
	if (ZSTD_isError(k))
		return -EIO;
	return (long)k;
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

long iot_frame_record(void *cctx, int level, const Iotape__Record *rec,
		      uint8_t **raw, size_t *raw_cap, uint8_t **out, size_t *cap)
{
	long len = iot_pack_record(rec, raw, raw_cap);

	if (len < 0)
		return len;
	return iot_compress_frame(cctx, level, *raw, (size_t)len, out, cap);
}

void iot_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

long iot_index_frame(const struct iot_frame *frames, size_t n,
		     uint64_t dropped, int clean_close, int repaired,
		     uint8_t **out)
{
	Iotape__Index idx = IOTAPE__INDEX__INIT;
	Iotape__FrameInfo *fi = NULL, **fp = NULL;
	uint64_t events = 0, ps = 0, procs = 0;
	int64_t t_min = INT64_MAX, t_max = INT64_MIN;
	size_t i, isz;
	uint8_t *buf;
	long rc;

	if (n) {
		fi = calloc(n, sizeof(*fi));
		fp = calloc(n, sizeof(*fp));
		if (!fi || !fp) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		const struct iot_frame *f = &frames[i];

		iotape__frame_info__init(&fi[i]);
		fi[i].has_offset = fi[i].has_size = fi[i].has_first_event = 1;
		fi[i].offset = f->offset;
		fi[i].size = f->size;
		fi[i].first_event = f->first_event;
		fi[i].has_events = fi[i].has_path_states = fi[i].has_processes = 1;
		fi[i].events = f->events;
		fi[i].path_states = f->path_states;
		fi[i].processes = f->processes;
		if (f->events) {
			fi[i].has_t_min = fi[i].has_t_max = 1;
			fi[i].t_min = f->t_min;
			fi[i].t_max = f->t_max;
			if (f->t_min < t_min)
				t_min = f->t_min;
			if (f->t_max > t_max)
				t_max = f->t_max;
		}
		events += f->events;
		ps += f->path_states;
		procs += f->processes;
		fp[i] = &fi[i];
	}
	idx.n_frames = n;
	idx.frames = fp;
	idx.has_events = idx.has_path_states = idx.has_processes = 1;
	idx.events = events;
	idx.path_states = ps;
	idx.processes = procs;
	idx.has_dropped_events = 1;
	idx.dropped_events = dropped;
	idx.has_clean_close = 1;
	idx.clean_close = clean_close;
	idx.has_repaired = 1;
	idx.repaired = repaired;
	if (events) {
		idx.has_t_min = idx.has_t_max = 1;
		idx.t_min = t_min;
		idx.t_max = t_max;
	}
	isz = iotape__index__get_packed_size(&idx);
	buf = malloc(8 + isz + IOT_TRAILER_LEN);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	iot_put_le32(buf, IOT_SKIPPABLE_MAGIC);
	iot_put_le32(buf + 4, (uint32_t)(isz + IOT_TRAILER_LEN));
	iotape__index__pack(&idx, buf + 8);
	iot_put_le32(buf + 8 + isz, (uint32_t)isz);
	memcpy(buf + 8 + isz + 4, IOT_TRAILER_MAGIC, 4);
	*out = buf;
	rc = (long)(8 + isz + IOT_TRAILER_LEN);
out:
	free(fi);
	free(fp);
	return rc;
}

