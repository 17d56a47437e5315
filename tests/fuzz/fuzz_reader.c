/*
 * fuzz_reader.c - libFuzzer entry: open a buffer as a trace, read every
 * item, rewind, seek by frame and by time, read again.
 *
 * An input that starts with 'R' is not a file but the bytes of one Record:
 * the harness puts it in a chunk frame (tag, length, zstd with checksum)
 * after a valid header frame.  Mutations of a compressed file mostly die at
 * the zstd checksum; these reach the chunk decoder and the column checks.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "iotape.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain(struct iot_reader *r, size_t max)
{
	struct iot_item it;
	volatile uint64_t sink = 0;

	while (max-- && iot_reader_next(r, &it) > 0) {
		/* touch what the item points to, as a consumer would */
		if (it.kind == IOT_ITEM_EVENT && it.u.ev.path)
			sink += (uint8_t)it.u.ev.path[it.u.ev.path_len];
		if (it.kind == IOT_ITEM_EVENT && it.u.ev.path2)
			sink += (uint8_t)it.u.ev.path2[it.u.ev.path2_len];
		if (it.kind == IOT_ITEM_EVENT)
			sink += (uint64_t)it.u.ev.args[it.u.ev.nargs ? it.u.ev.nargs - 1 : 0];
		if (it.kind == IOT_ITEM_PATH_STATE && it.u.ps.path)
			sink += (uint8_t)it.u.ps.path[it.u.ps.path_len];
		if (it.kind == IOT_ITEM_PROCESS && it.u.proc.argc)
			sink += (uint8_t)it.u.proc.argv[it.u.proc.argc - 1][0];
	}
	(void)sink;
}

static void run(const uint8_t *data, size_t size)
{
	struct iot_reader *r;
	const struct iot_summary *s;
	const struct iot_header *h;

	if (iot_reader_open_mem(&r, data, size))
		return;
	h = iot_reader_header(r);
	s = iot_reader_summary(r);
	(void)iot_header_get(h, "x");
	drain(r, 1u << 20);
	iot_reader_rewind(r);
	drain(r, 1u << 20);
	if (s->frames) {
		iot_reader_seek_frame(r, s->frames - 1);
		drain(r, 1u << 20);
	}
	iot_reader_seek_frame(r, s->frames + 1);
	iot_reader_seek_time(r, s->t_min + (s->t_max - s->t_min) / 2);
	drain(r, 1u << 20);
	iot_reader_close(r);
}

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

static void run_record(const uint8_t *rec, size_t len)
{
	static ZSTD_CCtx *cctx;
	uint8_t *raw = malloc(len + 11), *out = NULL, *file;
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
		run(file, hdr_len + (size_t)n);
		free(file);
	}
	free(raw);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] == 'R')
		run_record(data + 1, size - 1);
	else
		run(data, size);
	return 0;
}
