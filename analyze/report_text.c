/*
 * report_text.c - `iotape report` as text tables (100 columns).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"

#define NS(b, v) ana_fmt_ns(b, sizeof(b), (double)(v))

double ana_phase_metric(const struct ana_trace *t, size_t i, int m)
{
	double real, cpu;

	if (i >= t->n_phases) {
		real = (double)t->real_ns;
		cpu = t->has_cpu ? (double)t->cpu_ns : NAN;
		if (m == ANA_M_DF)
			return t->has_df ? (double)t->df_bytes : NAN;
	} else {
		const struct ana_phase *p = &t->phases[i];

		real = i + 1 == t->n_phases ? (double)t->gaps_real_ns : ((double)p->end - (double)p->start);
		cpu = t->has_cpu && p->cpu_ns >= 0 ? (double)p->cpu_ns : NAN;
		if (m == ANA_M_DF)
			return NAN;
	}
	if (m == ANA_M_REAL)
		return real;
	if (m == ANA_M_CPU)
		return cpu;
	return real > 0 && !isnan(cpu) ? cpu / real : NAN;
}

static void pct(char *b, size_t len, double v)
{
	if (isnan(v))
		snprintf(b, len, "-");
	else
		snprintf(b, len, "%.0f%%", v * 100);
}

/* what the bytes of the total and of the commands hold: calls', async
 * requests' and mapped pages' (their classes' rows), when there are any
 * of the last two */
static void print_bytes(FILE *f, const struct ana_trace *t)
{
	const struct ana_stat *c = t->cls;
	uint64_t as = c[IOT_CLASS_ASYNC_READ].bytes + c[IOT_CLASS_ASYNC_WRITE].bytes;
	uint64_t mp = c[IOT_CLASS_MAPPED_READ].bytes + c[IOT_CLASS_MAPPED_WRITE].bytes;
	char a[32], b[32], d[32];

	if (!as && !mp)
		return;
	fprintf(f, "  bytes: %s moved by calls, %s by async requests, %s through file "
		"mappings\n", ana_fmt_bytes(a, sizeof(a), (double)(t->total.bytes - as - mp)),
		ana_fmt_bytes(b, sizeof(b), (double)as), ana_fmt_bytes(d, sizeof(d), (double)mp));
}

/* record --data: the writes, async write requests and pages written
 * through mappings with their bytes kept, and without */
static void print_data(FILE *f, const struct ana_trace *t)
{
	const struct iot_data_count *d = &t->data;
	char a[32], b[32];

	if (!d->calls && !d->nodata_calls && !d->akept && !t->data_on)
		return;
	fprintf(f, "  data: %llu writes with their bytes kept (%s), %llu without (%s)",
		(unsigned long long)d->calls, ana_fmt_bytes(a, sizeof(a), (double)d->bytes),
		(unsigned long long)d->nodata_calls,
		ana_fmt_bytes(b, sizeof(b), (double)d->nodata_bytes));
	if (d->areqs)
		fprintf(f, "; %llu async write requests with their bytes kept (%s), "
			"%llu without (%s)", (unsigned long long)d->akept,
			ana_fmt_bytes(a, sizeof(a), (double)d->akept_bytes),
			(unsigned long long)(d->areqs - d->akept),
			ana_fmt_bytes(b, sizeof(b), (double)(d->abytes - d->akept_bytes)));
	if (d->mp_written)
		fprintf(f, "; %llu pages written through file mappings, without (%s)",
			(unsigned long long)d->mp_written,
			ana_fmt_bytes(a, sizeof(a), (double)d->mp_written_bytes));
	fputc('\n', f);
}

static void print_head(FILE *f, const struct ana_trace *t)
{
	char a[32], b[32], c[16], d[32], w[96];

	fprintf(f, "iotape report: %s\n", t->path);
	fprintf(f, "  %s of: %s\n", t->kind == IOT_KIND_PROFILE ? "replay" : "trace",
		ana_trunc(w, sizeof(w), t->workload && *t->workload ? t->workload : "?", 86));
	if (t->target)
		fprintf(f, "  on: %s (%s)\n", ana_trunc(w, sizeof(w), t->target, 70), t->label);
	fprintf(f, "  %llu events, %llu process records\n",
		(unsigned long long)t->events, (unsigned long long)t->processes);
	pct(c, sizeof(c), ana_phase_metric(t, t->n_phases, ANA_M_UTIL));
	fprintf(f, "  real %s   cpu %s   cpu util %s   df %s\n", NS(a, t->real_ns),
		t->has_cpu ? NS(b, t->cpu_ns) : "-", c,
		t->has_df ? ana_fmt_bytes(d, sizeof(d), (double)t->df_bytes) : "-");
	if (t->kind == IOT_KIND_PROFILE || t->ev_mismatches || t->ev_skipped)
		fprintf(f, "  replay: %llu mismatches, %llu skipped (header says %s, %s)\n",
			(unsigned long long)t->ev_mismatches, (unsigned long long)t->ev_skipped,
			t->has_hdr_mismatches ? (snprintf(a, sizeof(a), "%llu",
				(unsigned long long)t->hdr_mismatches), a) : "-",
			t->has_hdr_skipped ? (snprintf(b, sizeof(b), "%llu",
				(unsigned long long)t->hdr_skipped), b) : "-");
	if (t->skipped_by[0])
		fprintf(f, "  skipped by reason: %s\n", t->skipped_by);
	print_bytes(f, t);
	print_data(f, t);
	if (t->failed[0])
		fprintf(f, "  FAILED: the filesystem under test failed: %s; the replay stopped "
			"there and this profile holds only the calls up to it\n", t->failed);
	else if (t->interrupted[0])
		fprintf(f, "  INTERRUPTED by %s: this profile holds only the calls made before\n",
			t->interrupted);
	if (t->target_faults[0])
		fprintf(f, "  target faults: %s: calls that failed with an error of the filesystem "
			"under test\n", t->target_faults);
	if (t->unfinished)
		fprintf(f, "  %llu calls never returned (no latency)\n",
			(unsigned long long)t->unfinished);
	if (t->damaged)
		fprintf(f, "  DAMAGED: %s\n", t->damage_msg);
	if (t->events == 0)
		fprintf(f, "  no events: the trace holds no recorded calls\n");
}

static void phase_row(FILE *f, const char *name, double real, double cpu,
		      const struct ana_stat *s)
{
	char n[40], a[32], b[32], c[16], d[32];

	pct(c, sizeof(c), real > 0 && !isnan(cpu) ? cpu / real : NAN);
	fprintf(f, "  %-36s %10s %10s %5s %9llu %7llu %10s\n", ana_trunc(n, sizeof(n), name, 36),
		ana_fmt_ns(a, sizeof(a), real), ana_fmt_ns(b, sizeof(b), cpu), c,
		(unsigned long long)s->count, (unsigned long long)s->errors, NS(d, s->total_ns));
}

static void print_phases(FILE *f, const struct ana_trace *t)
{
	size_t i;

	char title[48];

	snprintf(title, sizeof(title), "Phases (%s)", t->marks ? "marks" :
		 t->by_time ? "whole run" : "top-level commands");
	fprintf(f, "\n%-38s %10s %10s %5s %9s %7s %10s\n", title, "real", "cpu", "cpu%",
		"calls", "errors", "io time");
	for (i = 0; i < t->n_phases; i++) {
		const struct ana_phase *p = &t->phases[i];

		if (i + 1 == t->n_phases && p->st.count == 0 && t->gaps_real_ns == 0)
			continue;	/* no gaps to show */
		phase_row(f, p->name, ana_phase_metric(t, i, ANA_M_REAL),
			  ana_phase_metric(t, i, ANA_M_CPU), &p->st);
	}
	phase_row(f, "total", (double)t->real_ns, t->has_cpu ? (double)t->cpu_ns : NAN,
		  &t->total);
	if (t->phases_folded)
		fprintf(f, "  %s: %llu top-level command%s, their real time added up; the %d "
			"longest have rows of their own\n", ANA_OTHER_CMDS,
			(unsigned long long)t->phases_folded, t->phases_folded == 1 ? "" : "s",
			ANA_PHASES_MAX);
}

static void lat_head(FILE *f, const char *title)
{
	fprintf(f, "\n%-17s %8s %6s %10s %8s %8s %8s %8s %8s %10s\n", title, "calls", "errors",
		"total", "mean", "p50", "p90", "p99", "max", "bytes");
}

static void lat_row(FILE *f, const char *name, const struct ana_stat *s)
{
	char n[20], t[32], m[32], a[32], b[32], c[32], d[32], e[32];
	const struct ana_hist *h = &s->lat;

	fprintf(f, "  %-15s %8llu %6llu %10s %8s %8s %8s %8s %8s %10s\n",
		ana_trunc(n, sizeof(n), name, 15), (unsigned long long)s->count,
		(unsigned long long)s->errors, NS(t, s->total_ns),
		h->n ? NS(m, h->sum / (double)h->n) : "-",
		h->n ? NS(a, ana_hist_quantile(h, 0.5)) : "-",
		h->n ? NS(b, ana_hist_quantile(h, 0.9)) : "-",
		h->n ? NS(c, ana_hist_quantile(h, 0.99)) : "-",
		h->n ? NS(d, h->max) : "-",
		s->bytes ? ana_fmt_bytes(e, sizeof(e), (double)s->bytes) : "-");
}

static void print_classes(FILE *f, const struct ana_trace *t)
{
	int c;

	lat_head(f, "Classes");
	for (c = 0; c < IOT_CLASS_COUNT; c++)
		if (t->cls[c].count)
			lat_row(f, iot_class_name(c), &t->cls[c]);
	lat_row(f, "total", &t->total);
}

/* A profile of many clients: each client's calls (what --clients N
 * replayed N times), and the run's throughput. */
static void print_clients(FILE *f, const struct ana_trace *t)
{
	char name[24], a[32];
	int i;

	if (!t->n_clients) {
		fprintf(f, "\n  (not a profile of many clients: made by replay --clients N or "
			"iotape-mpi)\n");
		return;
	}
	fprintf(f, "\n%d clients: %.0f ops/s, %s/s over %s\n", t->n_clients,
		t->real_ns > 0 ? (double)t->total.count * 1e9 / (double)t->real_ns : 0.0,
		ana_fmt_bytes(a, sizeof(a), t->real_ns > 0 ?
			      (double)t->total.bytes * 1e9 / (double)t->real_ns : 0.0),
		NS(name, t->real_ns));
	lat_head(f, "Clients");
	for (i = 0; i < t->n_clients; i++) {
		snprintf(name, sizeof(name), "client %d", i);
		lat_row(f, name, &t->clients[i]);
	}
	lat_row(f, "total", &t->total);
}

static const struct ana_trace *sort_t;

static int cmp_sys(const void *a, const void *b)
{
	const struct ana_stat *x = &sort_t->sys[*(const int *)a];
	const struct ana_stat *y = &sort_t->sys[*(const int *)b];

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static void print_syscalls(FILE *f, const struct ana_trace *t, int top)
{
	int idx[ANA_MAX_NR], n = 0, i;
	char name[24];

	for (i = 0; i < ANA_MAX_NR; i++)
		if (t->sys[i].count)
			idx[n++] = i;
	sort_t = t;
	ana_sort(idx, (size_t)n, sizeof(idx[0]), cmp_sys);
	lat_head(f, top > 0 && n > top ? "Syscalls (top)" : "Syscalls");
	for (i = 0; i < n && (top <= 0 || i < top); i++) {
		const struct iot_syscall *sc = t->sc[idx[i]];

		if (sc)
			snprintf(name, sizeof(name), "%s", sc->name);
		else
			snprintf(name, sizeof(name), "syscall_%d", idx[i]);
		lat_row(f, name, &t->sys[idx[i]]);
	}
	if (top > 0 && n > top)
		fprintf(f, "  ... %d more; --by syscall lists all\n", n - top);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct ana_proc *x = &sort_t->procs[*(const size_t *)a];
	const struct ana_proc *y = &sort_t->procs[*(const size_t *)b];

	if (x->st.total_ns != y->st.total_ns)
		return x->st.total_ns > y->st.total_ns ? -1 : 1;
	return strcmp(x->cmd, y->cmd);
}

static void print_procs(FILE *f, const struct ana_trace *t)
{
	size_t *idx = malloc((t->n_procs + 1) * sizeof(*idx)), i;
	char n[24], a[32], b[32], c[32], d[32], e[32];

	if (!idx)
		return;
	for (i = 0; i < t->n_procs; i++)
		idx[i] = i;
	sort_t = t;
	ana_sort(idx, t->n_procs, sizeof(*idx), cmp_proc);
	fprintf(f, "\n%-17s %6s %10s %9s %6s %10s %8s %8s %10s\n", "Commands", "procs", "cpu",
		"calls", "errors", "io time", "p50", "p99", "bytes");
	for (i = 0; i < t->n_procs; i++) {
		const struct ana_proc *p = &t->procs[idx[i]];
		const struct ana_hist *h = &p->st.lat;

		fprintf(f, "  %-15s %6llu %10s %9llu %6llu %10s %8s %8s %10s\n",
			ana_trunc(n, sizeof(n), p->cmd, 15), (unsigned long long)p->pids,
			t->has_cpu ? NS(a, p->cpu_ns) : "-", (unsigned long long)p->st.count,
			(unsigned long long)p->st.errors, NS(b, p->st.total_ns),
			h->n ? NS(c, ana_hist_quantile(h, 0.5)) : "-",
			h->n ? NS(d, ana_hist_quantile(h, 0.99)) : "-",
			p->st.bytes ? ana_fmt_bytes(e, sizeof(e), (double)p->st.bytes) : "-");
	}
	if (t->cmds_fold)
		fprintf(f, "  %s: the commands named after the first %d\n", ANA_OTHER_CMDS,
			ANA_CMDS_MAX);
	free(idx);
}

void ana_report_text(FILE *f, const struct ana_trace *t, int by, int top)
{
	print_head(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_PHASE)
		print_phases(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_CLASS)
		print_classes(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_SYSCALL)
		print_syscalls(f, t, by == ANA_BY_ALL ? top : 0);
	if (by == ANA_BY_ALL || by == ANA_BY_PROCESS)
		print_procs(f, t);
	if ((by == ANA_BY_ALL && t->n_clients) || by == ANA_BY_CLIENT)
		print_clients(f, t);
}
