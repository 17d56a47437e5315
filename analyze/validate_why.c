/*
 * validate_why.c - what accounts for a total of 'iotape validate' that
 * misses the tolerance, from what the table measured, and which phase
 * holds most of it.  Six measures, each tested on its own:
 *
 *   the replayer's speed   the replay is slow and so is its afap replay
 *                          (no think time, no sleeps): no timing brings it
 *                          within the tolerance;
 *   the recording's CPU    the replay spends the recorded computing as its
 *                          think time, so a recording that used x more CPU
 *                          time than the native runs (a slower minute of
 *                          the machine, or the recorder's own cost) makes
 *                          the timing's share t of the replay x longer:
 *                          an error of x t / (1 + x - x t), reckoned with
 *                          the user time's x and with the user + system
 *                          time's (the user time's alone where the
 *                          recorder's stops cost the program system time:
 *                          ptrace); it accounts for the error where the
 *                          error is within the tolerance of that range;
 *   the native runs' noise the replays' median lies inside the range of
 *                          the native runs' times;
 *   the recordings         with --recordings N, the medians of each
 *                          recording's replays are as far apart as the
 *                          error is beyond the tolerance;
 *   the work               the recording read or wrote more calls or
 *                          bytes than every native run, and the replay is
 *                          slow (or fewer, and fast): the command did
 *                          other work when recorded (validate_io.c);
 *   the work's variation   else, the native runs' reads or writes differ
 *                          among themselves by as much as the error: the
 *                          command's work is not the same from run to run,
 *                          and one recording is one sample of it.
 *
 * None of them is a proof: they say which measured quantity is as large as
 * the miss, and the text gives the numbers so that the reader can judge.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ana.h"
#include "validate.h"

/* The error a recording that used @x (a fraction) more CPU time than the
 * native runs predicts where the timing is @t of the replay, percent. */
static double predict(double x, double t)
{
	double d = 1 + x - x * t;

	if (isnan(x) || isnan(t) || d <= 0)
		return NAN;
	return x * t / d * 100.0 + 0.0;	/* + 0: no "-0.0 %" where t is 0 */
}

/* the least and the most of @a and @b, NANs left out */
static void range2(double a, double b, double *lo, double *hi)
{
	if (isnan(a))
		a = b;
	if (isnan(b))
		b = a;
	*lo = fmin(a, b);
	*hi = fmax(a, b);
}

/* the replays' median inside [min, max] of the native runs (two at least) */
static int inside_native(const struct ana_val_cell *c, double replay)
{
	double lo = INFINITY, hi = -INFINITY;
	int i, n = 0;

	for (i = 0; i < c->n_native; i++)
		if (!isnan(c->native[i])) {
			lo = fmin(lo, c->native[i]);
			hi = fmax(hi, c->native[i]);
			n++;
		}
	return n >= 2 && !isnan(replay) && replay >= lo && replay <= hi;
}

/* ANA_VAL_WHY_WORK where @o's recording is outside the native runs' range
 * the way of an error of @err percent, else ANA_VAL_WHY_VARIES where the
 * native runs spread by as much, else 0; *@kind: the measure */
static int work_of(const struct ana_val_io *o, int fs, double err, int *kind)
{
	int k;

	*kind = -1;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (o->apart[k] && o->excess[k] * err > 0 && (!o->dep[k] || fs == o->rec_fs) &&
		    (*kind < 0 || fabs(o->excess[k]) > fabs(o->excess[*kind])))
			*kind = k;
	if (*kind >= 0)
		return ANA_VAL_WHY_WORK;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (o->varies[k] && o->spread[k] >= fabs(err) && (!o->dep[k] || fs == o->rec_fs) &&
		    (*kind < 0 || o->spread[k] > o->spread[*kind]))
			*kind = k;
	return *kind >= 0 ? ANA_VAL_WHY_VARIES : 0;
}

void ana_val_why(const struct ana_val *v, int fs, struct ana_val_why *w)
{
	const struct ana_val_stat *s = &w->stat;
	struct ana_val_stat p;
	int total = v->n_rows - 1, row, work;

	memset(w, 0, sizeof(*w));
	w->timing = w->pred_lo = w->pred_hi = NAN;
	w->phase = -1;
	w->total_secs = w->stat.error = NAN;
	w->cpu_excess = w->user_excess = w->recs_spread = NAN;
	w->io_kind = w->io_row = -1;
	ana_val_io(v, -1, &w->io);
	if (total < 0 || fs < 0 || fs >= v->n_fs)
		return;
	ana_val_cell_stat(v, total, fs, &w->stat);
	if (isnan(s->error))
		return;
	w->cpu_excess = ana_val_cpu_excess(v, 0);
	w->user_excess = ana_val_cpu_excess(v, 1);
	w->recs_spread = ana_val_recs_spread(v, fs);
	w->miss = fabs(s->error) > v->tolerance;
	w->total_secs = s->replay - s->native;
	if (!isnan(s->afap) && s->replay > 0)
		w->timing = fmax(0.0, (s->replay - s->afap) / s->replay);
	range2(predict(w->user_excess / 100.0, w->timing),
	       v->cpu_user_only ? NAN : predict(w->cpu_excess / 100.0, w->timing),
	       &w->pred_lo, &w->pred_hi);
	/* the phase whose difference goes the total's way the most */
	if (total >= 2 && w->total_secs != 0)
		for (row = 0; row < total; row++) {
			double d;

			ana_val_cell_stat(v, row, fs, &p);
			d = p.replay - p.native;
			if (isnan(d) || d * w->total_secs <= 0)
				continue;
			if (w->phase < 0 || fabs(d) > fabs(w->phase_secs)) {
				w->phase = row;
				w->phase_secs = d;
			}
		}
	if (!w->miss)
		return;
	if (s->floor && s->error > v->tolerance)
		w->causes |= ANA_VAL_WHY_FLOOR;
	if (!isnan(w->pred_lo)) {
		double c = fmin(fmax(s->error, w->pred_lo), w->pred_hi);

		if (fabs(s->error - c) <= v->tolerance)
			w->causes |= ANA_VAL_WHY_RECORDING;
	}
	if (inside_native(&v->rows[total].cell[fs], s->replay))
		w->causes |= ANA_VAL_WHY_NOISE;
	if (w->recs_spread * 100 + v->tolerance >= fabs(s->error))
		w->causes |= ANA_VAL_WHY_RECORDINGS;
	work = work_of(&w->io, fs, s->error, &w->io_kind);
	/* the phase that holds most of the miss: its own reads and writes
	 * against its own error */
	if (!work && w->phase >= 0) {
		struct ana_val_io po;
		int kind;

		ana_val_cell_stat(v, w->phase, fs, &p);
		ana_val_io(v, w->phase, &po);
		if (po.known && p.native > 0 &&
		    (work = work_of(&po, fs, (p.replay - p.native) / p.native * 100.0, &kind))) {
			w->io = po;
			w->io_row = w->phase;
			w->io_kind = kind;
		}
	}
	w->causes |= work;
}

static const char *const what[ANA_VAL_IO_N] = { "read calls", "write calls", "MiB read",
						"MiB written" };

static void name_out(FILE *f, const char *s, int html)
{
	if (html)
		ana_html_str(f, s, strlen(s));
	else
		fputs(s, f);
}

/* measure @k's @x as these lines give it: calls, or MiB */
static void io_num(FILE *f, int k, double x)
{
	if (k >= ANA_VAL_IO_RBYTES)
		fprintf(f, "%.1f", x / (1 << 20));
	else
		fprintf(f, "%.0f", x);
}

/* "LO to HI" of the native runs' measure @k */
static void io_range(FILE *f, int k, const struct ana_val_io *o)
{
	io_num(f, k, o->lo[k]);
	fputs(" to ", f);
	io_num(f, k, o->hi[k]);
}

/* " in phase NAME" where @row is a phase's */
static void in_phase(FILE *f, const struct ana_val *v, int row, int html)
{
	if (row < 0)
		return;
	fputs(" in phase ", f);
	name_out(f, v->rows[row].name, html);
}

void ana_val_why_text(FILE *f, const struct ana_val *v, int html)
{
	int fs, head = 0;

	for (fs = 0; fs < v->n_fs; fs++) {
		struct ana_val_why w;
		const char *sep = "";

		ana_val_why(v, fs, &w);
		if (!w.miss)
			continue;
		if (!head++)
			fprintf(f, "\nwhy the totals that miss, miss (the measures of this table "
				"that are as large as the miss; none is a proof):\n");
		fprintf(f, "  %s %+.1f %%: ", v->fs[fs], w.stat.error);
		if (w.causes & ANA_VAL_WHY_FLOOR) {
			fprintf(f, "the replayer's own speed (afap %+.1f %%)", w.stat.afap_error);
			sep = "; ";
		}
		if (!isnan(w.pred_lo)) {
			fprintf(f, "%s%sthe recording's CPU time (%+.1f %% of the native runs', "
				"user time %+.1f %%; the timing is %.0f %% of the replay: predicts "
				"%+.1f", sep, w.causes & ANA_VAL_WHY_RECORDING ? "" : "not ",
				w.cpu_excess, w.user_excess, w.timing * 100, w.pred_lo);
			if (w.pred_hi != w.pred_lo)
				fprintf(f, " to %+.1f", w.pred_hi);
			fputs(v->cpu_user_only ? " %, from the user time)" : " %)", f);
			sep = "; ";
		}
		if (w.causes & ANA_VAL_WHY_NOISE) {
			fprintf(f, "%sinside the native runs' range (spread %.0f %%)", sep,
				w.stat.native_spread * 100);
			sep = "; ";
		}
		if (w.causes & ANA_VAL_WHY_RECORDINGS) {
			fprintf(f, "%sthe recordings' replays as far apart (spread %.0f %%)", sep,
				w.recs_spread * 100);
			sep = "; ";
		}
		if (w.causes & ANA_VAL_WHY_WORK) {
			int k = w.io_kind;

			fprintf(f, "%sthe command's own work", sep);
			in_phase(f, v, w.io_row, html);
			fprintf(f, ": the recording's %s ", what[k]);
			io_num(f, k, w.io.rec[k]);
			fputs(", the native runs' ", f);
			io_range(f, k, &w.io);
			fprintf(f, " (%+.1f %%)", w.io.excess[k]);
			sep = "; ";
		}
		if (w.causes & ANA_VAL_WHY_VARIES) {
			int k = w.io_kind;

			fprintf(f, "%sthe command's work varies from run to run", sep);
			in_phase(f, v, w.io_row, html);
			fprintf(f, ": the native runs' %s ", what[k]);
			io_range(f, k, &w.io);
			fprintf(f, " (spread %.0f %%), the recording's ", w.io.spread[k]);
			io_num(f, k, w.io.rec[k]);
			sep = "; ";
		}
		if (!w.causes) {
			fprintf(f, "%snot accounted for by the replayer's speed, the recording's "
				"CPU time%s%s the native runs' range%s", sep,
				!w.io.known ? "" : v->n_recs > 1 ? " or work" : " or work,",
				v->n_recs > 1 ? "," : " or",
				v->n_recs > 1 ? " or the recordings' spread" : "");
			sep = "; ";
		}
		if (w.phase >= 0) {
			fprintf(f, "%sthe largest part in phase ", sep);
			name_out(f, v->rows[w.phase].name, html);
			fprintf(f, " (%+.2f s; the total %+.2f s)", w.phase_secs, w.total_secs);
		}
		fputc('\n', f);
	}
}

void ana_val_why_json(FILE *f, const struct ana_val *v)
{
	static const struct {
		int bit;
		const char *word;
	} words[] = {
		{ ANA_VAL_WHY_FLOOR, "replayer" },
		{ ANA_VAL_WHY_RECORDING, "recording" },
		{ ANA_VAL_WHY_NOISE, "noise" },
		{ ANA_VAL_WHY_RECORDINGS, "recordings" },
		{ ANA_VAL_WHY_WORK, "work" },
		{ ANA_VAL_WHY_VARIES, "work_varies" },
	};
	int fs, i, n;

	if (v->n_rows < 1)
		return;
	fputs(",\"why\":{", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		struct ana_val_why w;

		ana_val_why(v, fs, &w);
		fprintf(f, "%s\"%s\":{\"miss\":%s,\"causes\":[", fs ? "," : "", v->fs[fs],
			w.miss ? "true" : "false");
		for (i = n = 0; i < (int)(sizeof(words) / sizeof(words[0])); i++)
			if (w.causes & words[i].bit)
				fprintf(f, "%s\"%s\"", n++ ? "," : "", words[i].word);
		fputs("],\"timing_share\":", f);
		ana_val_json_num(f, w.timing);
		fputs(",\"predicted_pct\":[", f);
		ana_val_json_num(f, w.pred_lo);
		fputc(',', f);
		ana_val_json_num(f, w.pred_hi);
		fputs("],\"phase\":", f);
		if (w.phase >= 0)
			ana_json_str(f, v->rows[w.phase].name, strlen(v->rows[w.phase].name));
		else
			fputs("null", f);
		fputs(",\"phase_secs\":", f);
		ana_val_json_num(f, w.phase >= 0 ? w.phase_secs : NAN);
		fputs(",\"total_secs\":", f);
		ana_val_json_num(f, w.total_secs);
		if (w.causes & (ANA_VAL_WHY_WORK | ANA_VAL_WHY_VARIES)) {
			fprintf(f, ",\"work\":\"%s\",\"work_phase\":", ana_val_io_key[w.io_kind]);
			if (w.io_row >= 0)
				ana_json_str(f, v->rows[w.io_row].name, strlen(v->rows[w.io_row].name));
			else
				fputs("null", f);
		}
		fputc('}', f);
	}
	fputc('}', f);
}
