/*
 * diff.c - the comparison tables of `iotape diff`, in the layout of the
 * classic filesystem benchmark tables: absolute values for configuration
 * A, ratios B/A, C/A... for the others; rows are phases (then the whole
 * run), metric groups are REAL_TIME, CPU_TIME, CPU_UTIL and DF.  A second
 * table compares latency per class so that a difference is explained.
 *
 * A configuration may have several runs: its value is the median, and a
 * ratio is marked '*' when its distance from 1 exceeds the two
 * configurations' run-to-run spreads ((max - min) / median) added.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"
#include "engine.h"

#define WIDTH 100
#define NAME_W 24

/* A row: a phase (by name and occurrence, or index), the whole run, or a
 * class; and the metric asked of it. */
struct rowkey {
	const char *name;
	int occ;		/* n-th phase of that name */
	size_t idx;		/* fallback: same index, same phase count */
	size_t n_ref;		/* phase count of the reference trace */
	int total;		/* the whole run */
	int cls;		/* class rows: IOT_CLASS_*, else -1 */
	int metric;
};

enum { CM_CALLS = 0, CM_TOTAL, CM_P50, CM_P99, CM_COUNT };

static long find_phase(const struct ana_trace *t, const struct rowkey *k)
{
	size_t i;
	int occ = 0;

	for (i = 0; i < t->n_phases; i++)
		if (strcmp(t->phases[i].name, k->name) == 0 && occ++ == k->occ)
			return (long)i;
	if (t->n_phases == k->n_ref)
		return (long)k->idx;
	return -1;
}

static double row_value(const struct ana_trace *t, const void *arg)
{
	const struct rowkey *k = arg;
	const struct ana_stat *s;
	long i;

	if (k->cls >= 0) {
		s = &t->cls[k->cls];
		switch (k->metric) {
		case CM_CALLS:
			return (double)s->count;
		case CM_TOTAL:
			return (double)s->total_ns;
		case CM_P50:
			return s->lat.n ? (double)ana_hist_quantile(&s->lat, 0.5) : NAN;
		default:
			return s->lat.n ? (double)ana_hist_quantile(&s->lat, 0.99) : NAN;
		}
	}
	if (k->total)
		return ana_phase_metric(t, t->n_phases, k->metric);
	i = find_phase(t, k);
	return i < 0 ? NAN : ana_phase_metric(t, (size_t)i, k->metric);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double ana_group_median(const struct ana_group *g,
			double (*fn)(const struct ana_trace *, const void *),
			const void *arg, double *spread)
{
	double v[64], med;
	int i, n = 0;

	for (i = 0; i < g->n && n < 64; i++) {
		double x = fn(g->runs[i], arg);

		if (!isnan(x))
			v[n++] = x;
	}
	if (spread)
		*spread = 0;
	if (n == 0)
		return NAN;
	ana_sort(v, (size_t)n, sizeof(v[0]), cmp_dbl);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (spread && med > 0)
		*spread = (v[n - 1] - v[0]) / med;
	return med;
}

/* Metric kinds for formatting. */
enum { F_NS, F_PCT, F_BYTES, F_COUNT };

struct metric {
	const char *title;
	int fmt;
	int metric;
};

static void fmt_value(char *b, size_t len, double v, int fmt)
{
	if (isnan(v))
		snprintf(b, len, "-");
	else if (fmt == F_NS)
		ana_fmt_ns(b, len, v);
	else if (fmt == F_PCT)
		snprintf(b, len, "%.0f%%", v * 100);
	else if (fmt == F_BYTES)
		ana_fmt_bytes(b, len, v);
	else
		snprintf(b, len, "%.0f", v);
}

static void fmt_ratio(char *b, size_t len, double a, double x, double sa, double sx,
		      int runs)
{
	double r;

	if (isnan(a) || isnan(x) || a == 0) {
		snprintf(b, len, isnan(x) || isnan(a) ? "-" : x == 0 ? "1.000" : "inf");
		return;
	}
	r = x / a;
	/* four figures, at most six characters: columns never run together
	 * (a tmpfs sync against ext4's is a ratio of ~30,000) */
	snprintf(b, len, r < 10 ? "%.3f%s" : r < 100 ? "%.2f%s" : r < 1000 ? "%.1f%s" :
		 r < 10000 ? "%.0f%s" : r < 1e6 ? "%.1fk%s" : "%.1fM%s",
		 r < 10000 ? r : r < 1e6 ? r / 1e3 : r / 1e6,
		 runs && fabs(r - 1) > sa + sx ? "*" : "");
}

/* One table: @rows x @metrics, split into blocks of metric groups that
 * fit the width. */
static void print_table(FILE *f, struct ana_group *g, int ng, const char *corner,
			struct rowkey *rows, int nrows, const struct metric *m, int nm)
{
	int group_w = 11 + 8 * (ng - 1) + 2, per = (WIDTH - NAME_W) / group_w, first, j, r, k;
	int runs = 0;
	char a[32], n[NAME_W + 4];

	for (k = 0; k < ng; k++)
		runs |= g[k].n > 1;
	if (per < 1)
		per = 1;
	for (first = 0; first < nm; first += per) {
		int last = first + per < nm ? first + per : nm;

		fprintf(f, "\n%-*s", NAME_W, first == 0 ? corner : "");
		for (j = first; j < last; j++)
			fprintf(f, j + 1 < last ? "  %-*s" : "  %.*s", group_w - 2, m[j].title);
		fprintf(f, "\n%-*s", NAME_W, "");
		for (j = first; j < last; j++) {
			fprintf(f, "  %11s", "A");
			for (k = 1; k < ng; k++) {
				snprintf(a, sizeof(a), "%c/A", 'A' + (k < 26 ? k : 25));
				fprintf(f, "%8s", a);
			}
		}
		fputc('\n', f);
		for (r = 0; r < nrows; r++) {
			fprintf(f, "%-*s", NAME_W, ana_trunc(n, sizeof(n), rows[r].name, NAME_W - 1));
			for (j = first; j < last; j++) {
				double va, sa, vx, sx;

				rows[r].metric = m[j].metric;
				va = ana_group_median(&g[0], row_value, &rows[r], &sa);
				fmt_value(a, sizeof(a), va, m[j].fmt);
				fprintf(f, "  %11s", a);
				for (k = 1; k < ng; k++) {
					vx = ana_group_median(&g[k], row_value, &rows[r], &sx);
					fmt_ratio(a, sizeof(a), va, vx, sa, sx, runs);
					if (!g[k].n)	/* failed.c */
						snprintf(a, sizeof(a), "FAILED");
					fprintf(f, "%8s", a);
				}
			}
			fputc('\n', f);
		}
	}
}

/*
 * A bpf recording times each call in the kernel, from its entry to its
 * exit tracepoint; a replay times it around the call, from user space,
 * with the kernel's entry and exit (0.1-1 us a call): set side
 * by side, a replay's cheap calls look slower than the recording's on
 * the same filesystem.  Said under the legend where both are compared.
 */
static void timing_note(FILE *f, struct ana_group *g, int ng)
{
	int k, kern = -1, prof = -1;

	for (k = 0; k < ng; k++) {
		const struct ana_trace *t = g[k].n ? g[k].runs[0] : NULL;

		if (!t)
			continue;
		if (t->kernel_timed && kern < 0)
			kern = k;
		if (t->kind == IOT_KIND_PROFILE && prof < 0)
			prof = k;
	}
	if (kern < 0 || prof < 0)
		return;
	fprintf(f, "  latencies: %c's calls were timed in the kernel (a bpf recording), %c's "
		"around each call in the replayer,\n  with the kernel's entry and exit (0.1-1 us a "
		"call): compare replays with replays (iotape bench) for cheap calls\n",
		'A' + (kern < 26 ? kern : 25), 'A' + (prof < 26 ? prof : 25));
}

static void legend(FILE *f, struct ana_group *g, int ng)
{
	char w[80];
	int k, i;

	fprintf(f, "iotape diff: %d configuration%s%s\n", ng, ng == 1 ? "" : "s",
		ng > 1 ? "; values for A, ratios to A for the others (lower is faster)" : "");
	for (k = 0; k < ng; k++) {
		const struct ana_trace *t = g[k].runs ? g[k].runs[0] : NULL;

		fprintf(f, "  %c = %s", 'A' + (k < 26 ? k : 25), g[k].label);
		if (t && t->target)
			fprintf(f, ": %s", ana_trunc(w, sizeof(w), t->target, 60));
		fputc('\n', f);
		ana_failed_legend(f, &g[k]);
		if (!g[k].n)
			continue;
		fprintf(f, "      %d run%s:", g[k].n, g[k].n == 1 ? "" : "s");
		for (i = 0; i < g[k].n && i < 6; i++)
			fprintf(f, " %s", ana_basename(g[k].runs[i]->path));
		fprintf(f, "%s\n", g[k].n > 6 ? " ..." : "");
		for (i = 0; i < g[k].n; i++) {
			const struct ana_trace *r = g[k].runs[i];

			if (r->ev_mismatches || r->ev_skipped || r->hdr_mismatches || r->hdr_skipped)
				fprintf(f, "      %s: replay had %llu mismatches, %llu skipped calls\n",
					ana_basename(r->path),
					(unsigned long long)(r->ev_mismatches > r->hdr_mismatches ?
							     r->ev_mismatches : r->hdr_mismatches),
					(unsigned long long)(r->ev_skipped > r->hdr_skipped ?
							     r->ev_skipped : r->hdr_skipped));
			if (r->damaged)
				fprintf(f, "      %s: DAMAGED, %s\n", ana_basename(r->path),
					r->damage_msg);
		}
	}
	for (k = 0; k < ng; k++)
		if (g[k].n > 1) {
			fprintf(f, "  values are medians of the runs; * = the ratio's distance from 1"
				" exceeds the run-to-run spread\n");
			break;
		}
	timing_note(f, g, ng);
}

void ana_diff_text(FILE *f, struct ana_group *g, int ng)
{
	static const struct metric pm[] = {
		{ "REAL_TIME", F_NS, ANA_M_REAL }, { "CPU_TIME", F_NS, ANA_M_CPU },
		{ "CPU_UTIL", F_PCT, ANA_M_UTIL }, { "DF", F_BYTES, ANA_M_DF },
	};
	static const struct metric cm[] = {
		{ "CALLS", F_COUNT, CM_CALLS }, { "TOTAL_TIME", F_NS, CM_TOTAL },
		{ "P50_LATENCY", F_NS, CM_P50 }, { "P99_LATENCY", F_NS, CM_P99 },
	};
	const struct ana_trace *ref = g[0].n ? g[0].runs[0] : NULL;
	struct rowkey *rows;
	int nr = 0, c;
	size_t i, j;

	legend(f, g, ng);
	if (!ref) {
		fprintf(f, "no configuration completed: nothing to compare\n");
		return;
	}
	rows = calloc(ref->n_phases + IOT_CLASS_COUNT + 1, sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < ref->n_phases; i++) {
		const struct ana_phase *p = &ref->phases[i];

		if (i + 1 == ref->n_phases && p->st.count == 0 && ref->gaps_real_ns == 0)
			continue;
		rows[nr].name = p->name;
		rows[nr].idx = i;
		rows[nr].n_ref = ref->n_phases;
		rows[nr].cls = -1;
		for (j = 0; j < i; j++)
			rows[nr].occ += strcmp(ref->phases[j].name, p->name) == 0;
		nr++;
	}
	rows[nr].name = "total";
	rows[nr].total = 1;
	rows[nr++].cls = -1;
	print_table(f, g, ng, "phase", rows, nr, pm, 4);
	nr = 0;
	for (c = 0; c < IOT_CLASS_COUNT; c++) {
		int any = 0, k, r;

		for (k = 0; k < ng; k++)
			for (r = 0; r < g[k].n; r++)
				any |= g[k].runs[r]->cls[c].count != 0;
		if (!any)
			continue;
		rows[nr].name = iot_class_name(c);
		rows[nr++].cls = c;
	}
	if (nr)
		print_table(f, g, ng, "class (latency)", rows, nr, cm, 4);
	free(rows);
	ana_scaling_text(f, g, ng);
}

/* Per-syscall call counts that differ this much mean another workload. */
#define WARN_MIN_CALLS 20
#define WARN_RATIO 1.5

int ana_diff_warn(const char *cmd, struct ana_group *g, int ng)
{
	const struct ana_trace *ref = ng && g[0].n ? g[0].runs[0] : NULL;
	int k, r, nr, warnings = 0;

	if (!ref)
		return 0;

	for (k = 0; k < ng; k++)
		for (r = 0; r < g[k].n; r++) {
			const struct ana_trace *t = g[k].runs[r];
			char what[256];
			int o = 0, shown = 0;

			if (t == ref)
				continue;
			what[0] = '\0';
			if (ref->workload && t->workload && *ref->workload && *t->workload &&
			    strcmp(ref->workload, t->workload) != 0)
				o += snprintf(what, sizeof(what), "command '%.40s' vs '%.40s'",
					      t->workload, ref->workload);
			for (nr = 0; nr < ANA_MAX_NR && o < (int)sizeof(what) - 64; nr++) {
				/* per client: a series of client counts is one workload */
				double a = (double)ref->sys[nr].count / (ref->n_clients ? ref->n_clients : 1);
				double b = (double)t->sys[nr].count / (t->n_clients ? t->n_clients : 1);
				double lo = a < b ? a : b, hi = a < b ? b : a;

				if (hi < WARN_MIN_CALLS || (lo > 0 && hi / lo <= WARN_RATIO))
					continue;
				if (shown++ < 3)
					o += snprintf(what + o, sizeof(what) - (size_t)o,
						      "%s%s %.0f vs %.0f calls", o ? ", " : "",
						      ref->sc[nr] ? ref->sc[nr]->name : "?", b, a);
			}
			if (!what[0])
				continue;
			iot_warn(cmd, "%s: not the same workload as %s: %s%s; its ratios compare "
				 "different work", t->path, ref->path, what,
				 shown > 3 ? ", ..." : "");
			warnings++;
		}
	return warnings;
}

int ana_group_traces(struct ana_trace *t, int n, const int *sep, struct ana_group *g)
{
	int i, k, ng = 0, use_sep = 0;

	for (i = 1; sep && i < n; i++)
		use_sep |= sep[i];
	for (i = 0; i < n; i++) {
		if (use_sep) {
			k = (i == 0 || sep[i]) ? ng : ng - 1;
		} else {
			/* profiles with one target label are runs of one
			 * configuration; traces stand alone */
			for (k = 0; k < ng; k++)
				if (t[i].kind == IOT_KIND_PROFILE &&
				    g[k].runs[0]->kind == IOT_KIND_PROFILE &&
				    g[k].runs[0]->n_clients == t[i].n_clients &&
				    strcmp(g[k].label, t[i].label) == 0)
					break;
		}
		if (k == ng) {
			g[ng].label = t[i].label;
			g[ng].runs = calloc((size_t)n, sizeof(*g[ng].runs));
			g[ng].n = 0;
			if (!g[ng].runs)
				return ng;
			ng++;
		}
		g[k].runs[g[k].n++] = &t[i];
	}
	return ng;
}

void ana_groups_free(struct ana_group *g, int ng)
{
	int k;

	for (k = 0; k < ng; k++)
		free(g[k].runs);
}
