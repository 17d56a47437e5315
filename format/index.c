/*
 * index.c - the index trailer at the end of a closed trace: build it
 * (writer, iot_repair()) and check its checksum (reader).  See FORMAT.md,
 * "The index trailer".
 *
 * Since format 1.1 the Index message ends with field 10, a fixed32
 * CRC-32C of the Index bytes before it.  The frames carry zstd checksums
 * of their own, but nothing else covered the index: a flipped bit in a
 * time range or a count that still added up was believed, and seeks and
 * summaries went wrong.  A protobuf field keeps 1.0 readers working (they
 * skip a field they do not know); putting it last lets the checksum cover
 * plain bytes, with no re-encoding.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

/* Field 10, wire type 5 (fixed32): (10 << 3) | 5. */
#define IDX_CRC_TAG 0x55
#define IDX_CRC_LEN 5

/* CRC-32C (Castagnoli, reflected 0x82F63B78), four bits at a time: the
 * index is small (about 40 bytes per chunk frame), a 16-entry table is
 * fast enough and needs no initialisation. */
static const uint32_t crc32c_nibble[16] = {
	0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1,
	0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
	0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
	0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		c = (c >> 4) ^ crc32c_nibble[c & 15];
		c = (c >> 4) ^ crc32c_nibble[c & 15];
	}
	return c ^ 0xffffffffu;
}

int iot_index_check(const uint8_t *idx, size_t len, uint32_t format_minor)
{
	int has = len >= IDX_CRC_LEN && idx[len - IDX_CRC_LEN] == IDX_CRC_TAG;

	if (has && crc32c(idx, len - IDX_CRC_LEN) == iot_get_le32(idx + len - 4))
		return 1;
	/* A 1.0 index has no checksum, and one of its bytes may well be
	 * 0x55 where the tag would be: judge it as 1.0 readers do. */
	return format_minor >= 1 ? IOT_E_CORRUPT : 0;
}

long iot_index_frame(const struct iot_frame *frames, size_t n,
		     uint64_t dropped, int clean_close, int repaired,
		     const struct iot_kv *extra, size_t n_extra, uint8_t **out)
{
	Iotape__Index idx = IOTAPE__INDEX__INIT;
	Iotape__FrameInfo *fi = NULL, **fp = NULL;
	Iotape__KeyValue *kv = NULL, **kvp = NULL;
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
	if (n_extra) {
		if (iot_pb_kvs(extra, n_extra, &kv, &kvp) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		idx.n_extra = n_extra;
		idx.extra = kvp;
	}
	isz = iotape__index__get_packed_size(&idx) + IDX_CRC_LEN;
	buf = malloc(8 + isz + IOT_TRAILER_LEN);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	iot_put_le32(buf, IOT_SKIPPABLE_MAGIC);
	iot_put_le32(buf + 4, (uint32_t)(isz + IOT_TRAILER_LEN));
	iotape__index__pack(&idx, buf + 8);
	buf[8 + isz - IDX_CRC_LEN] = IDX_CRC_TAG;
	iot_put_le32(buf + 8 + isz - 4, crc32c(buf + 8, isz - IDX_CRC_LEN));
	iot_put_le32(buf + 8 + isz, (uint32_t)isz);
	memcpy(buf + 8 + isz + 4, IOT_TRAILER_MAGIC, 4);
	*out = buf;
	rc = (long)(8 + isz + IOT_TRAILER_LEN);
out:
	free(fi);
	free(fp);
	free(kv);
	free(kvp);
	return rc;
}

