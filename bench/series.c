/*
 * series.c - bench --clients LIST: the client series, each
 * configuration once per number of clients (replay --clients N), so that
 * diff and the HTML page set throughput and latency against that number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "bench.h"
#include "replay.h"

int bench_client_series(struct bench_opts *o, const char *list)
{
	struct bench_config base[64];
	int n_base = o->n_configs, counts[16], n_counts = 0, i, k;
	const char *s = list;

	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > RPL_MAX_CLIENTS || n_counts == 16 ||
		    (*end && *end != ',')) {
			iot_err("bench", "--clients %s: expected counts of clients from 1 to %d, "
				"comma-separated (e.g. 1,2,4,8; at most 16)", list, RPL_MAX_CLIENTS);
			return -EINVAL;
		}
		counts[n_counts++] = (int)v;
		s = *end ? end + 1 : end;
	}
	if (n_counts == 0 || n_base * n_counts > 64) {
		iot_err("bench", "--clients %s: give 1 to 16 counts, at most 64 configurations in "
			"all (%d here)", list, n_base * n_counts);
		return -EINVAL;
	}
	memcpy(base, o->configs, (size_t)n_base * sizeof(base[0]));
	o->n_configs = 0;
	/* the counts innermost: each filesystem's series side by side */
	for (i = 0; i < n_base; i++)
		for (k = 0; k < n_counts; k++) {
			struct bench_config *c = &o->configs[o->n_configs++];

			*c = base[i];
			c->clients = counts[k];
			snprintf(c->name, sizeof(c->name), "%.50s-c%d", base[i].name, counts[k]);
			if (counts[k] > o->max_clients)
				o->max_clients = counts[k];
		}
	return 0;
}
