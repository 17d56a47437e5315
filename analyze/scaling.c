/*
 * scaling.c - profiles of many clients (replay --clients N, bench
 * --clients 1,2,4,8, iotape-mpi) against the number of clients: the
 * throughput of the whole run (calls and bytes per second of its real
 * time) and the p50/p99 latency per class, for diff's text and the HTML
 * page, the curve filesystems for many users are compared by.
 *
 * Configurations of one series are those whose labels differ only in a
 * trailing "-cN" (bench --clients names them so); each series is one
 * line of the plot.  Every value is the median over a configuration's
 * runs, as in the rest of diff.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"

static double clients_of(const struct ana_trace *t, const void *arg)
{
	(void)arg;
	return t->n_clients ? t->n_clients : 1;
}

static double ops_per_s(const struct ana_trace *t, const void *arg)
{
	(void)arg;
	return t->real_ns > 0 ? (double)t->total.count * 1e9 / (double)t->real_ns : NAN;
}

static double bytes_per_s(const struct ana_trace *t, const void *arg)
{
	(void)arg;
	return t->real_ns > 0 ? (double)t->total.bytes * 1e9 / (double)t->real_ns : NAN;
}

struct qarg {
	int cls;
	double q;
};

static double cls_quantile(const struct ana_trace *t, const void *arg)
{
	const struct qarg *a = arg;
	const struct ana_hist *h = &t->cls[a->cls].lat;

	return h->n ? (double)ana_hist_quantile(h, a->q) : NAN;
}

int ana_scaling_wanted(const struct ana_group *g, int ng)
{
	int k;

	for (k = 0; k < ng; k++)
		if (g[k].n && g[k].runs[0]->n_clients)
			return 1;
	return 0;
}

/* The length of @label without a trailing "-cN". */
size_t ana_series_len(const char *label)
{
	size_t n = strlen(label), i = n;

	while (i > 0 && label[i - 1] >= '0' && label[i - 1] <= '9')
		i--;
	if (i < n && i >= 2 && label[i - 1] == 'c' && label[i - 2] == '-')
		return i - 2;
	return n;
}

static int class_used(const struct ana_group *g, int ng, int c)
{
	int k;

	for (k = 0; k < ng; k++)
		if (g[k].n && g[k].runs[0]->cls[c].count)
			return 1;
	return 0;
}

void ana_scaling_text(FILE *f, struct ana_group *g, int ng)
{
	char a[32], b[32], l[40];
	double ref = NAN;
	int k, c;

	if (!ana_scaling_wanted(g, ng))
		return;
	fprintf(f, "\nclients                   CLIENTS      OPS/S  PER_CLIENT        BYTES/S   "
		"OPS/S vs A\n");
	for (k = 0; k < ng; k++) {
		double n, ops, bps;

		if (!g[k].n)
			continue;
		n = ana_group_median(&g[k], clients_of, NULL, NULL);
		ops = ana_group_median(&g[k], ops_per_s, NULL, NULL);
		bps = ana_group_median(&g[k], bytes_per_s, NULL, NULL);
		if (isnan(ref))
			ref = ops;
		fprintf(f, "%-24s %8.0f %10.0f %11.0f %12s/s %12.3f\n",
			ana_trunc(l, sizeof(l), g[k].label, 24), n, ops, ops / n,
			ana_fmt_bytes(a, sizeof(a), bps), ref > 0 ? ops / ref : NAN);
	}
	fprintf(f, "\nclients: latency p50 / p99 per class\n%-24s", "");
	for (c = 0; c < IOT_CLASS_COUNT; c++)
		if (class_used(g, ng, c))
			fprintf(f, " %21s", iot_class_name(c));
	fputc('\n', f);
	for (k = 0; k < ng; k++) {
		if (!g[k].n)
			continue;
		fprintf(f, "%-24s", ana_trunc(l, sizeof(l), g[k].label, 24));
		for (c = 0; c < IOT_CLASS_COUNT; c++) {
			struct qarg p50 = { c, 0.5 }, p99 = { c, 0.99 };
			char cell[48];

			if (!class_used(g, ng, c))
				continue;
			snprintf(cell, sizeof(cell), "%s / %s",
				 ana_fmt_ns(a, sizeof(a), ana_group_median(&g[k], cls_quantile, &p50, NULL)),
				 ana_fmt_ns(b, sizeof(b), ana_group_median(&g[k], cls_quantile, &p99, NULL)));
			fprintf(f, " %21s", cell);
		}
		fputc('\n', f);
	}
}

/* One SVG: @fn against the number of clients, a line per series. */
static void plot(FILE *f, struct ana_group *g, int ng, const char *title,
		 double (*fn)(const struct ana_trace *, const void *), const void *arg,
		 const char *const *pal, int n_pal, int bytes)
{
	const int W = 420, H = 240, L = 64, B = 34, T = 22, R = 16;
	double xmax = 1, ymax = 0;
	int k, j, s, *done = calloc((size_t)ng + 1, sizeof(int));
	char lab[32];

	if (!done)
		return;
	for (k = 0; k < ng; k++) {
		double x, y;

		if (!g[k].n)
			continue;
		x = ana_group_median(&g[k], clients_of, NULL, NULL);
		y = ana_group_median(&g[k], fn, arg, NULL);
		xmax = x > xmax ? x : xmax;
		ymax = !isnan(y) && y > ymax ? y : ymax;
	}
	if (ymax <= 0)
		goto out;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\"><text x=\"%d\" y=\"14\" "
		"text-anchor=\"middle\">%s</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#bbb\"/>", W, H, W / 2, title, L, T, W - L - R, H - T - B);
	for (j = 0; j <= 4; j++) {
		double py = H - B - j / 4.0 * (H - T - B), v = ymax * j / 4.0;

		if (bytes)
			ana_fmt_bytes(lab, sizeof(lab), v);
		else
			snprintf(lab, sizeof(lab), "%.0f", v);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", L - 4, py + 4,
			lab);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f clients</text>", W - R,
		H - 6, xmax);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"start\">1</text>", L, H - B + 14);
	for (s = 0, k = 0; k < ng; k++) {
		size_t len;
		int m;

		if (!g[k].n || done[k])
			continue;
		len = ana_series_len(g[k].label);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"",
			pal[s % n_pal]);
		for (m = k; m < ng; m++) {
			double x, y;

			if (!g[m].n || done[m] || ana_series_len(g[m].label) != len ||
			    strncmp(g[m].label, g[k].label, len) != 0)
				continue;
			done[m] = 1;
			x = ana_group_median(&g[m], clients_of, NULL, NULL);
			y = ana_group_median(&g[m], fn, arg, NULL);
			if (isnan(y))
				continue;
			fprintf(f, "%.1f,%.1f ", L + (xmax > 1 ? (x - 1) / (xmax - 1) : 0.5) *
				(W - L - R), H - B - y / ymax * (H - T - B));
		}
		fputs("\"><title>", f);
		ana_html_str(f, g[k].label, len);
		fputs("</title></polyline>", f);
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">", L + 6, T + 14 + 13 * s,
			pal[s % n_pal]);
		ana_html_str(f, g[k].label, len);
		fputs("</text>", f);
		s++;
	}
	fputs("</svg>\n", f);
out:
	free(done);
}

void ana_scaling_html(FILE *f, struct ana_group *g, int ng, const char *const *pal, int n_pal)
{
	struct qarg q;
	char title[64];
	int c;

	if (!ana_scaling_wanted(g, ng))
		return;
	fputs("<h2>Against the number of clients</h2>\n<div class=\"grid\">\n", f);
	plot(f, g, ng, "calls per second, all clients", ops_per_s, NULL, pal, n_pal, 0);
	plot(f, g, ng, "bytes per second, all clients", bytes_per_s, NULL, pal, n_pal, 1);
	for (c = 0; c < IOT_CLASS_COUNT; c++) {
		if (!class_used(g, ng, c) || c == IOT_CLASS_OTHER)
			continue;
		q.cls = c;
		q.q = 0.99;
		snprintf(title, sizeof(title), "%s: p99 latency (ns)", iot_class_name(c));
		plot(f, g, ng, title, cls_quantile, &q, pal, n_pal, 0);
	}
	fputs("</div>\n", f);
}
