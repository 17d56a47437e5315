/*
 * validate_io.c - the command's reads and writes, recorded and native.
 *
 * A replay repeats the recording's calls.  Where the command does other
 * work from one run to the next (a program whose work depends on the
 * clock, on where a second's boundary falls, on which process won a
 * race), the recording is one sample of that work, and a replay of it
 * predicts the native runs only as well as the sample stands for them.
 * The native runs are not traced, but the kernel counts every process's
 * read and write calls and bytes (syscr, syscw, rchar, wchar of
 * /proc/PID/io), and a process's counts go to its parent when it is
 * reaped: validate reads its own before and after a run.  The recording's
 * are its read- and write-family calls.  The table prints both, and
 * ana_val_why() names the difference where it goes the way of a miss.
 *
 * The two counts are not the same measure to the call: a process start
 * reads its program's and its loader's headers in the kernel (counted
 * natively, no recorded call: ANA_VAL_IO_EXEC_*), and an io_uring or
 * libaio request is counted by neither.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ana.h"
#include "validate.h"

const char *const ana_val_io_key[ANA_VAL_IO_N] = { "reads", "writes", "bytes_read",
						   "bytes_written" };

/* one run's @io into @dst[*@n] */
static int add_run(double (*dst)[ANA_VAL_IO_N], int *n, const double *io)
{
	int k;

	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (isnan(io[k]) || io[k] < 0)
			return 0;
	if (*n >= ANA_VAL_MAX_RUNS)
		return -E2BIG;
	memcpy(dst[*n], io, sizeof(dst[0]));
	(*n)++;
	return 1;
}

int ana_val_add_io(struct ana_val *v, int fs, const double *io, double execs)
{
	int i = fs + 1, rc;

	if (fs < ANA_VAL_RECORDED || fs >= v->n_fs || !io)
		return -EINVAL;
	rc = add_run(v->io[i], &v->n_io[i], io);
	if (rc > 0 && fs == ANA_VAL_RECORDED)
		v->io_execs[v->n_io[i] - 1] = isnan(execs) || execs < 0 ? 0 : execs;
	return rc < 0 ? rc : 0;
}

int ana_val_add_row_io(struct ana_val *v, int row, int fs, const double *io)
{
	int rc;

	if (fs < ANA_VAL_RECORDED || fs >= v->n_fs || !io || row < 0 || row >= v->n_rows - 1)
		return -EINVAL;
	rc = add_run(v->rows[row].io[fs + 1], &v->rows[row].n_io[fs + 1], io);
	return rc < 0 ? rc : 0;
}

/* the median and range of @x[@n] */
static void stats(double *x, int n, double *med, double *lo, double *hi)
{
	int j;

	*med = ana_val_median(x, n);
	*lo = *hi = n ? x[0] : NAN;
	for (j = 1; j < n; j++) {
		*lo = fmin(*lo, x[j]);
		*hi = fmax(*hi, x[j]);
	}
}

/* Whether the native runs of two filesystems are apart (ranges that do
 * not overlap, medians more than the tolerance and @floor apart) while
 * each filesystem's are steady (spread within the tolerance); @med: each
 * one's median. */
static int fs_apart(const struct ana_val *v, const double (*io)[ANA_VAL_MAX_RUNS][ANA_VAL_IO_N],
		    const int *n_io, int k, double floor, double *med)
{
	double lo[ANA_VAL_MAX_FS], hi[ANA_VAL_MAX_FS], x[ANA_VAL_MAX_RUNS];
	int a, b, j, dep = 0;

	for (a = 0; a < v->n_fs; a++) {
		for (j = 0; j < n_io[a + 1]; j++)
			x[j] = io[a + 1][j][k];
		stats(x, n_io[a + 1], &med[a], &lo[a], &hi[a]);
	}
	/* steady on each filesystem: else the work varies from run to run,
	 * and ranges apart are chance */
	for (a = 0; a < v->n_fs; a++)
		if (hi[a] - lo[a] > floor && (hi[a] - lo[a]) / med[a] * 100.0 > v->tolerance)
			return 0;
	for (a = 0; a < v->n_fs; a++)
		for (b = a + 1; b < v->n_fs; b++) {
			double d = fabs(med[a] - med[b]);

			if (isnan(d) || !(hi[a] < lo[b] || hi[b] < lo[a]) || d <= floor)
				continue;
			if (d / fmin(med[a], med[b]) * 100.0 > v->tolerance || fmin(med[a], med[b]) <= 0)
				dep = 1;
		}
	return dep;
}

void ana_val_io(const struct ana_val *v, int row, struct ana_val_io *o)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS], execs;
	const double (*io)[ANA_VAL_MAX_RUNS][ANA_VAL_IO_N] = v->io;
	const int *n_io = v->n_io;
	int fs, j, k, n;

	memset(o, 0, sizeof(*o));
	o->rec_fs = -1;
	for (fs = 0; v->record_on && fs < v->n_fs; fs++)
		if (strcmp(v->fs[fs], v->record_on) == 0)
			o->rec_fs = fs;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		o->rec[k] = o->nat[k] = o->lo[k] = o->hi[k] = o->excess[k] = o->spread[k] = NAN;
	if (row >= 0 && row < v->n_rows - 1) {
		io = v->rows[row].io;
		n_io = v->rows[row].n_io;
	}
	if (!n_io[0])
		return;
	/* a phase's own execs are not counted: the whole run's bound them */
	execs = v->n_io[0] ? ana_val_median(v->io_execs, v->n_io[0]) : 0;
	for (fs = 0; fs < v->n_fs; fs++)
		o->n_native += n_io[fs + 1];
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		double allow = 0, floor = k >= ANA_VAL_IO_RBYTES ? ANA_VAL_IO_MIN_BYTES :
					  ANA_VAL_IO_MIN_CALLS;

		for (j = 0; j < n_io[0]; j++)
			x[j] = io[0][j][k];
		o->rec[k] = ana_val_median(x, n_io[0]);
		{
			double med[ANA_VAL_MAX_FS];

			o->dep[k] = fs_apart(v, io, n_io, k, floor, med);
			for (fs = 0; fs < v->n_fs; fs++)
				o->fs_nat[fs][k] = med[fs];
		}
		n = 0;
		for (fs = 0; fs < v->n_fs; fs++)
			if (!o->dep[k] || fs == o->rec_fs)
				for (j = 0; j < n_io[fs + 1]; j++)
					x[n++] = io[fs + 1][j][k];
		if (!n)
			continue;
		stats(x, n, &o->nat[k], &o->lo[k], &o->hi[k]);
		if (o->nat[k] > 0) {
			o->excess[k] = (o->rec[k] - o->nat[k]) / o->nat[k] * 100.0;
			o->spread[k] = (o->hi[k] - o->lo[k]) / o->nat[k] * 100.0;
		}
		o->varies[k] = o->spread[k] > v->tolerance && o->hi[k] - o->lo[k] > floor;
		/* what process starts read in the kernel: native only */
		if (k == ANA_VAL_IO_READS)
			allow = execs * ANA_VAL_IO_EXEC_CALLS;
		else if (k == ANA_VAL_IO_RBYTES)
			allow = execs * ANA_VAL_IO_EXEC_BYTES;
		if (o->nat[k] > 0 && o->rec[k] > o->hi[k] + floor)
			o->apart[k] = (o->rec[k] - o->nat[k]) / o->nat[k] * 100.0 > v->tolerance;
		else if (o->nat[k] > 0 && o->rec[k] < o->lo[k] - allow - floor)
			o->apart[k] = (o->nat[k] - allow - o->rec[k]) / o->nat[k] * 100.0 >
				      v->tolerance;
	}
	o->known = o->n_native > 0;
}

/* a count of calls, or bytes in KiB or MiB */
static void amount(FILE *f, int k, double x)
{
	if (k >= ANA_VAL_IO_RBYTES && x >= 10 << 20)
		fprintf(f, "%.1f MiB", x / (1 << 20));
	else if (k >= ANA_VAL_IO_RBYTES)
		fprintf(f, "%.0f KiB", x / 1024);
	else
		fprintf(f, "%.0f", x);
}

static const char *const what[ANA_VAL_IO_N] = { "read calls", "write calls", "bytes read",
						"bytes written" };

/* "X recorded R, native M (LO to HI)"; where the filesystems differ,
 * each one's median first */
static void measure(FILE *f, const struct ana_val *v, const struct ana_val_io *o, int k)
{
	int fs;

	fprintf(f, "%s recorded ", what[k]);
	amount(f, k, o->rec[k]);
	if (o->dep[k]) {
		fputs(", native by filesystem", f);
		for (fs = 0; fs < v->n_fs; fs++) {
			fprintf(f, "%s %s ", fs ? "," : "", v->fs[fs]);
			amount(f, k, o->fs_nat[fs][k]);
		}
		if (o->rec_fs < 0) {
			fputs(" (the filesystem's own: not compared, the recording's is not in "
			      "the table)", f);
			return;
		}
		fprintf(f, " (the filesystem's own: compared with %s's)", v->fs[o->rec_fs]);
	}
	fputs(", native ", f);
	amount(f, k, o->nat[k]);
	fputs(" (", f);
	amount(f, k, o->lo[k]);
	fputs(" to ", f);
	amount(f, k, o->hi[k]);
	fputc(')', f);
}

/* a line for each phase whose reads or writes differ from run to run, or
 * from the recording's */
static void phases_text(FILE *f, const struct ana_val *v, int html)
{
	struct ana_val_io o;
	int row, k, n;

	for (row = 0; row < v->n_rows - 1; row++) {
		ana_val_io(v, row, &o);
		n = 0;
		for (k = 0; o.known && k < ANA_VAL_IO_N; k++) {
			if (!o.apart[k] && !o.varies[k])
				continue;
			if (!n++) {
				fputs("  phase ", f);
				if (html)
					ana_html_str(f, v->rows[row].name, strlen(v->rows[row].name));
				else
					fputs(v->rows[row].name, f);
				fputc(':', f);
			} else {
				fputc(';', f);
			}
			fputc(' ', f);
			measure(f, v, &o, k);
			fprintf(f, " %+.1f %%, spread %.0f %%%s", o.excess[k], o.spread[k],
				o.apart[k] ? ", the recording outside" : "");
		}
		if (n)
			fputc('\n', f);
	}
}

void ana_val_io_text(FILE *f, const struct ana_val *v, int html)
{
	struct ana_val_io o;
	int k, n = 0;

	ana_val_io(v, -1, &o);
	if (!o.known)
		return;
	fprintf(f, "\nReads and writes of the command's processes (recorded: its read- and "
		"write-family calls; native: as the kernel counts them, /proc/PID/io; %d "
		"run%s):", o.n_native, o.n_native == 1 ? "" : "s");
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fputs(k ? "; " : " ", f);
		measure(f, v, &o, k);
		if (!isnan(o.excess[k]))
			fprintf(f, " %+.1f %%", o.excess[k]);
	}
	fprintf(f, "; the native counts hold up to %.0f reads and %.0f KiB the kernel made "
		"for the recording's %.0f process starts.", ana_val_median(v->io_execs, v->n_io[0]) *
		ANA_VAL_IO_EXEC_CALLS, ana_val_median(v->io_execs, v->n_io[0]) * ANA_VAL_IO_EXEC_BYTES /
		1024, ana_val_median(v->io_execs, v->n_io[0]));
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (o.varies[k])
			fprintf(f, "%s%s %.0f %%", n++ ? ", " : "  The native runs' own work "
				"differs from run to run: ", what[k], o.spread[k]);
	if (n)
		fputs(" (spread).", f);
	n = 0;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (o.apart[k])
			fprintf(f, "%s%s", n++ ? ", " : "  Outside the native runs' range: ",
				what[k]);
	if (n)
		fprintf(f, ": the command did other work when it was recorded than in the "
			"native runs, and the replay repeats the recording's");
	else
		fputs("  The recording's are inside the native runs' range, less what "
		      "process starts read in the kernel", f);
	fputs(".\n", f);
	phases_text(f, v, html);
}

/* "recorded":[...],"native":{...},"recorded_vs_native":{...},"spread":{...},
 * "apart":[...] of the totals (@execs: theirs) or of a phase */
static void json_io(FILE *f, const struct ana_val *v,
		    const double (*io)[ANA_VAL_MAX_RUNS][ANA_VAL_IO_N], const int *n_io,
		    const double *execs, const struct ana_val_io *o)
{
	int fs, j, k;

	fputs("\"recorded\":[", f);
	for (j = 0; j < n_io[0]; j++) {
		fputs(j ? ",{" : "{", f);
		if (execs) {
			fputs("\"execs\":", f);
			ana_val_json_num(f, execs[j]);
			fputc(',', f);
		}
		for (k = 0; k < ANA_VAL_IO_N; k++) {
			fprintf(f, "%s\"%s\":", k ? "," : "", ana_val_io_key[k]);
			ana_val_json_num(f, io[0][j][k]);
		}
		fputc('}', f);
	}
	fputs("],\"native\":{", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s\"%s\":[", fs ? "," : "", v->fs[fs]);
		for (j = 0; j < n_io[fs + 1]; j++) {
			for (k = 0; k < ANA_VAL_IO_N; k++) {
				fprintf(f, "%s\"%s\":", k ? "," : j ? ",{" : "{", ana_val_io_key[k]);
				ana_val_json_num(f, io[fs + 1][j][k]);
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputs("},\"recorded_vs_native\":{", f);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", ana_val_io_key[k]);
		ana_val_json_num(f, isnan(o->excess[k]) ? NAN : o->excess[k] / 100.0);
	}
	fputs("},\"spread\":{", f);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", ana_val_io_key[k]);
		ana_val_json_num(f, isnan(o->spread[k]) ? NAN : o->spread[k] / 100.0);
	}
	fputs("},\"apart\":[", f);
	for (k = j = 0; k < ANA_VAL_IO_N; k++)
		if (o->apart[k])
			fprintf(f, "%s\"%s\"", j++ ? "," : "", ana_val_io_key[k]);
	fputs("],\"varies\":[", f);
	for (k = j = 0; k < ANA_VAL_IO_N; k++)
		if (o->varies[k])
			fprintf(f, "%s\"%s\"", j++ ? "," : "", ana_val_io_key[k]);
	fputs("],\"by_filesystem\":[", f);
	for (k = j = 0; k < ANA_VAL_IO_N; k++)
		if (o->dep[k])
			fprintf(f, "%s\"%s\"", j++ ? "," : "", ana_val_io_key[k]);
	fputc(']', f);
}

void ana_val_io_json(FILE *f, const struct ana_val *v)
{
	struct ana_val_io o;
	int row, n = 0;

	ana_val_io(v, -1, &o);
	if (!o.known)
		return;
	fputs(",\"io\":{", f);
	json_io(f, v, v->io, v->n_io, v->io_execs, &o);
	fputs(",\"phases\":[", f);
	for (row = 0; row < v->n_rows - 1; row++) {
		ana_val_io(v, row, &o);
		if (!o.known)
			continue;
		fputs(n++ ? ",{\"name\":" : "{\"name\":", f);
		ana_json_str(f, v->rows[row].name, strlen(v->rows[row].name));
		fputc(',', f);
		json_io(f, v, v->rows[row].io, v->rows[row].n_io, NULL, &o);
		fputc('}', f);
	}
	fputs("]}", f);
}
