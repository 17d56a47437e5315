/*
 * dump_aio.c - the async requests and completions of a trace (AsyncOp
 * records) and the pages of its file mappings (MapPages), printed by
 * `iotape dump` under the syscall event each came with.
 *
 * A chunk stores its AsyncOps after its events, and an event's ops may
 * be in the chunks after (the writer flushed in between); they are in
 * event order.  So a second reader runs through the file beside the
 * first, and after event number k the ops of events up to k are printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "dump_aio.h"

int dump_aio_open(struct dump_aio *d, const char *path)
{
	d->have = d->done = 0;
	d->r = NULL;
	return iot_reader_open(&d->r, path);
}

void dump_aio_close(struct dump_aio *d)
{
	iot_reader_close(d->r);
	d->r = NULL;
}

/* the next AsyncOp into d->it; 0 at the end */
static int next(struct dump_aio *d)
{
	int rc;

	if (d->have)
		return 1;
	if (d->done || !d->r)
		return 0;
	while ((rc = iot_reader_next(d->r, &d->it)) > 0)
		if (d->it.kind == IOT_ITEM_AIO || d->it.kind == IOT_ITEM_MPAGES)
			return d->have = 1;
	d->done = 1;
	return 0;
}

void dump_aio_print(struct dump_aio *d, FILE *f, uint64_t event, int64_t base,
		    int32_t pid)
{
	char line[1024], t[48];

	while (next(d)) {
		int mp = d->it.kind == IOT_ITEM_MPAGES;
		const struct iot_aio *a = &d->it.u.aio;
		const struct iot_mpages *m = &d->it.u.mp;
		int64_t ns = iot_ns_sub(mp ? m->t_ns : a->t_ns, base);
		uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
		int32_t p = mp ? m->pid : a->pid, tid = mp ? m->tid : a->tid;

		if ((mp ? m->event : a->event) > event)
			break;
		d->have = 0;
		if (pid && p != pid && tid != pid)
			continue;
		snprintf(t, sizeof(t), "%s%llu.%06llu", ns < 0 ? "-" : "",
			 (unsigned long long)(u / 1000000000),
			 (unsigned long long)(u % 1000000000 / 1000));
		if (mp)
			iot_format_mpages(line, sizeof(line), m);
		else
			iot_format_aio(line, sizeof(line), a);
		fprintf(f, "%-6d %s   %s\n", (int)tid, t, line);
	}
}
