/*
 * failed.c - profiles of replays that a fault of the filesystem under
 * test stopped (header key replay.failed).  Such a profile holds the
 * calls up to the fault: compared with complete ones it would show a
 * filesystem as fast as the part of the work it did.  So diff keeps it
 * out of the medians and ratios, shows its configuration's column as
 * FAILED when no run of it completed, and says why in the legend.
 */
#include <stdlib.h>
#include <string.h>

#include "ana.h"

int ana_groups_failed(struct ana_group *g, int ng)
{
	int k, i, n_ok = 0;

	for (k = 0; k < ng; k++) {
		struct ana_trace **ok = calloc((size_t)g[k].n + g[k].n_failed + 1, sizeof(*ok));
		int n = 0, nf = 0, all = g[k].n + g[k].n_failed;

		if (!all || !ok) {
			free(ok);
			continue;
		}
		for (i = 0; i < all; i++)
			if (!g[k].runs[i]->failed[0])
				ok[n++] = g[k].runs[i];
		for (i = 0; i < all; i++)
			if (g[k].runs[i]->failed[0])
				ok[n + nf++] = g[k].runs[i];
		memcpy(g[k].runs, ok, (size_t)all * sizeof(*ok));
		free(ok);
		g[k].n = n;
		g[k].n_failed = nf;
		if (!n && nf)
			g[k].failed = g[k].runs[0]->failed;
	}
	/* stable: the complete groups first, in their order (A stays the
	 * first configuration that completed) */
	for (k = 0; k < ng; k++) {
		struct ana_group t;

		if (g[k].n == 0)
			continue;
		t = g[k];
		memmove(&g[n_ok + 1], &g[n_ok], (size_t)(k - n_ok) * sizeof(*g));
		g[n_ok++] = t;
	}
	return n_ok;
}

void ana_failed_legend(FILE *f, const struct ana_group *g)
{
	int i;

	if (g->failed && !g->n_failed)
		fprintf(f, "      FAILED: %s; no profile\n", g->failed);
	for (i = g->n; i < g->n + g->n_failed; i++)
		fprintf(f, "      %s: FAILED: %s; a partial profile, not compared\n",
			ana_basename(g->runs[i]->path), g->runs[i]->failed);
}

int ana_groups_add_failed(struct ana_group **gp, int ng, char **failed, int n)
{
	struct ana_group *g = realloc(*gp, (size_t)(ng + n + 1) * sizeof(*g));
	int i;

	if (!g)
		return -1;
	*gp = g;
	for (i = 0; i < n; i++) {
		char *eq = strchr(failed[i], '=');

		memset(&g[ng], 0, sizeof(*g));
		*eq = 0;	/* the option was checked: LABEL=TEXT */
		g[ng].label = failed[i];
		g[ng++].failed = eq + 1;
	}
	return ng;
}
