/*
 * damage.c - what a file's summary says to a person: the time that
 * prints as 0, and the one line that describes its damage.  Every command
 * that reads a trace says it in these words.
 */
#include <stdio.h>

#include "engine.h"
#include "iotape.h"

int64_t iot_time_base(const struct iot_header *h, const struct iot_summary *s)
{
	int64_t base = h ? h->start_ns : 0;

	if (s && s->events && (base <= 0 || s->t_min < base))
		base = s->t_min;
	return base;
}

int iot_damage_text(char *buf, size_t len, const struct iot_summary *s, int64_t base)
{
	char kept[96];

	if (s->events && s->good_t_max > base)
		snprintf(kept, sizeof(kept), "events up to %.3f s kept",
			 (double)iot_ns_sub(s->good_t_max, base) / 1e9);
	else
		snprintf(kept, sizeof(kept), "no events before it");
	/* Frames count from the header (frame 0), as 'zstd -l' would. */
	if (s->damage == IOT_E_TRUNCATED) {
		snprintf(buf, len, "truncated at frame %llu, byte %llu (%s); "
			 "run 'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->damage_frame + 1,
			 (unsigned long long)s->damage_offset, kept);
	} else if (s->damage) {
		snprintf(buf, len, "corrupt frame %llu at byte %llu: %s (%s); "
			 "run 'iotape check --repair' to cut it off and rewrite "
			 "the index",
			 (unsigned long long)s->damage_frame + 1,
			 (unsigned long long)s->damage_offset,
			 s->damage == IOT_E_CORRUPT ? "checksum or decoding failure"
						    : iot_strerror(s->damage),
			 kept);
	} else if (s->index_damaged) {
		snprintf(buf, len, "its index is damaged (its checksum fails); the "
			 "frames were read instead, %llu complete events; run "
			 "'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->events);
	} else if (!s->has_index || (!s->clean_close && !s->repaired)) {
		snprintf(buf, len, "not closed cleanly (no usable index: was "
			 "the recorder killed?); its %llu complete events were read; "
			 "run 'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->events);
	} else {
		return 0;
	}
	return 1;
}
