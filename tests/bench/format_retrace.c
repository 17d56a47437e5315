/*
 * format_retrace.c - the trace format on a real trace: write its items
 * again with this library's writer, then read the copy.
 *
 *   format_retrace [-l LEVEL] [-f FLUSH_EVENTS] IN OUT
 *
 * Chunks end where they ended in IN (the recorder's flushes by count and
 * by time), unless -f asks for chunks of FLUSH_EVENTS events.  Prints
 * key=value lines: events, bytes and bytes per event of IN and of OUT,
 * and the writer's and reader's speed on OUT in events per second of CPU
 * time of the calling thread (the writer's: copying less reading IN
 * alone; reading: best of 3).  Built against an
 * older library, it measures that library's format on the same events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iotape.h"

static double thread_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) ? -1 : (long)st.st_size;
}

static int put(struct iot_writer *w, const struct iot_item *it)
{
	switch (it->kind) {
	case IOT_ITEM_EVENT: return iot_writer_event(w, &it->u.ev);
	case IOT_ITEM_PATH_STATE: return iot_writer_path_state(w, &it->u.ps);
	case IOT_ITEM_PROCESS: return iot_writer_process(w, &it->u.proc);
	case IOT_ITEM_AIO: return iot_writer_aio(w, &it->u.aio);
	case IOT_ITEM_MPAGES: return iot_writer_mpages(w, &it->u.mp);
	default: return 0;
	}
}

int main(int argc, char **argv)
{
	struct iot_writer_opts o = { 0 };
	struct iot_reader *r;
	struct iot_writer *w;
	struct iot_item it;
	uint64_t n = 0, n2 = 0, chunk = 0, sum = 0;
	double t0, t_in, t_write, t_read = 1e9;
	int opt, rc, pass;

	while ((opt = getopt(argc, argv, "l:f:")) != -1) {
		switch (opt) {
		case 'l': o.level = atoi(optarg); break;
		case 'f': o.flush_events = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	o.flush_ms = -1;
	if (!o.flush_events)
		o.flush_events = UINT32_MAX;	/* where IN's chunks end */
	if ((rc = iot_reader_open(&r, argv[optind]))) {
		fprintf(stderr, "format_retrace: %s: %s\n", argv[optind], iot_strerror(rc));
		return 1;
	}
	t0 = thread_s();
	while (iot_reader_next(r, &it) > 0)
		sum += it.kind;
	t_in = thread_s() - t0;
	iot_reader_rewind(r);
	if ((rc = iot_writer_open(&w, argv[optind + 1], iot_reader_header(r), &o))) {
		fprintf(stderr, "format_retrace: %s: %s\n", argv[optind + 1], iot_strerror(rc));
		return 1;
	}
	t0 = thread_s();
	while ((rc = iot_reader_next(r, &it)) > 0) {
		if (o.flush_events == UINT32_MAX && it.chunk != chunk) {
			chunk = it.chunk;
			if ((rc = iot_writer_flush(w, 0)))
				break;
		}
		n += it.kind == IOT_ITEM_EVENT;
		if ((rc = put(w, &it)))
			break;
	}
	iot_reader_close(r);
	if (rc < 0 || (rc = iot_writer_close(w, 0))) {
		fprintf(stderr, "format_retrace: %s\n", iot_strerror(rc));
		return 1;
	}
	t_write = thread_s() - t0 - t_in;
	if ((rc = iot_reader_open(&r, argv[optind + 1]))) {
		fprintf(stderr, "format_retrace: %s\n", iot_strerror(rc));
		return 1;
	}
	for (pass = 0; pass < 3; pass++) {
		double t;

		iot_reader_rewind(r);
		n2 = 0;
		t0 = thread_s();
		while (iot_reader_next(r, &it) > 0) {
			if (it.kind == IOT_ITEM_EVENT) {
				n2++;
				sum += (uint64_t)it.u.ev.t_enter + it.u.ev.path_len;
			}
		}
		t = thread_s() - t0;
		if (t < t_read)
			t_read = t;
	}
	iot_reader_close(r);
	if (n2 != n || !n) {
		fprintf(stderr, "format_retrace: wrote %llu events, read %llu\n",
			(unsigned long long)n, (unsigned long long)n2);
		return 1;
	}
	printf("events=%llu\n", (unsigned long long)n);
	printf("in_bytes=%ld\n", file_size(argv[optind]));
	printf("in_bytes_per_event=%.2f\n", (double)file_size(argv[optind]) / (double)n);
	printf("out_bytes=%ld\n", file_size(argv[optind + 1]));
	printf("out_bytes_per_event=%.2f\n", (double)file_size(argv[optind + 1]) / (double)n);
	printf("write_events_per_s=%.0f\n", (double)n / t_write);
	printf("decode_events_per_s=%.0f\n", (double)n / t_read);
	printf("checksum=%llu\n", (unsigned long long)sum);
	return 0;
usage:
	fprintf(stderr, "usage: format_retrace [-l LEVEL] [-f FLUSH_EVENTS] IN OUT\n");
	return 2;
}
