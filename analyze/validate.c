/*
 * validate.c - the arithmetic and the table of 'iotape validate'.
 *
 * The figures are those 'make validate' printed since its first version
 * (tools/validate.sh did them in Python): medians of the runs, the spread
 * (max - min) / median of each side, the replay's error against the
 * native median, '*' where the two ranges do not overlap (the difference
 * is then not noise), and whether the replays rank the filesystems as the
 * native runs do wherever those differ by more than ANA_VAL_RANK_PCT.
 * Medians, not means: on a shared machine one run in three is often
 * slowed by something else, and a mean would carry it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"
#include "validate.h"

/* phases of at least this many seconds count in the summary line: shorter
 * ones are mostly noise on a shared machine */
#define LONG_PHASE 1.0

int ana_val_init(struct ana_val *v, const char *const *fs, int n_fs, double tolerance)
{
	int i;

	memset(v, 0, sizeof(*v));
	if (n_fs < 1 || n_fs > ANA_VAL_MAX_FS)
		return -EINVAL;
	for (i = 0; i < n_fs; i++) {
		if (strlen(fs[i]) >= sizeof(v->fs[i]))
			return -EINVAL;
		strcpy(v->fs[i], fs[i]);
	}
	v->n_fs = n_fs;
	v->tolerance = tolerance;
	return 0;
}

void ana_val_free(struct ana_val *v)
{
	free(v->rows);
	v->rows = NULL;
	v->n_rows = 0;
	free(v->recs);
	v->recs = NULL;
	v->n_recs = 0;
}

int ana_val_add_row(struct ana_val *v, const char *name)
{
	struct ana_val_row *nr;

	if (v->n_rows >= ANA_VAL_MAX_ROWS)
		return -E2BIG;
	nr = realloc(v->rows, (size_t)(v->n_rows + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	v->rows = nr;
	memset(&nr[v->n_rows], 0, sizeof(*nr));
	snprintf(nr[v->n_rows].name, sizeof(nr[v->n_rows].name), "%s", name);
	return v->n_rows++;
}

int ana_val_add(struct ana_val *v, int row, int fs, int replay, double secs)
{
	struct ana_val_cell *c;

	if (row < 0 || row >= v->n_rows || fs < 0 || fs >= v->n_fs)
		return -EINVAL;
	c = &v->rows[row].cell[fs];
	if (replay == ANA_VAL_AFAP) {
		if (c->n_afap >= ANA_VAL_MAX_RUNS)
			return -E2BIG;
		c->afap[c->n_afap++] = secs;
		v->has_afap = 1;
	} else if (replay) {
		if (c->n_replay >= ANA_VAL_MAX_RUNS)
			return -E2BIG;
		c->replay[c->n_replay++] = secs;
	} else {
		if (c->n_native >= ANA_VAL_MAX_RUNS)
			return -E2BIG;
		c->native[c->n_native++] = secs;
	}
	return 0;
}

int ana_val_add_counts(struct ana_val *v, int fs, uint64_t mismatches, uint64_t skipped,
		       uint64_t mapped)
{
	if (fs < 0 || fs >= v->n_fs)
		return -EINVAL;
	if (mismatches > v->mismatches[fs])
		v->mismatches[fs] = mismatches;
	if (skipped > v->skipped[fs] || (skipped == v->skipped[fs] && !v->skipped_mapped[fs])) {
		v->skipped[fs] = skipped;
		v->skipped_mapped[fs] = mapped < skipped ? mapped : skipped;
	}
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The values of @x that are numbers, sorted into @out (room for
 * ANA_VAL_MAX_POOL: every filesystem's runs pooled).  @return : how many. */
static int known_sorted(const double *x, int n, double *out)
{
	int i, k = 0;

	for (i = 0; i < n && k < ANA_VAL_MAX_POOL; i++)
		if (!isnan(x[i]))
			out[k++] = x[i];
	ana_sort(out, (size_t)k, sizeof(*out), cmp_dbl);
	return k;
}

double ana_val_median(const double *x, int n)
{
	double s[ANA_VAL_MAX_POOL];
	int k = known_sorted(x, n, s);

	if (k == 0)
		return NAN;
	return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

double ana_val_spread(const double *x, int n)
{
	double s[ANA_VAL_MAX_POOL], med;
	int k = known_sorted(x, n, s);

	if (k == 0)
		return NAN;
	med = ana_val_median(s, k);
	if (!(med > 0))
		return k == 1 ? 0 : NAN;
	return (s[k - 1] - s[0]) / med;
}

int ana_val_apart(const double *a, int na, const double *b, int nb)
{
	double sa[ANA_VAL_MAX_POOL], sb[ANA_VAL_MAX_POOL];
	int ka = known_sorted(a, na, sa), kb = known_sorted(b, nb, sb);

	if (ka < 2 || kb < 2)
		return 0;
	return sa[ka - 1] < sb[0] || sb[kb - 1] < sa[0];
}

void ana_val_cell_stat(const struct ana_val *v, int row, int fs, struct ana_val_stat *s)
{
	const struct ana_val_cell *c = &v->rows[row].cell[fs];

	s->native = ana_val_median(c->native, c->n_native);
	s->replay = ana_val_median(c->replay, c->n_replay);
	s->native_spread = ana_val_spread(c->native, c->n_native);
	s->replay_spread = ana_val_spread(c->replay, c->n_replay);
	s->error = s->native > 0 && !isnan(s->replay) ? (s->replay - s->native) / s->native * 100
						      : NAN;
	s->apart = ana_val_apart(c->native, c->n_native, c->replay, c->n_replay);
	s->afap = ana_val_median(c->afap, c->n_afap);
	s->afap_error = s->native > 0 && !isnan(s->afap) ? (s->afap - s->native) / s->native * 100
							 : NAN;
	s->floor = !isnan(s->afap_error) && s->afap_error > v->tolerance;
}

int ana_val_rank(const struct ana_val *v, int row, int *agree, int *pairs)
{
	struct ana_val_stat a, b;
	int x, y, n_agree = 0, n_pairs = 0;

	for (x = 0; x < v->n_fs; x++) {
		ana_val_cell_stat(v, row, x, &a);
		for (y = x + 1; y < v->n_fs; y++) {
			ana_val_cell_stat(v, row, y, &b);
			if (!(a.native > 0 && b.native > 0) || isnan(a.replay) || isnan(b.replay))
				continue;
			if (fabs(a.native - b.native) / fmin(a.native, b.native) * 100 <=
			    ANA_VAL_RANK_PCT)
				continue;
			n_pairs++;
			n_agree += (a.native < b.native) == (a.replay < b.replay);
		}
	}
	if (agree)
		*agree = n_agree;
	if (pairs)
		*pairs = n_pairs;
	if (n_pairs == 0)
		return ANA_VAL_RANK_NA;
	return n_agree == n_pairs ? ANA_VAL_RANK_SAME : ANA_VAL_RANK_DIFFERS;
}

int ana_val_verdict(const struct ana_val *v, int *within, int *total)
{
	struct ana_val_stat s;
	int fs, n_in = 0, n = 0;

	if (v->n_rows > 0)
		for (fs = 0; fs < v->n_fs; fs++) {
			ana_val_cell_stat(v, v->n_rows - 1, fs, &s);
			n++;
			/* an unmeasured total is not within anything */
			n_in += !isnan(s.error) && fabs(s.error) <= v->tolerance;
		}
	if (within)
		*within = n_in;
	if (total)
		*total = n;
	return n > 0 && n_in == n ? 0 : ANA_VAL_EXIT_MISSED;
}

static const char *rank_word(int r)
{
	return r == ANA_VAL_RANK_SAME ? "same" : r == ANA_VAL_RANK_DIFFERS ? "differs" : "-";
}

/* @x in @w columns with @prec decimals (and a sign if @sign), "-" if NAN. */
void ana_val_num(FILE *f, int w, int prec, int sign, double x)
{
	if (isnan(x))
		fprintf(f, "%*s", w, "-");
	else if (sign)
		fprintf(f, "%+*.*f", w, prec, x);
	else
		fprintf(f, "%*.*f", w, prec, x);
}

/* The lines under the table: the counts, and what the columns mean. */
static void notes(FILE *f, const struct ana_val *v)
{
	int row, fs, within, total, agree = 0, pairs = 0, long_in = 0, long_n = 0;

	for (row = 0; row < v->n_rows; row++) {
		int a, p;

		ana_val_rank(v, row, &a, &p);
		agree += a;
		pairs += p;
		for (fs = 0; fs < v->n_fs && row < v->n_rows - 1; fs++) {
			struct ana_val_stat s;

			ana_val_cell_stat(v, row, fs, &s);
			if (s.native >= LONG_PHASE) {
				long_n++;
				long_in += fabs(s.error) <= v->tolerance;
			}
		}
	}
	ana_val_verdict(v, &within, &total);
	fprintf(f, "totals within %g %%: %d/%d; phases >= 1 s within %g %%: %d/%d; "
		"same ranking where native differs > %g %%: %d/%d\n", v->tolerance, within, total,
		v->tolerance, long_in, long_n, ANA_VAL_RANK_PCT, agree, pairs);
	if (v->has_afap && v->n_rows > 0) {
		int slow = 0, floored = 0;

		for (fs = 0; fs < v->n_fs; fs++) {
			struct ana_val_stat s;

			ana_val_cell_stat(v, v->n_rows - 1, fs, &s);
			if (!isnan(s.error) && s.error > v->tolerance) {
				slow++;
				floored += s.floor;
			}
		}
		fprintf(f, "afap%%: a replay with --timing afap (no think time, no sleeps) against "
			"the native median: as fast as the replayer goes; ^: more than %g %% slower "
			"than native even so, so that no timing brings the replay within the "
			"tolerance: the replayer's own work per call is the miss.  Totals more than "
			"%g %% slow: %d, %d of them at that floor\n", v->tolerance, v->tolerance,
			slow, floored);
	}
	/* what a replay did not do as recorded: a miss often starts there */
	fputs("replays:", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s %s %llu mismatches, %llu calls not replayed", fs ? ";" : "",
			v->fs[fs], (unsigned long long)v->mismatches[fs],
			(unsigned long long)v->skipped[fs]);
		if (v->skipped_mapped[fs])
			fprintf(f, " (%llu of them mmap or munmap: their pages replayed)",
				(unsigned long long)v->skipped_mapped[fs]);
	}
	fputs(" (the most of any run; 'iotape report' of a kept profile says which)\n", f);
	fprintf(f, "seconds, medians of %d run%s", v->runs, v->runs == 1 ? "" : "s");
	if (v->runs > 1)
		fputs("; +-%: (max - min) / median of the runs; *: replay and native ranges "
		      "do not overlap", f);
	fputs("; err%: (replay - native) / native; rank: whether the replays order the "
	      "filesystems as the native runs\n", f);
}

void ana_val_text(FILE *f, const struct ana_val *v)
{
	int multi = v->runs > 1, w = (multi ? 38 : 26) + (v->has_afap ? 8 : 0), row, fs;
	char name[64];

	fprintf(f, "%-22s", "phase");
	for (fs = 0; fs < v->n_fs; fs++)
		fprintf(f, "%*s", w, v->fs[fs]);
	fprintf(f, "%9s\n%-22s", "rank", "");
	for (fs = 0; fs < v->n_fs; fs++)
		if (multi)
			fprintf(f, "%9s%5s%9s%5s%9s %s", "native", "+-%", "replay", "+-%", "err%",
				v->has_afap ? "  afap% " : "");
		else
			fprintf(f, "%9s%9s%8s%s", "native", "replay", "err%",
				v->has_afap ? "   afap% " : "");
	fputc('\n', f);
	for (row = 0; row < v->n_rows; row++) {
		int r = ana_val_rank(v, row, NULL, NULL);

		fprintf(f, "%-22s", ana_trunc(name, sizeof(name), v->rows[row].name, 22));
		for (fs = 0; fs < v->n_fs; fs++) {
			struct ana_val_stat s;

			ana_val_cell_stat(v, row, fs, &s);
			ana_val_num(f, 9, 2, 0, s.native);
			if (multi)
				ana_val_num(f, 5, 0, 0, s.native_spread * 100);
			ana_val_num(f, 9, 2, 0, s.replay);
			if (multi) {
				ana_val_num(f, 5, 0, 0, s.replay_spread * 100);
				ana_val_num(f, 9, 1, 1, s.error);
				fputc(s.apart ? '*' : ' ', f);
			} else {
				ana_val_num(f, 8, 1, 1, s.error);
			}
			if (v->has_afap) {
				ana_val_num(f, 7, 1, 1, s.afap_error);
				fputc(s.floor ? '^' : ' ', f);
			}
		}
		fprintf(f, "%9s\n", rank_word(r));
	}
	fputc('\n', f);
	notes(f, v);
	ana_val_recs_text(f, v);
	ana_val_cpu_text(f, v);
	ana_val_io_text(f, v, 0);
	ana_val_why_text(f, v, 0);
}

void ana_val_json_num(FILE *f, double x)
{
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.9g", x);
}

void ana_val_json_runs(FILE *f, const double *x, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		ana_val_json_num(f, x[i]);
	}
	fputc(']', f);
}

static void json_kv_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, "\"%s\":", key);
	if (s)
		ana_json_str(f, s, strlen(s));
	else
		fputs("null", f);
	fputc(',', f);
}

void ana_val_json(FILE *f, const struct ana_val *v)
{
	int row, fs, within, total, agree = 0, pairs = 0;

	fputc('{', f);
	json_kv_str(f, "workload", v->workload);
	json_kv_str(f, "date", v->date);
	json_kv_str(f, "cache", v->cache);
	json_kv_str(f, "record_on", v->record_on);
	fprintf(f, "\"runs\":%d,\"tolerance_pct\":", v->runs);
	ana_val_json_num(f, v->tolerance);
	fputs(",\"filesystems\":[", f);
	for (fs = 0; fs < v->n_fs; fs++)
		fprintf(f, "%s\"%s\"", fs ? "," : "", v->fs[fs]);
	fputs("],\"rows\":[", f);
	for (row = 0; row < v->n_rows; row++) {
		int a, p, r = ana_val_rank(v, row, &a, &p);

		agree += a;
		pairs += p;
		fputs(row ? ",{\"name\":" : "{\"name\":", f);
		ana_json_str(f, v->rows[row].name, strlen(v->rows[row].name));
		fprintf(f, ",\"total\":%s,\"rank\":\"%s\",\"cells\":{",
			row == v->n_rows - 1 ? "true" : "false", rank_word(r));
		for (fs = 0; fs < v->n_fs; fs++) {
			const struct ana_val_cell *c = &v->rows[row].cell[fs];
			struct ana_val_stat s;

			ana_val_cell_stat(v, row, fs, &s);
			fprintf(f, "%s\"%s\":{\"native\":", fs ? "," : "", v->fs[fs]);
			ana_val_json_runs(f, c->native, c->n_native);
			fputs(",\"replay\":", f);
			ana_val_json_runs(f, c->replay, c->n_replay);
			fputs(",\"native_median\":", f);
			ana_val_json_num(f, s.native);
			fputs(",\"replay_median\":", f);
			ana_val_json_num(f, s.replay);
			fputs(",\"native_spread\":", f);
			ana_val_json_num(f, s.native_spread);
			fputs(",\"replay_spread\":", f);
			ana_val_json_num(f, s.replay_spread);
			fputs(",\"error_pct\":", f);
			ana_val_json_num(f, s.error);
			fprintf(f, ",\"apart\":%s", s.apart ? "true" : "false");
			if (row == v->n_rows - 1)
				fprintf(f, ",\"mismatches\":%llu,\"skipped\":%llu,"
					"\"skipped_mapped\":%llu",
					(unsigned long long)v->mismatches[fs],
					(unsigned long long)v->skipped[fs],
					(unsigned long long)v->skipped_mapped[fs]);
			if (v->has_afap) {
				fputs(",\"afap\":", f);
				ana_val_json_runs(f, c->afap, c->n_afap);
				fputs(",\"afap_median\":", f);
				ana_val_json_num(f, s.afap);
				fputs(",\"afap_error_pct\":", f);
				ana_val_json_num(f, s.afap_error);
				fprintf(f, ",\"floor\":%s", s.floor ? "true" : "false");
			}
			fputc('}', f);
		}
		fputs("}}", f);
	}
	fputc(']', f);
	ana_val_recs_json(f, v);
	ana_val_cpu_json(f, v);
	ana_val_io_json(f, v);
	ana_val_why_json(f, v);
	ana_val_verdict(v, &within, &total);
	fprintf(f, ",\"totals_within\":%d,\"totals\":%d,\"rank_agree\":%d,\"rank_pairs\":%d,"
		"\"ok\":%s}\n", within, total, agree, pairs, within == total && total ? "true"
										      : "false");
}

static void html_num(FILE *f, int prec, double x)
{
	if (isnan(x))
		fputs("<td>-</td>", f);
	else
		fprintf(f, "<td>%.*f</td>", prec, x);
}

void ana_val_html(FILE *f, const struct ana_val *v)
{
	int row, fs;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iotape validate"
	      "</title><style>body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px}"
	      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
	      "text-align:right}td:first-child{text-align:left}.miss{background:#fdd}"
	      "pre{font:12px/1.3 monospace;background:#f6f6f6;padding:8px}</style></head><body>\n"
	      "<h1>Does the replay predict the workload?</h1>\n<p>", f);
	if (v->workload)
		ana_html_str(f, v->workload, strlen(v->workload));
	fprintf(f, "</p>\n<table><tr><th rowspan=\"2\">phase</th>");
	for (fs = 0; fs < v->n_fs; fs++)
		fprintf(f, "<th colspan=\"%d\">%s</th>", v->has_afap ? 7 : 6, v->fs[fs]);
	fputs("<th rowspan=\"2\">rank</th></tr><tr>", f);
	for (fs = 0; fs < v->n_fs; fs++)
		fprintf(f, "<th>native s</th><th>+-%%</th><th>replay s</th><th>+-%%</th><th>err %%"
			"</th><th>*</th>%s", v->has_afap ? "<th>afap %</th>" : "");
	fputs("</tr>\n", f);
	for (row = 0; row < v->n_rows; row++) {
		fputs("<tr><td>", f);
		ana_html_str(f, v->rows[row].name, strlen(v->rows[row].name));
		fputs("</td>", f);
		for (fs = 0; fs < v->n_fs; fs++) {
			struct ana_val_stat s;
			int miss;

			ana_val_cell_stat(v, row, fs, &s);
			miss = row == v->n_rows - 1 && !(fabs(s.error) <= v->tolerance);
			html_num(f, 2, s.native);
			html_num(f, 0, s.native_spread * 100);
			html_num(f, 2, s.replay);
			html_num(f, 0, s.replay_spread * 100);
			if (miss)
				fputs("<td class=\"miss\">", f);
			else
				fputs("<td>", f);
			if (isnan(s.error))
				fputs("-", f);
			else
				fprintf(f, "%+.1f", s.error);
			fprintf(f, "</td><td>%s</td>", s.apart ? "*" : "");
			if (v->has_afap) {
				if (isnan(s.afap_error))
					fputs("<td>-</td>", f);
				else
					fprintf(f, "<td>%+.1f%s</td>", s.afap_error,
						s.floor ? "^" : "");
			}
		}
		fprintf(f, "<td>%s</td></tr>\n", rank_word(ana_val_rank(v, row, NULL, NULL)));
	}
	fputs("</table>\n<pre>", f);
	notes(f, v);
	ana_val_recs_text(f, v);
	ana_val_cpu_text(f, v);
	ana_val_io_text(f, v, 1);
	ana_val_why_text(f, v, 1);
	fputs("</pre>\n</body></html>\n", f);
}
