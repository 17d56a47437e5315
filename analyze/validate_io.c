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

static const char *const io_name[ANA_VAL_IO_N] = { "reads", "writes", "bytes_read",
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

void ana_val_io(const struct ana_val *v, int row, struct ana_val_io *o)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS], execs;
	const double (*io)[ANA_VAL_MAX_RUNS][ANA_VAL_IO_N] = v->io;
	const int *n_io = v->n_io;
	int fs, j, k, n;

	memset(o, 0, sizeof(*o));
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
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		double allow = 0;

		for (j = 0; j < n_io[0]; j++)
			x[j] = io[0][j][k];
		o->rec[k] = ana_val_median(x, n_io[0]);
		n = 0;
		for (fs = 0; fs < v->n_fs; fs++)
			for (j = 0; j < n_io[fs + 1]; j++)
				x[n++] = io[fs + 1][j][k];
		o->n_native = n;
		if (!n)
			return;
		o->nat[k] = ana_val_median(x, n);
		o->lo[k] = o->hi[k] = x[0];
		for (j = 1; j < n; j++) {
			o->lo[k] = fmin(o->lo[k], x[j]);
			o->hi[k] = fmax(o->hi[k], x[j]);
		}
		if (o->nat[k] > 0) {
			o->excess[k] = (o->rec[k] - o->nat[k]) / o->nat[k] * 100.0;
			o->spread[k] = (o->hi[k] - o->lo[k]) / o->nat[k] * 100.0;
		}
		/* what process starts read in the kernel: native only */
		if (k == ANA_VAL_IO_READS)
			allow = execs * ANA_VAL_IO_EXEC_CALLS;
		else if (k == ANA_VAL_IO_RBYTES)
			allow = execs * ANA_VAL_IO_EXEC_BYTES;
		if (o->nat[k] > 0 && o->rec[k] > o->hi[k])
			o->apart[k] = (o->rec[k] - o->nat[k]) / o->nat[k] * 100.0 > v->tolerance;
		else if (o->nat[k] > 0 && o->rec[k] < o->lo[k] - allow)
			o->apart[k] = (o->nat[k] - allow - o->rec[k]) / o->nat[k] * 100.0 >
				      v->tolerance;
	}
	o->known = 1;
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

/* "X recorded R, native M (LO to HI)" */
static void measure(FILE *f, const struct ana_val_io *o, int k)
{
	fprintf(f, "%s recorded ", what[k]);
	amount(f, k, o->rec[k]);
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
			if (!o.apart[k] && !(o.spread[k] > v->tolerance))
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
			measure(f, &o, k);
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
		measure(f, &o, k);
		if (!isnan(o.excess[k]))
			fprintf(f, " %+.1f %%", o.excess[k]);
	}
	fprintf(f, "; the native counts hold up to %.0f reads and %.0f KiB the kernel made "
		"for the recording's %.0f process starts.", ana_val_median(v->io_execs, v->n_io[0]) *
		ANA_VAL_IO_EXEC_CALLS, ana_val_median(v->io_execs, v->n_io[0]) * ANA_VAL_IO_EXEC_BYTES /
		1024, ana_val_median(v->io_execs, v->n_io[0]));
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (o.spread[k] > v->tolerance)
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
			fprintf(f, "%s\"%s\":", k ? "," : "", io_name[k]);
			ana_val_json_num(f, io[0][j][k]);
		}
		fputc('}', f);
	}
	fputs("],\"native\":{", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s\"%s\":[", fs ? "," : "", v->fs[fs]);
		for (j = 0; j < n_io[fs + 1]; j++) {
			for (k = 0; k < ANA_VAL_IO_N; k++) {
				fprintf(f, "%s\"%s\":", k ? "," : j ? ",{" : "{", io_name[k]);
				ana_val_json_num(f, io[fs + 1][j][k]);
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputs("},\"recorded_vs_native\":{", f);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", io_name[k]);
		ana_val_json_num(f, isnan(o->excess[k]) ? NAN : o->excess[k] / 100.0);
	}
	fputs("},\"spread\":{", f);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", io_name[k]);
		ana_val_json_num(f, isnan(o->spread[k]) ? NAN : o->spread[k] / 100.0);
	}
	fputs("},\"apart\":[", f);
	for (k = j = 0; k < ANA_VAL_IO_N; k++)
		if (o->apart[k])
			fprintf(f, "%s\"%s\"", j++ ? "," : "", io_name[k]);
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
