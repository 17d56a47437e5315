/*
 * cmd_export.c - iotape export: events as Chrome trace-event JSON (for the
 * Perfetto UI and chrome://tracing), as CSV, or the report as JSON.
 * Chrome and CSV stream the file once; memory does not grow with it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ana.h"
#include "commands.h"

enum { FMT_CHROME, FMT_CSV, FMT_JSON };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape export FILE --format chrome|csv|json [-o OUT]\n\n"
		"Export a trace or profile:\n"
		"  chrome  trace-event JSON: one track per thread, one slice per call (name,\n"
		"          class, path, ret, the call as text), process and thread names\n"
		"          from the process records, phase marks as instants; open it in\n"
		"          https://ui.perfetto.dev or chrome://tracing.  Times in us from\n"
		"          the start of the workload.\n"
		"  csv     one row per call: t_enter_ns,t_exit_ns,dur_ns,pid,tid,syscall,\n"
		"          class,ret,errno,path,path2,args (args: the raw argument values,\n"
		"          space separated, as iotape(5) stores them); RFC 4180 quoting\n"
		"  json    the report of 'iotape report --json'\n"
		"Paths are bytes: in JSON, bytes that are not valid UTF-8 appear as \\u00XX\n"
		"(the byte value as a code point); CSV keeps the bytes as they are.\n\n"
		"Options:\n"
		"  -f, --format FMT   chrome, csv or json; without it, the extension of OUT\n"
		"                     decides: .csv is csv, .json is json (the report), any\n"
		"                     other needs --format (a Chrome trace: --format chrome)\n"
		"  -o OUT             write to OUT instead of standard output\n\n"
		"Examples:\n"
		"  iotape export build.iotape --format chrome -o build.json\n"
		"  iotape export build.iotape --format csv -o events.csv\n"
		"  iotape export build.iotape --format json -o summary.json\n\n"
		"Exit status: 0 done; 1 failed; 2 bad usage; 3 FILE was damaged (its\n"
		"complete part was exported).\n");
}

/* ns relative to @t0 as microseconds with 3 decimals, exactly. */
static void put_us(FILE *f, int64_t ns, int64_t t0)
{
	int64_t d = iot_ns_sub(ns, t0);

	if (d < 0) {
		fputc('-', f);
		d = -d;
	}
	fprintf(f, "%" PRId64 ".%03" PRId64, d / 1000, d % 1000);
}

static void chrome_proc(FILE *f, const struct iot_process *p, int64_t t0, int *first)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *m;

	if (p->kind == IOT_PROC_PHASE) {
		fprintf(f, "%s{\"name\":", *first ? "\n" : ",\n");
		*first = 0;
		m = open_memstream(&s, &len);
		if (!m)
			return;
		fprintf(m, "phase: %s", p->argc ? p->argv[0] : "");
		fclose(m);
		ana_json_str(f, s, len);
		fprintf(f, ",\"ph\":\"i\",\"s\":\"g\",\"pid\":%d,\"tid\":%d,\"ts\":", p->pid, p->tid);
		put_us(f, p->t_ns, t0);
		fputc('}', f);
		free(s);
		return;
	}
	if (p->kind != IOT_PROC_START && p->kind != IOT_PROC_EXEC && p->kind != IOT_PROC_FORK &&
	    p->kind != IOT_PROC_THREAD)
		return;
	m = open_memstream(&s, &len);
	if (!m)
		return;
	if (p->argc) {
		for (i = 0; i < p->argc; i++)
			fprintf(m, "%s%.*s", i ? " " : "", (int)p->argv_len[i], p->argv[i]);
	} else {
		fprintf(m, "%s %d", p->kind == IOT_PROC_THREAD ? "thread" : "process", p->tid);
	}
	fclose(m);
	if (p->kind != IOT_PROC_THREAD) {
		fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":", *first ? "\n" : ",\n", p->pid, p->pid);
		*first = 0;
		ana_json_str(f, s, len);
		fputs("}}", f);
	}
	fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"name\":", *first ? "\n" : ",\n", p->pid, p->tid);
	*first = 0;
	ana_json_str(f, s, len);
	fputs("}}", f);
	free(s);
}

static void chrome_event(FILE *f, const struct iot_event *ev, const struct iot_syscall *sc,
			 int64_t t0, int *first)
{
	char line[512], nm[32];
	int64_t dur = ev->t_exit > ev->t_enter ? iot_ns_sub(ev->t_exit, ev->t_enter) : 0;
	const char *name = sc ? sc->name : nm;
	int n;

	if (!sc)
		snprintf(nm, sizeof(nm), "syscall_%d", ev->nr);
	if (ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS))
		dur = 0;
	fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":",
		*first ? "\n" : ",\n", name, iot_class_name(ana_class_of(sc)), ev->pid, ev->tid);
	*first = 0;
	put_us(f, ev->t_enter, t0);
	fputs(",\"dur\":", f);
	put_us(f, dur, 0);
	fprintf(f, ",\"args\":{\"ret\":%" PRId64, ev->ret);
	if (ev->ret < 0 && ev->ret >= -4095 && iot_errno_name((int)-ev->ret))
		fprintf(f, ",\"errno\":\"%s\"", iot_errno_name((int)-ev->ret));
	if (ev->path) {
		fputs(",\"path\":", f);
		ana_json_str(f, ev->path, ev->path_len);
	}
	if (ev->path2) {
		fputs(",\"path2\":", f);
		ana_json_str(f, ev->path2, ev->path2_len);
	}
	if (ev->flags)
		fprintf(f, ",\"flags\":%u", ev->flags);
	n = iot_format_event(line, sizeof(line), ev);
	if (n > 0) {
		fputs(",\"call\":", f);
		ana_json_str(f, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
	fputs("}}", f);
}

static void csv_event(FILE *f, const struct iot_event *ev, const struct iot_syscall *sc)
{
	const char *en = ev->ret < 0 && ev->ret >= -4095 ? iot_errno_name((int)-ev->ret) : NULL;
	uint32_t i;

	fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%d,", ev->t_enter, ev->t_exit,
		iot_ns_sub(ev->t_exit, ev->t_enter), ev->pid, ev->tid);
	if (sc)
		fprintf(f, "%s,", sc->name);
	else
		fprintf(f, "syscall_%d,", ev->nr);
	fprintf(f, "%s,%" PRId64 ",%s,", iot_class_name(ana_class_of(sc)), ev->ret, en ? en : "");
	ana_csv_str(f, ev->path, ev->path_len);
	fputc(',', f);
	ana_csv_str(f, ev->path2, ev->path2_len);
	fputc(',', f);
	for (i = 0; i < ev->nargs && i < IOT_MAX_ARGS; i++)
		fprintf(f, "%s%" PRId64, i ? " " : "", ev->args[i]);
	fputs("\r\n", f);
}

/* Write the events of @r, the trace @path, to @f; closes @r. */
static int stream(struct iot_reader *r, const char *path, FILE *f, int fmt)
{
	const struct iot_syscall *sc[ANA_MAX_NR] = { 0 };
	const struct iot_header *h;
	const struct iot_summary *s;
	struct iot_item it;
	char why[320];
	int64_t t0;
	int n, first = 1, rc;
	size_t i;

	h = iot_reader_header(r);
	s = iot_reader_summary(r);
	for (i = 0; i < h->n_syscalls; i++)
		if (h->syscalls[i].nr >= 0 && h->syscalls[i].nr < ANA_MAX_NR)
			sc[h->syscalls[i].nr] = &h->syscalls[i];
	for (i = 0; i < ANA_MAX_NR; i++)
		if (!sc[i])
			sc[i] = iot_syscall_by_nr((int)i);
	t0 = iot_time_base(h, s);
	if (fmt == FMT_CHROME)
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	else
		fputs("t_enter_ns,t_exit_ns,dur_ns,pid,tid,syscall,class,ret,errno,path,path2,args\r\n",
		      f);
	while ((n = iot_reader_next(r, &it)) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			const struct iot_syscall *row = it.u.ev.nr >= 0 && it.u.ev.nr < ANA_MAX_NR ?
							sc[it.u.ev.nr] : NULL;

			if (fmt == FMT_CHROME)
				chrome_event(f, &it.u.ev, row, t0, &first);
			else
				csv_event(f, &it.u.ev, row);
		} else if (it.kind == IOT_ITEM_PROCESS && fmt == FMT_CHROME) {
			chrome_proc(f, &it.u.proc, t0, &first);
		}
	}
	if (fmt == FMT_CHROME)
		fputs("\n]}\n", f);
	rc = IOT_EXIT_OK;
	if (n < 0 && n != IOT_E_CORRUPT && n != IOT_E_TRUNCATED) {
		cli_err("export", "%s: %s", path, iot_strerror(n));
		rc = IOT_EXIT_FAIL;
	} else if (iot_damage_text(why, sizeof(why), s, t0)) {
		cli_warn("export", "%s: %s; the complete part was exported", path, why);
		rc = IOT_EXIT_DAMAGED;
	}
	iot_reader_close(r);
	return rc;
}

static int fmt_of(const char *s)
{
	if (strcmp(s, "chrome") == 0 || strcmp(s, "perfetto") == 0)
		return FMT_CHROME;
	if (strcmp(s, "csv") == 0)
		return FMT_CSV;
	if (strcmp(s, "json") == 0)
		return FMT_JSON;
	return -1;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *out = NULL, *fs = NULL;
	struct ana_trace t = { 0 };
	struct iot_reader *r = NULL;
	int fmt = -1, c, rc = IOT_EXIT_FAIL;
	FILE *f = stdout;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hf:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': fs = optarg; break;
		case 'o': out = optarg; break;
		case 'h':
			usage(stdout);
			return IOT_EXIT_OK;
		case ':':
			if (optopt == 'f')
				cli_err("export", "%s needs a FORMAT: chrome, csv or json",
					argv[optind - 1]);
			else if (optopt == 'o')
				cli_err("export", "-o needs a FILE; usage: iotape export FILE --format "
					"chrome|csv|json [-o OUT]");
			else
				cli_bad_option("export", c, argv);
			return IOT_EXIT_USAGE;
		default:
			cli_bad_option("export", c, argv);
			return IOT_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		cli_err("export", "one FILE only, extra '%s'; usage: iotape export FILE --format "
			"chrome|csv|json [-o OUT]", argv[optind + 1]);
		return IOT_EXIT_USAGE;
	}
	if (optind < argc)
		file = argv[optind];
	if (!file) {
		cli_err("export", "no trace given; usage: iotape export FILE --format "
			"chrome|csv|json [-o OUT]");
		return IOT_EXIT_USAGE;
	}
	if (fs && (fmt = fmt_of(fs)) < 0) {
		cli_err("export", "--format %s: unknown; give chrome, csv or json", fs);
		return IOT_EXIT_USAGE;
	}
	if (!fs && out) {
		/* the format named by the extension; a Chrome trace is JSON
		 * too, but "json" is the name of the report's format */
		const char *dot = strrchr(ana_basename(out), '.');

		if (dot && strcasecmp(dot, ".csv") == 0)
			fmt = FMT_CSV;
		else if (dot && strcasecmp(dot, ".json") == 0)
			fmt = FMT_JSON;
	}
	if (fmt < 0) {
		if (out)
			cli_err("export", "-o %s: its extension is not .csv or .json; give "
				"--format chrome, csv or json", out);
		else
			cli_err("export", "no --format given; give --format chrome, csv or json");
		return IOT_EXIT_USAGE;
	}
	if (out && cli_same_file(file, out)) {
		cli_err("export", "-o %s is the input trace; give another output file", out);
		return IOT_EXIT_USAGE;
	}
	/* the input is opened first, so that no output is made when it
	 * cannot be read */
	if (fmt == FMT_JSON) {
		char *paths[1] = { (char *)file };

		rc = ana_load_all("export", paths, 1, &t);
		if (rc == IOT_EXIT_FAIL)
			return rc;
	} else {
		rc = iot_reader_open(&r, file);
		if (rc < 0) {
			cli_open_trace_msg("export", file, rc);
			return IOT_EXIT_FAIL;
		}
		(void)iot_reader_set_ahead(r, cli_read_ahead());
	}
	if (out && !(f = ana_open_out("export", out))) {
		if (fmt == FMT_JSON)
			ana_trace_free(&t);
		else
			iot_reader_close(r);
		return IOT_EXIT_FAIL;
	}
	if (fmt == FMT_JSON) {
		ana_report_json(f, &t, ANA_BY_ALL);
		ana_trace_free(&t);
	} else {
		rc = stream(r, file, f, fmt);
	}
	if (ana_close_out("export", f, out) < 0)
		return IOT_EXIT_FAIL;
	return rc;
}
