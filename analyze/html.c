/*
 * html.c - one self-contained HTML page (no network, no external files):
 * the diff table, per-phase bars per configuration, latency CDFs per class
 * and a timeline of calls per class for every configuration.  The plots
 * are inline SVG written here; a one-line script sets the title to "ok"
 * once the page has loaded, which the tests check in a headless browser.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ana.h"
#include "engine.h"

static const char *const pal[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define PAL(i) pal[(i) % (int)(sizeof(pal) / sizeof(pal[0]))]

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1240px}"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px;"
	"border-bottom:1px solid #ccc}pre{font:12px/1.3 monospace;background:#f6f6f6;"
	"padding:8px;overflow-x:auto}.sub{color:#555}.grid{display:flex;flex-wrap:wrap;gap:10px}"
	"svg{background:#fff;border:1px solid #ddd}svg text{font:11px sans-serif;fill:#333}"
	".lg span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;"
	"height:12px;margin-right:4px;vertical-align:-1px}";

static void text_el(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	ana_html_str(f, s, strlen(s));
	fputs("</text>", f);
}

static void legend_groups(FILE *f, struct ana_group *g, int ng)
{
	int k;

	fputs("<div class=\"lg\">", f);
	for (k = 0; k < ng; k++) {
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>%c = ", PAL(k),
			'A' + (k < 26 ? k : 25));
		ana_html_str(f, g[k].label, strlen(g[k].label));
		fprintf(f, " (%d run%s)</span>", g[k].n, g[k].n == 1 ? "" : "s");
	}
	fputs("</div>\n", f);
}

/* Phase @*arg of a run, matched by index (SIZE_MAX: the whole run). */
static double phase_real(const struct ana_trace *t, const void *arg)
{
	size_t i = *(const size_t *)arg;

	if (i == SIZE_MAX)
		return ana_phase_metric(t, t->n_phases, ANA_M_REAL);
	return i < t->n_phases ? ana_phase_metric(t, i, ANA_M_REAL) : NAN;
}

/* Horizontal bars: per phase, one bar per configuration (median real). */
static void phase_bars(FILE *f, struct ana_group *g, int ng)
{
	const struct ana_trace *ref = g[0].runs[0];
	size_t np = ref->n_phases, i;
	double maxv = 0, v, y;
	int k, bar = 12, gap = 10, lw = 300, pw = 760, h;
	char name[64], val[32];
	size_t shown = 0;

	for (i = 0; i < np; i++)
		for (k = 0; k < ng; k++) {
			v = ana_group_median(&g[k], phase_real, &i, NULL);
			if (v > maxv)
				maxv = v;
		}
	for (i = 0; i < np; i++)
		shown += !(i + 1 == np && ref->gaps_real_ns == 0 && ref->phases[i].st.count == 0);
	h = (int)shown * (bar * ng + gap) + 30;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">", lw + pw + 100, h);
	y = 10;
	for (i = 0; i < np; i++) {
		if (i + 1 == np && ref->gaps_real_ns == 0 && ref->phases[i].st.count == 0)
			continue;
		text_el(f, lw - 6, y + bar * ng / 2.0 + 4, "end",
			ana_trunc(name, sizeof(name), ref->phases[i].name, 44));
		for (k = 0; k < ng; k++) {
			double w;

			v = ana_group_median(&g[k], phase_real, &i, NULL);
			w = maxv > 0 && !isnan(v) ? v / maxv * pw : 0;
			fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\"><title>", lw, y, w, bar - 2, PAL(k));
			ana_html_str(f, g[k].label, strlen(g[k].label));
			fprintf(f, ": %s</title></rect>", ana_fmt_ns(val, sizeof(val), v));
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", lw + w + 4, y + bar - 3,
				ana_fmt_ns(val, sizeof(val), v));
			y += bar;
		}
		y += gap;
	}
	fprintf(f, "<line x1=\"%d\" y1=\"4\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", lw, lw, h - 20);
	fputs("</svg>\n", f);
}

/* The CDF of one class, one line per configuration (runs merged). */
static void cdf_plot(FILE *f, struct ana_group *g, int ng, int cls)
{
	const int W = 286, H = 200, L = 40, B = 30, T = 20, R = 24;
	double lo = INFINITY, hi = 0, x[200], y[200];
	struct ana_hist *m = calloc((size_t)ng, sizeof(*m));
	int k, r, n, j, e;
	char lab[32];

	if (!m)
		return;
	for (k = 0; k < ng; k++)
		for (r = 0; r < g[k].n; r++)
			ana_hist_merge(&m[k], &g[k].runs[r]->cls[cls].lat);
	for (k = 0; k < ng; k++) {
		if (!m[k].n)
			continue;
		if (m[k].min < lo)
			lo = (double)m[k].min;
		if (m[k].max > hi)
			hi = (double)m[k].max;
	}
	if (hi <= 0)
		goto out;
	lo = floor(log10(lo < 1 ? 1 : lo));
	hi = ceil(log10(hi < 10 ? 10 : hi));
	if (hi <= lo)
		hi = lo + 1;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">", W, H);
	text_el(f, W / 2.0, 14, "middle", iot_class_name(cls));
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#bbb\"/>", L, T, W - L - R, H - T - B);
	for (e = (int)lo; e <= (int)hi; e++) {
		double px = L + (e - lo) / (hi - lo) * (W - L - R);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>",
			px, T, px, H - B);
		text_el(f, px, H - B + 14, e == (int)hi ? "end" : "middle",
			ana_fmt_ns(lab, sizeof(lab), pow(10, e)));
	}
	for (j = 0; j <= 4; j++) {
		double py = H - B - j / 4.0 * (H - T - B);

		snprintf(lab, sizeof(lab), "%d%%", j * 25);
		text_el(f, L - 4, py + 4, "end", lab);
	}
	for (k = 0; k < ng; k++) {
		n = ana_hist_cdf(&m[k], x, y, 200);
		if (n == 0)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"",
			PAL(k));
		for (j = 0; j < n; j++) {
			double lx = log10(x[j] < 1 ? 1 : x[j]);
			double px = L + (lx - lo) / (hi - lo) * (W - L - R);
			double py = H - B - y[j] * (H - T - B);

			if (j == 0)
				fprintf(f, "%.1f,%d ", px, H - B);
			fprintf(f, "%.1f,%.1f ", px, py);
		}
		fputs("\"><title>", f);
		ana_html_str(f, g[k].label, strlen(g[k].label));
		fputs("</title></polyline>", f);
	}
	fputs("</svg>\n", f);
out:
	for (k = 0; k < ng; k++)
		ana_hist_free(&m[k]);
	free(m);
}

/* Calls per time bin, stacked by class, for one trace. */
static void timeline(FILE *f, const struct ana_trace *t)
{
	const int W = 1000, H = 150, L = 50, B = 24, T = 8, R = 30;
	double bw = (double)(W - L - R) / ANA_TL_BINS, maxc = 0, span;
	int b, c, j;
	char lab[32];

	for (b = 0; b < ANA_TL_BINS; b++) {
		double s = 0;

		for (c = 0; c < IOT_CLASS_COUNT; c++)
			s += t->tl_count[b][c];
		if (s > maxc)
			maxc = s;
	}
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">", W, H);
	if (maxc == 0) {
		text_el(f, W / 2.0, H / 2.0, "middle", "no events");
		fputs("</svg>\n", f);
		return;
	}
	for (b = 0; b < ANA_TL_BINS; b++) {
		double y = H - B;

		for (c = 0; c < IOT_CLASS_COUNT; c++) {
			double h = t->tl_count[b][c] / maxc * (H - T - B);

			if (t->tl_count[b][c] == 0)
				continue;
			y -= h;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"%s\"/>", L + b * bw, y, bw, h, PAL(c));
		}
	}
	span = (double)t->t_last - (double)t->t_first;
	for (j = 0; j <= 5; j++) {
		double px = L + j / 5.0 * (W - L - R);

		text_el(f, px, H - 6, j == 5 ? "end" : "middle",
			ana_fmt_ns(lab, sizeof(lab), span * j / 5));
	}
	snprintf(lab, sizeof(lab), "%.0f", maxc);
	text_el(f, L - 4, T + 10, "end", lab);
	text_el(f, L - 4, H - B, "end", "0");
	fputs("</svg>\n", f);
}

static void diff_pre(FILE *f, struct ana_group *g, int ng)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return;
	ana_diff_text(m, g, ng);
	fclose(m);
	fputs("<pre>", f);
	ana_html_str_pre(f, s, len);
	fputs("</pre>\n", f);
	free(s);
}

static void body(FILE *f, struct ana_group *g, int ng)
{
	const struct ana_trace *ref;
	int k, c, any, all = ng;

	/* a configuration whose replays all failed is in the table (marked
	 * FAILED), not in the plots: failed.c */
	for (ng = 0; ng < all && g[ng].n; ng++)
		;
	if (!ng) {
		diff_pre(f, g, all);
		return;
	}
	ref = g[0].runs[0];

	fputs("<h1>iotape: ", f);
	ana_html_str(f, ref->workload ? ref->workload : "", ref->workload ? strlen(ref->workload) : 0);
	fputs("</h1>\n<div class=\"sub\">", f);
	fprintf(f, "%d configuration%s, %s first; lower times are faster.</div>\n", ng,
		ng == 1 ? "" : "s", g[0].label);
	legend_groups(f, g, ng);
	fputs("<h2>Real time per phase</h2>\n", f);
	legend_groups(f, g, ng);
	phase_bars(f, g, ng);
	fputs("<h2>Latency distribution per class (CDF, log time)</h2>\n", f);
	legend_groups(f, g, ng);
	fputs("<div class=\"grid\">\n", f);
	for (c = 0; c < IOT_CLASS_COUNT; c++) {
		any = 0;
		for (k = 0; k < ng; k++)
			any |= g[k].runs[0]->cls[c].lat.n != 0;
		if (any)
			cdf_plot(f, g, ng, c);
	}
	fputs("</div>\n", f);
	ana_scaling_html(f, g, ng, pal, (int)(sizeof(pal) / sizeof(pal[0])));
	fputs("<h2>Comparison table</h2>\n", f);
	diff_pre(f, g, all);
	fputs("<h2>Timeline: calls over time per class</h2>\n<div class=\"lg\">", f);
	for (c = 0; c < IOT_CLASS_COUNT; c++)
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>", PAL(c),
			iot_class_name(c));
	fputs("</div>\n", f);
	for (k = 0; k < ng; k++) {
		fprintf(f, "<div>%c = ", 'A' + (k < 26 ? k : 25));
		ana_html_str(f, g[k].label, strlen(g[k].label));
		fputs(" (", f);
		ana_html_str(f, g[k].runs[0]->path, strlen(g[k].runs[0]->path));
		fputs(")</div>\n", f);
		timeline(f, g[k].runs[0]);
	}
}

int ana_html_write(const char *cmd, const char *path, struct ana_group *g, int ng)
{
	struct stat st, now;
	FILE *f;
	int rc = 0, reg;

	if (ng < 1)
		return 0;
	f = ana_open_out(cmd, path);
	if (!f)
		return -errno;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<title>iotape report</title>\n<style>%s</style></head><body>\n", css);
	body(f, g, ng);
	fputs("<p class=\"sub\">Made by iotape " IOT_VERSION ".</p>\n"
	      "<script>window.addEventListener('load',function(){"
	      "if(document.querySelectorAll('svg').length)document.title='ok';});</script>\n"
	      "</body></html>\n", f);
	/* the errno of the write that failed, which the final flush repeats */
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		rc = errno ? -errno : -EIO;
	/* a partial page is removed, when @path itself is a regular file */
	reg = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && lstat(path, &now) == 0 &&
	      now.st_dev == st.st_dev && now.st_ino == st.st_ino;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0)
		return 0;
	if (reg && unlink(path) == 0)
		iot_err(cmd, "%s: write failed: %s; the partial page was removed", path,
			strerror(-rc));
	else
		iot_err(cmd, "%s: write failed: %s; the page is incomplete", path, strerror(-rc));
	return rc;
}
