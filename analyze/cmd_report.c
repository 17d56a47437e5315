/*
 * cmd_report.c - iotape report: where the time went.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ana.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape report FILE... [--by phase|process|syscall|class|client] [--json]\n"
		"                     [--top N] [-o OUT] [--html PAGE]\n\n"
		"Where the time went in a trace or a replay profile: real time, CPU time and\n"
		"utilisation, df (profiles), then per phase, per syscall class (metadata, read,\n"
		"write, directory, sync, xattr, process, other), per syscall and per command:\n"
		"calls, errors, total time, mean/p50/p90/p99/max latency, bytes moved.\n\n"
		"Phases: a phase mark (the recorded program touched\n"
		"/dev/null/iotape-phase/NAME) starts phase NAME, which lasts until the next\n"
		"mark.  Without marks, each top-level command is a phase: every child the\n"
		"workload's first process starts (and every later exec of that process),\n"
		"named by its command line, from its start to its exit; time between them\n"
		"is \"(gaps)\"; past 256 of them, the 256 longest keep rows and the others\n"
		"are one, \"(other commands)\" (so are command names past the first 256).\n"
		"A program run alone is one phase.  The CPU time of the\n"
		"first process (in no phase) goes to the phases and gaps in proportion to\n"
		"the time it ran in each; so does that of a process that outlives its\n"
		"command (a server it started), whose later calls count where they fall.\n\n"
		"Options:\n"
		"  --by WHAT     show only the phase, process, syscall, class or client table\n"
		"                (client: a profile of replay --clients N, each client's\n"
		"                calls and latency, the run's ops/s and bytes/s)\n"
		"  --json        the report as JSON (the schema is in iotape(1))\n"
		"  --top N       syscalls listed in the full report (default 15; 0 = all)\n"
		"  -o OUT        write to OUT instead of standard output\n"
		"  --html PAGE   also write one self-contained HTML page comparing the\n"
		"                FILEs: diff table, per-phase bars, latency CDFs, timelines\n\n"
		"Examples:\n"
		"  iotape report build.iotape\n"
		"  iotape report build.iotape --by phase\n"
		"  iotape report build.iotape --by syscall --json > syscalls.json\n"
		"  iotape report ext4.iotape xfs.iotape --html report.html\n\n"
		"Exit status: 0 done; 1 failed; 2 bad usage; 3 a FILE was damaged (its\n"
		"complete part was analyzed).\n");
}

int ana_parse_by(const char *s)
{
	if (strcmp(s, "phase") == 0)
		return ANA_BY_PHASE;
	if (strcmp(s, "process") == 0 || strcmp(s, "command") == 0)
		return ANA_BY_PROCESS;
	if (strcmp(s, "syscall") == 0)
		return ANA_BY_SYSCALL;
	if (strcmp(s, "class") == 0)
		return ANA_BY_CLASS;
	if (strcmp(s, "client") == 0)
		return ANA_BY_CLIENT;
	return -1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	const char *out = NULL, *html = NULL;
	struct ana_trace *t = NULL;
	struct ana_group *g = NULL;
	int nf = 0, by = ANA_BY_ALL, json = 0, top = 15, i, c, rc = IOT_EXIT_USAGE, lr, ng;
	FILE *f = stdout;

	if (!files)
		return IOT_EXIT_FAIL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'o': out = optarg; break;
		case 'H': html = optarg; break;
		case 'b':
			if ((by = ana_parse_by(optarg)) < 0) {
				cli_err("report", "--by %s: expected phase, process, syscall, class or client",
					optarg);
				goto out;
			}
			break;
		case 't':
			if (!cli_parse_int(optarg, 0, INT_MAX, &top)) {
				cli_err("report", "--top %s: expected a number of syscalls, "
					"0 or more (0 = all)", optarg);
				goto out;
			}
			break;
		case 'h':
			usage(stdout);
			rc = IOT_EXIT_OK;
			goto out;
		case ':':
			if (optopt == 'b')
				cli_err("report", "--by needs phase, process, syscall, class or client");
			else if (optopt == 't')
				cli_err("report", "--top needs a number of syscalls, 0 or more (0 = all)");
			else if (optopt == 'o' || optopt == 'H')
				cli_err("report", "%s needs a FILE; usage: iotape report FILE... "
					"[-o OUT] [--html PAGE]", argv[optind - 1]);
			else
				cli_bad_option("report", c, argv);
			goto out;
		default:
			cli_bad_option("report", c, argv);
			goto out;
		}
	}
	while (optind < argc)
		files[nf++] = argv[optind++];
	if (nf == 0) {
		cli_err("report", "no trace given; usage: iotape report FILE... (see --help)");
		goto out;
	}
	if (ana_outputs_refused("report", out, html, files, nf))
		goto out;
	lr = ana_load_files("report", files, nf, &t, &g);
	if (lr == IOT_EXIT_FAIL) {
		rc = lr;
		goto out;
	}
	if (out && !(f = ana_open_out("report", out))) {
		f = stdout;
		rc = IOT_EXIT_FAIL;
		goto out;
	}
	if (json && nf > 1)
		fputs("[\n", f);
	for (i = 0; i < nf; i++) {
		if (json) {
			if (i)
				fputs(",\n", f);
			ana_report_json(f, &t[i], by);
		} else {
			if (i)
				fputs("\n", f);
			ana_report_text(f, &t[i], by, top);
		}
	}
	if (json && nf > 1)
		fputs("]\n", f);
	rc = lr;
	if (html) {
		ng = ana_group_traces(t, nf, NULL, g);
		if (ana_html_write("report", html, g, ng) < 0)
			rc = IOT_EXIT_FAIL;
		ana_groups_free(g, ng);
	}
	if (ana_close_out("report", f, out) < 0)
		rc = IOT_EXIT_FAIL;
	f = stdout;
out:
	if (f != stdout)
		fclose(f);
	ana_files_free(t, g, nf);
	free(files);
	return rc;
}
