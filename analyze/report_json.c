/*
 * report_json.c - `iotape report --json` and `export --format json`: the
 * report as one JSON object.  Times are integers in ns; values that are
 * not known (CPU time of a profile without process records, df of a
 * trace) are null.  Schema in analyze/README.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"
#include "engine.h"

static void key(FILE *f, const char *k)
{
	fprintf(f, "\"%s\": ", k);
}

static void num_or_null(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.4f", v);
}

static void stat_json(FILE *f, const struct ana_stat *s)
{
	const struct ana_hist *h = &s->lat;

	fprintf(f, "\"count\": %llu, \"errors\": %llu, \"bytes\": %llu, \"total_ns\": %lld, "
		"\"timed\": %llu, ",
		(unsigned long long)s->count, (unsigned long long)s->errors,
		(unsigned long long)s->bytes, (long long)s->total_ns,
		(unsigned long long)s->timed);
	if (h->n)
		fprintf(f, "\"mean_ns\": %.0f, \"p50_ns\": %lld, \"p90_ns\": %lld, "
			"\"p99_ns\": %lld, \"max_ns\": %lld",
			h->sum / (double)h->n, (long long)ana_hist_quantile(h, 0.5),
			(long long)ana_hist_quantile(h, 0.9), (long long)ana_hist_quantile(h, 0.99),
			(long long)h->max);
	else
		fputs("\"mean_ns\": null, \"p50_ns\": null, \"p90_ns\": null, "
		      "\"p99_ns\": null, \"max_ns\": null", f);
	if (s->mismatches || s->skipped)
		fprintf(f, ", \"mismatches\": %llu, \"skipped\": %llu",
			(unsigned long long)s->mismatches, (unsigned long long)s->skipped);
}

static void str(FILE *f, const char *s)
{
	if (!s)
		fputs("null", f);
	else
		ana_json_str(f, s, strlen(s));
}
/* "reason N, reason N" (replay.skipped_by) as ', "skipped_by": {"reason": N, ...}' */
static void skipped_by_json(FILE *f, const char *s)
{
	const char *sep = "";

	fputs(", \"skipped_by\": {", f);
	while (*s) {
		const char *end = strstr(s, ", "), *sp;
		size_t n = end ? (size_t)(end - s) : strlen(s);
		char name[512];

		for (sp = s + n; sp > s && sp[-1] != ' '; sp--)
			;
		if (sp > s && (size_t)(sp - 1 - s) < sizeof(name)) {
			memcpy(name, s, (size_t)(sp - 1 - s));
			name[sp - 1 - s] = 0;
			fputs(sep, f);
			str(f, name);
			fprintf(f, ": %llu", strtoull(sp, NULL, 10));
			sep = ", ";
		}
		s += n;
		if (*s)
			s += 2;
	}
	fputc('}', f);
}


static void head_json(FILE *f, const struct ana_trace *t)
{
	key(f, "file");
	str(f, t->path);
	fputs(",\n  ", f);
	key(f, "kind");
	str(f, t->kind == IOT_KIND_PROFILE ? "profile" : "trace");
	fputs(", ", f);
	key(f, "label");
	str(f, t->label);
	fputs(",\n  ", f);
	key(f, "workload");
	str(f, t->workload);
	fputs(",\n  ", f);
	key(f, "target");
	str(f, t->target);
	fprintf(f, ",\n  \"events\": %llu, \"process_records\": %llu, \"damaged\": %s,\n  ",
		(unsigned long long)t->events, (unsigned long long)t->processes,
		t->damaged ? "true" : "false");
	if (t->damaged) {
		key(f, "damage");
		str(f, t->damage_msg);
		fputs(",\n  ", f);
	}
	fprintf(f, "\"real_ns\": %lld, \"cpu_ns\": ", (long long)t->real_ns);
	num_or_null(f, t->has_cpu ? (double)t->cpu_ns : NAN);
	fputs(", \"cpu_util\": ", f);
	num_or_null(f, ana_phase_metric(t, t->n_phases, ANA_M_UTIL));
	fputs(", \"df_bytes\": ", f);
	num_or_null(f, t->has_df ? (double)t->df_bytes : NAN);
	fprintf(f, ",\n  \"replay\": {\"mismatches\": %llu, \"skipped\": %llu, "
		"\"header_mismatches\": ", (unsigned long long)t->ev_mismatches,
		(unsigned long long)t->ev_skipped);
	num_or_null(f, t->has_hdr_mismatches ? (double)t->hdr_mismatches : NAN);
	fputs(", \"header_skipped\": ", f);
	num_or_null(f, t->has_hdr_skipped ? (double)t->hdr_skipped : NAN);
	/* only in profiles of replays that met target faults: the keys
	 * of every other report stay as they were */
	if (t->failed[0]) {
		fputs(", \"failed\": ", f);
		str(f, t->failed);
	}
	if (t->target_faults[0])
		fprintf(f, ", \"target_faults\": %llu", strtoull(t->target_faults, NULL, 10));
	/* only in profiles that say why calls were skipped */
	if (t->skipped_by[0])
		skipped_by_json(f, t->skipped_by);
	fprintf(f, "}, \"unfinished\": %llu", (unsigned long long)t->unfinished);
	/* only in traces recorded with --data: other reports stay as they were */
	if (t->data.calls || t->data.nodata_calls || t->data.akept || t->data_on)
		fprintf(f, ", \"data\": {\"kept_calls\": %llu, \"kept_bytes\": %llu, "
			"\"not_kept_calls\": %llu, \"not_kept_bytes\": %llu, "
			"\"async_write_requests\": %llu, \"async_write_bytes\": %llu, "
			"\"async_kept_requests\": %llu, \"async_kept_bytes\": %llu, "
			"\"mapped_pages_written\": %llu, \"mapped_bytes_written\": %llu}",
			(unsigned long long)t->data.calls, (unsigned long long)t->data.bytes,
			(unsigned long long)t->data.nodata_calls, (unsigned long long)t->data.nodata_bytes,
			(unsigned long long)t->data.areqs, (unsigned long long)t->data.abytes,
			(unsigned long long)t->data.akept, (unsigned long long)t->data.akept_bytes,
			(unsigned long long)t->data.mp_written,
			(unsigned long long)t->data.mp_written_bytes);
}

static void phases_json(FILE *f, const struct ana_trace *t)
{
	size_t i;

	fprintf(f, ",\n  \"phase_source\": \"%s\",\n  \"phases\": [", t->marks ? "marks" :
		t->by_time ? "run" : "commands");
	for (i = 0; i < t->n_phases; i++) {
		const struct ana_phase *p = &t->phases[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		key(f, "name");
		str(f, p->name);
		fprintf(f, ", \"start_ns\": %lld, \"real_ns\": ",
			(long long)(i + 1 == t->n_phases ? 0 : iot_ns_sub(p->start, t->t_first)));
		num_or_null(f, ana_phase_metric(t, i, ANA_M_REAL));
		fputs(", \"cpu_ns\": ", f);
		num_or_null(f, ana_phase_metric(t, i, ANA_M_CPU));
		fputs(", \"cpu_util\": ", f);
		num_or_null(f, ana_phase_metric(t, i, ANA_M_UTIL));
		fputs(", ", f);
		stat_json(f, &p->st);
		/* only in the row of "(other commands)": the others' keys stay */
		if (t->phases_folded && i + 2 == t->n_phases)
			fprintf(f, ", \"folded\": %llu", (unsigned long long)t->phases_folded);
		fputc('}', f);
	}
	fputs("\n  ]", f);
}

static void classes_json(FILE *f, const struct ana_trace *t)
{
	int c;

	fputs(",\n  \"classes\": {", f);
	for (c = 0; c < IOT_CLASS_COUNT; c++) {
		fprintf(f, "%s\"%s\": {", c ? ",\n    " : "\n    ", iot_class_name(c));
		stat_json(f, &t->cls[c]);
		fputc('}', f);
	}
	fputs("\n  },\n  \"total\": {", f);
	stat_json(f, &t->total);
	fputc('}', f);
}

static void syscalls_json(FILE *f, const struct ana_trace *t)
{
	int i, first = 1;

	fputs(",\n  \"syscalls\": {", f);
	for (i = 0; i < ANA_MAX_NR; i++) {
		if (!t->sys[i].count)
			continue;
		fputs(first ? "\n    " : ",\n    ", f);
		first = 0;
		if (t->sc[i])
			fprintf(f, "\"%s\": {\"nr\": %d, \"class\": \"%s\", ", t->sc[i]->name, i,
				iot_class_name(ana_class_of(t->sc[i])));
		else
			fprintf(f, "\"syscall_%d\": {\"nr\": %d, \"class\": \"other\", ", i, i);
		stat_json(f, &t->sys[i]);
		fputc('}', f);
	}
	fputs("\n  }", f);
}

static void procs_json(FILE *f, const struct ana_trace *t)
{
	size_t i;

	fputs(",\n  \"commands\": [", f);
	for (i = 0; i < t->n_procs; i++) {
		const struct ana_proc *p = &t->procs[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		key(f, "command");
		str(f, p->cmd);
		fprintf(f, ", \"processes\": %llu, \"cpu_ns\": ", (unsigned long long)p->pids);
		num_or_null(f, t->has_cpu ? (double)p->cpu_ns : NAN);
		fputs(", ", f);
		stat_json(f, &p->st);
		fputc('}', f);
	}
	fputs("\n  ]", f);
}

static void clients_json(FILE *f, const struct ana_trace *t)
{
	int i;

	fputs(",\n  \"clients\": [", f);
	for (i = 0; i < t->n_clients; i++) {
		fprintf(f, "%s{\"client\": %d, ", i ? ",\n    " : "\n    ", i);
		stat_json(f, &t->clients[i]);
		fputc('}', f);
	}
	fputs("\n  ]", f);
}

void ana_report_json(FILE *f, const struct ana_trace *t, int by)
{
	fputs("{\n  ", f);
	head_json(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_PHASE)
		phases_json(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_CLASS)
		classes_json(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_SYSCALL)
		syscalls_json(f, t);
	if (by == ANA_BY_ALL || by == ANA_BY_PROCESS)
		procs_json(f, t);
	if ((by == ANA_BY_ALL && t->n_clients) || by == ANA_BY_CLIENT)
		clients_json(f, t);
	fputs("\n}\n", f);
}
