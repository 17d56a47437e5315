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

int ana_val_add_io(struct ana_val *v, int fs, const double *io, double execs)
{
	int i = fs + 1, k;

	if (fs < ANA_VAL_RECORDED || fs >= v->n_fs || !io)
		return -EINVAL;
	for (k = 0; k < ANA_VAL_IO_N; k++)
		if (isnan(io[k]) || io[k] < 0)
			return 0;
	if (v->n_io[i] >= ANA_VAL_MAX_RUNS)
		return -E2BIG;
	memcpy(v->io[i][v->n_io[i]], io, sizeof(v->io[i][0]));
	if (fs == ANA_VAL_RECORDED)
		v->io_execs[v->n_io[i]] = isnan(execs) || execs < 0 ? 0 : execs;
	v->n_io[i]++;
	return 0;
}

void ana_val_io(const struct ana_val *v, struct ana_val_io *o)
{
	double x[ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS], execs;
	int fs, j, k, n;

	memset(o, 0, sizeof(*o));
	for (k = 0; k < ANA_VAL_IO_N; k++)
		o->rec[k] = o->nat[k] = o->lo[k] = o->hi[k] = o->excess[k] = o->spread[k] = NAN;
	if (!v->n_io[0])
		return;
	execs = ana_val_median(v->io_execs, v->n_io[0]);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		double allow = 0;

		for (j = 0; j < v->n_io[0]; j++)
			x[j] = v->io[0][j][k];
		o->rec[k] = ana_val_median(x, v->n_io[0]);
		n = 0;
		for (fs = 0; fs < v->n_fs; fs++)
			for (j = 0; j < v->n_io[fs + 1]; j++)
				x[n++] = v->io[fs + 1][j][k];
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

void ana_val_io_text(FILE *f, const struct ana_val *v)
{
	static const char *const what[ANA_VAL_IO_N] = { "read calls", "write calls",
							"bytes read", "bytes written" };
	struct ana_val_io o;
	int k, n = 0;

	ana_val_io(v, &o);
	if (!o.known)
		return;
	fprintf(f, "\nReads and writes of the command's processes (recorded: its read- and "
		"write-family calls; native: as the kernel counts them, /proc/PID/io; %d "
		"run%s):", o.n_native, o.n_native == 1 ? "" : "s");
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s %s recorded ", k ? ";" : "", what[k]);
		amount(f, k, o.rec[k]);
		fputs(", native ", f);
		amount(f, k, o.nat[k]);
		fputs(" (", f);
		amount(f, k, o.lo[k]);
		fputs(" to ", f);
		amount(f, k, o.hi[k]);
		fputc(')', f);
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
}

void ana_val_io_json(FILE *f, const struct ana_val *v)
{
	struct ana_val_io o;
	int fs, j, k;

	ana_val_io(v, &o);
	if (!o.known)
		return;
	fputs(",\"io\":{\"recorded\":[", f);
	for (j = 0; j < v->n_io[0]; j++) {
		fprintf(f, "%s{\"execs\":", j ? "," : "");
		ana_val_json_num(f, v->io_execs[j]);
		for (k = 0; k < ANA_VAL_IO_N; k++) {
			fprintf(f, ",\"%s\":", io_name[k]);
			ana_val_json_num(f, v->io[0][j][k]);
		}
		fputc('}', f);
	}
	fputs("],\"native\":{", f);
	for (fs = 0; fs < v->n_fs; fs++) {
		fprintf(f, "%s\"%s\":[", fs ? "," : "", v->fs[fs]);
		for (j = 0; j < v->n_io[fs + 1]; j++) {
			for (k = 0; k < ANA_VAL_IO_N; k++) {
				fprintf(f, "%s\"%s\":", k ? "," : j ? ",{" : "{", io_name[k]);
				ana_val_json_num(f, v->io[fs + 1][j][k]);
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputs("},\"recorded_vs_native\":{", f);
	for (k = 0; k < ANA_VAL_IO_N; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", io_name[k]);
		ana_val_json_num(f, isnan(o.excess[k]) ? NAN : o.excess[k] / 100.0);
	}
	fputs("},\"apart\":[", f);
	for (k = j = 0; k < ANA_VAL_IO_N; k++)
		if (o.apart[k])
			fprintf(f, "%s\"%s\"", j++ ? "," : "", io_name[k]);
	fputs("]}", f);
}
