/*
 * validate_recs.c - the recordings of 'iotape validate --recordings N':
 * each recording's own total and the medians of its replays, and how far
 * they spread.  A recording is one sample of the machine's speed when it
 * was made; where the replays of two recordings differ as much as the
 * replay differs from the native runs, the error is the recording's.
 * And the CPU time the recordings and the native runs used: the replay's
 * think time is bounded by the recorded one.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

int ana_val_add_rec(struct ana_val *v, double total)
{
	struct ana_val_rec *nr;

	if (v->n_recs >= ANA_VAL_MAX_RUNS)
		return -E2BIG;
	nr = realloc(v->recs, (size_t)(v->n_recs + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	v->recs = nr;
	memset(&nr[v->n_recs], 0, sizeof(*nr));
	nr[v->n_recs].total = total;
	return v->n_recs++;
}

int ana_val_add_rec_replay(struct ana_val *v, int rec, int fs, double secs)
{
	struct ana_val_rec *r;

	if (rec < 0 || rec >= v->n_recs || fs < 0 || fs >= v->n_fs)
		return -EINVAL;
	r = &v->recs[rec];
	if (r->n_replay[fs] >= ANA_VAL_MAX_RUNS)
		return -E2BIG;
	r->replay[fs][r->n_replay[fs]++] = secs;
	return 0;
}

/* The recordings' own totals into @x (ANA_VAL_MAX_RUNS). */
static int own_totals(const struct ana_val *v, double *x)
{
	int i;

	for (i = 0; i < v->n_recs; i++)
		x[i] = v->recs[i].total;
	return v->n_recs;
}

/* The medians of each recording's replays on @fs into @x. */
static int replay_medians(const struct ana_val *v, int fs, double *x)
{
	int i;

	for (i = 0; i < v->n_recs; i++)
		x[i] = ana_val_median(v->recs[i].replay[fs], v->recs[i].n_replay[fs]);
	return v->n_recs;
}

double ana_val_recs_spread(const struct ana_val *v, int fs)
{
	double x[ANA_VAL_MAX_RUNS];

	if (v->n_recs < 2 || fs < 0 || fs >= v->n_fs)
		return NAN;
	return ana_val_spread(x, replay_medians(v, fs, x));
}

void ana_val_recs_text(FILE *f, const struct ana_val *v)
{
	double x[ANA_VAL_MAX_RUNS];
	int i, fs;

	if (v->n_recs < 2)
		return;
	fprintf(f, "\n%-22s%10s", "recording", "own s");
	for (fs = 0; fs < v->n_fs; fs++)
		fprintf(f, "%12s", v->fs[fs]);
	fputc('\n', f);
	for (i = 0; i < v->n_recs; i++) {
		fprintf(f, "%-22d", i + 1);
		ana_val_num(f, 10, 2, 0, v->recs[i].total);
		for (fs = 0; fs < v->n_fs; fs++)
			ana_val_num(f, 12, 2, 0, ana_val_median(v->recs[i].replay[fs],
						      v->recs[i].n_replay[fs]));
		fputc('\n', f);
	}
	fprintf(f, "%-22s", "+-%");
	ana_val_num(f, 10, 0, 0, ana_val_spread(x, own_totals(v, x)) * 100);
	for (fs = 0; fs < v->n_fs; fs++)
		ana_val_num(f, 12, 0, 0, ana_val_spread(x, replay_medians(v, fs, x)) * 100);
	fprintf(f, "\n%d recordings, replayed in turn; own s: the recording's real time "
		"(under the recorder); per filesystem the median of its replays; +-%%: "
		"(max - min) / median over the recordings, the part of an error that "
		"is the recording's\n", v->n_recs);
}

void ana_val_recs_json(FILE *f, const struct ana_val *v)
{
	double x[ANA_VAL_MAX_RUNS];
	int i, fs;

	if (v->n_recs < 2)
		return;
	fputs(",\"recordings\":[", f);
	for (i = 0; i < v->n_recs; i++) {
		const struct ana_val_rec *r = &v->recs[i];

		fputs(i ? ",{\"total\":" : "{\"total\":", f);
		ana_val_json_num(f, r->total);
		fputs(",\"replays\":{", f);
		for (fs = 0; fs < v->n_fs; fs++) {
			fprintf(f, "%s\"%s\":{\"runs\":", fs ? "," : "", v->fs[fs]);
			ana_val_json_runs(f, r->replay[fs], r->n_replay[fs]);
			fputs(",\"median\":", f);
			ana_val_json_num(f, ana_val_median(r->replay[fs], r->n_replay[fs]));
			fputc('}', f);
		}
		fputs("}}", f);
	}
	fputs("],\"recordings_spread\":", f);
	ana_val_json_num(f, ana_val_spread(x, own_totals(v, x)));
	fputs(",\"recordings_replay_spread\":{", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s\"%s\":", fs ? "," : "", v->fs[fs]);
		ana_val_json_num(f, ana_val_spread(x, replay_medians(v, fs, x)));
	}
	fputc('}', f);
}

int ana_val_add_cpu(struct ana_val *v, int fs, double secs, double user)
{
	int i = fs + 1;

	if (fs < ANA_VAL_RECORDED || fs >= v->n_fs)
		return -EINVAL;
	if (isnan(secs) || secs < 0)
		return 0;
	if (v->n_cpu[i] >= ANA_VAL_MAX_RUNS)
		return -E2BIG;
	v->cpu_user[i][v->n_cpu[i]] = isnan(user) || user < 0 || user > secs ? NAN : user;
	v->cpu[i][v->n_cpu[i]++] = secs;
	return 0;
}

/* The native runs' CPU times (@user: their user time) of every
 * filesystem into @x (room for ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS). */
static int native_cpu(const struct ana_val *v, int user, double *x)
{
	int fs, j, n = 0;

	for (fs = 0; fs < v->n_fs; fs++)
		for (j = 0; j < v->n_cpu[fs + 1]; j++)
			x[n++] = user ? v->cpu_user[fs + 1][j] : v->cpu[fs + 1][j];
	return n;
}

/* (recorded - native) / native in percent over the medians (@user: of
 * the user time), NAN if either is unknown; @x: room for the native runs */
static double cpu_excess(const struct ana_val *v, int user, double *x)
{
	double rec = ana_val_median(user ? v->cpu_user[0] : v->cpu[0], v->n_cpu[0]);
	double nat = ana_val_median(x, native_cpu(v, user, x));

	if (isnan(rec) || isnan(nat) || nat <= 0)
		return NAN;
	return (rec - nat) / nat * 100.0;
}

double ana_val_cpu_excess(const struct ana_val *v, int user)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS];

	return cpu_excess(v, user, x);
}

void ana_val_cpu_text(FILE *f, const struct ana_val *v)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS], ex = cpu_excess(v, 0, x);
	double exu = cpu_excess(v, 1, x);
	int i, fs, n;

	if (isnan(ex))
		return;
	fprintf(f, "\nCPU time (user + system of the command's processes): recorded");
	for (i = 0; i < v->n_cpu[0]; i++)
		fprintf(f, "%s%.2f", i ? ", " : " ", v->cpu[0][i]);
	fprintf(f, " s; native");
	for (fs = 0; fs < v->n_fs; fs++)
		if (v->n_cpu[fs + 1])
			fprintf(f, " %s %.2f s +-%.0f %%;", v->fs[fs],
				ana_val_median(v->cpu[fs + 1], v->n_cpu[fs + 1]),
				ana_val_spread(v->cpu[fs + 1], v->n_cpu[fs + 1]) * 100);
	n = native_cpu(v, 0, x);
	fprintf(f, " the recording%s %+.1f %% of the native runs' median (%.2f s, %d run%s)",
		v->n_cpu[0] > 1 ? "s' median" : "", ex, ana_val_median(x, n), n, n == 1 ? "" : "s");
	if (!isnan(exu))
		fprintf(f, ", user time %+.1f %%", exu);
	fprintf(f, ".  The replay's think time is bounded by the recorded CPU time (less what "
		"the recorder's stops cost, and by user time alone where the recorder does not "
		"time the system's exactly, as ptrace): a recording that used more than the "
		"native runs replays the program's own computing slower.\n");
}

/* "NAME":{"ext4":[...],...}, the native runs' CPU times (@user: user) */
static void json_native(FILE *f, const struct ana_val *v, const char *name, int user)
{
	int fs;

	fprintf(f, ",\"%s\":{", name);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s\"%s\":", fs ? "," : "", v->fs[fs]);
		ana_val_json_runs(f, user ? v->cpu_user[fs + 1] : v->cpu[fs + 1], v->n_cpu[fs + 1]);
	}
	fputc('}', f);
}

void ana_val_cpu_json(FILE *f, const struct ana_val *v)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS], ex = cpu_excess(v, 0, x);
	double exu = cpu_excess(v, 1, x);

	if (isnan(ex))
		return;
	fputs(",\"cpu\":{\"recorded\":", f);
	ana_val_json_runs(f, v->cpu[0], v->n_cpu[0]);
	json_native(f, v, "native", 0);
	fputs(",\"recorded_user\":", f);
	ana_val_json_runs(f, v->cpu_user[0], v->n_cpu[0]);
	json_native(f, v, "native_user", 1);
	fputs(",\"recorded_vs_native\":", f);
	ana_val_json_num(f, ex / 100.0);
	fputs(",\"user_vs_native\":", f);
	ana_val_json_num(f, isnan(exu) ? NAN : exu / 100.0);
	fputc('}', f);
}
