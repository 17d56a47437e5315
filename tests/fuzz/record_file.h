/*
 * record_file.h - for the fuzz harnesses: an input that starts with 'R' is
 * not a file but the bytes of one Record, put in a chunk frame (tag,
 * length, zstd with checksum) after a valid header frame.  Mutations of a
 * compressed file mostly die at the zstd checksum; these reach the chunk
 * decoder, the column checks and what reads the events.  Definitions, not
 * only declarations: each harness is one file the Makefile compiles alone.
 */
#ifndef IOT_FUZZ_RECORD_FILE_H
#define IOT_FUZZ_RECORD_FILE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "iotape.h"
#include "internal.h"

/* The header frame of an empty trace, made once through a pipe-less
 * temporary file. */
static uint8_t *hdr;
static size_t hdr_len;

static void make_header(void)
{
	char path[] = "/tmp/iotape-fuzz-hdr.XXXXXX";
	struct iot_writer *w;
	struct iot_header h = { 0 };
	int fd = mkstemp(path);
	off_t n;

	if (fd < 0)
		abort();
	unlink(path);
	if (iot_writer_fdopen(&w, dup(fd), &h, NULL))
		abort();
	iot_writer_abort(w);	/* the header frame alone */
	n = lseek(fd, 0, SEEK_END);
	hdr = malloc((size_t)n);
	if (!hdr || pread(fd, hdr, (size_t)n, 0) != n)
		abort();
	hdr_len = (size_t)n;
	close(fd);
}

/* A trace file holding a valid header frame and one chunk frame around
 * @rec: malloc'd, its size in *@file_len; NULL if it cannot be made. */
static uint8_t *record_file(const uint8_t *rec, size_t len, size_t *file_len)
{
	static ZSTD_CCtx *cctx;
	uint8_t *raw = malloc(len + 11), *out = NULL, *file = NULL;
	size_t k = 0, cap = 0;
	uint64_t v = len;
	long n;

	if (!hdr)
		make_header();
	if (!cctx)
		cctx = ZSTD_createCCtx();
	if (!raw || !cctx)
		abort();
	raw[k++] = IOT_RECORD_TAG;
	do {
		raw[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	memcpy(raw + k, rec, len);
	n = iot_compress_frame(cctx, 1, raw, k + len, &out, &cap);
	if (n > 0 && (file = malloc(hdr_len + (size_t)n))) {
		memcpy(file, hdr, hdr_len);
		memcpy(file + hdr_len, out, (size_t)n);
		*file_len = hdr_len + (size_t)n;
	}
	free(raw);
	free(out);
	return file;
}

/* Hand @fn the input as a file: the file itself, or, after 'R', the
 * trace record_file() makes around a Record. */
static void fuzz_input(const uint8_t *data, size_t size,
		       void (*fn)(const uint8_t *file, size_t len))
{
	uint8_t *file;
	size_t len;

	if (size && data[0] == 'R') {
		file = record_file(data + 1, size - 1, &len);
		if (file)
			fn(file, len);
		free(file);
	} else {
		fn(data, size);
	}
}

#endif
