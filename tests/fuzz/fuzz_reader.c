/*
 * fuzz_reader.c - libFuzzer entry: open a buffer as a trace, read every
 * item, rewind, seek by frame and by time, read again, then in spans.
 *
 * An input that starts with 'R' is the bytes of one Record: see
 * record_file.h.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "iotape.h"
#include "internal.h"
#include "record_file.h"

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
		if (it.kind == IOT_ITEM_SPAN)
			sink += it.u.span.events + (uint64_t)it.u.span.t_end;
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
	/* times may be anything: the middle, computed without overflow */
	iot_reader_seek_time(r, (int64_t)((uint64_t)s->t_min +
					  ((uint64_t)s->t_max - (uint64_t)s->t_min) / 2));
	drain(r, 1u << 20);
	iot_reader_set_spans(r, 1);
	iot_reader_rewind(r);
	drain(r, 1u << 20);
	iot_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_input(data, size, run);
	return 0;
}
