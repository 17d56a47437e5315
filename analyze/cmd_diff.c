/*
 * cmd_diff.c - iotape diff: compare traces and profiles.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ana.h"
#include "commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape diff A B [C...] [-- B2 B3 ... [-- ...]] [--html PAGE] [-o OUT]\n\n"
		"Compare traces and replay profiles as the classic filesystem benchmark\n"
		"tables do: per phase (then for the whole run) REAL_TIME, CPU_TIME,\n"
		"CPU_UTIL and DF, absolute for the first configuration (A) and as ratios\n"
		"B/A, C/A... for the others; then per syscall class the calls, total time\n"
		"and p50/p99 latency, so that a difference is explained.\n\n"
		"Configurations: profiles with the same target label (\"ext3-journal\") are\n"
		"runs of one configuration; or separate configurations with '--':\n"
		"  iotape diff a1 a2 a3 -- b1 b2 b3\n"
		"A configuration's value is the median of its runs; a ratio is marked '*'\n"
		"when its distance from 1 exceeds the two configurations' run-to-run\n"
		"spread ((max - min) / median).  Column heads are the target label of a\n"
		"profile, else the file name.  A warning names it when the files are not\n"
		"of the same workload (another command, or very different call counts).\n\n"
		"Phases are those of 'iotape report' (phase marks, else top-level commands).\n"
		"A profile of a replay that a fault of the filesystem under test stopped\n"
		"(ENOSPC, EIO, ...: 'iotape check' shows it) holds only the calls up to\n"
		"the fault: it is not compared; a configuration with no complete run is\n"
		"shown as FAILED, with why.\n\n"
		"Options:\n"
		"  --html PAGE   also write one self-contained HTML page with the table and\n"
		"                plots (per-phase bars, latency CDFs per class, timelines)\n"
		"  -o OUT        write the table to OUT instead of standard output\n"
		"  --failed LABEL=TEXT  a configuration that failed before it made a\n"
		"                profile (iotape bench): a FAILED column, TEXT says why\n\n"
		"Examples:\n"
		"  iotape diff ext4.iotape xfs.iotape btrfs.iotape\n"
		"  iotape diff bench/ext4.*.iotape bench/xfs.*.iotape --html cmp.html\n"
		"  iotape diff build.iotape build.tmpfs.iotape\n\n"
		"Exit status: 0 done; 1 failed; 2 bad usage; 3 a file was damaged (its\n"
		"complete part was used).\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "failed", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	char **fails = calloc((size_t)argc + 1, sizeof(*fails));
	int *sep = calloc((size_t)argc + 1, sizeof(*sep));
	const char *out = NULL, *html = NULL;
	struct ana_trace *t = NULL;
	struct ana_group *g = NULL;
	int nf = 0, i, c, ng = 0, rc = IOT_EXIT_USAGE, lr, pending_sep = 0, nfail = 0;
	FILE *f = stdout;

	if (!files || !sep || !fails) {
		rc = IOT_EXIT_FAIL;
		goto out;
	}
	/*
	 * In order ('-'): a FILE comes back as 1, so each one is seen where
	 * it stands among the '--' that separate configurations.  getopt
	 * ends at a '--' with optind past it; the scan goes on from there.
	 */
	optind = 0;
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, "-:ho:", longopts, NULL);
		if (c == -1) {
			if (optind < 2 || optind > argc || strcmp(argv[optind - 1], "--") != 0)
				break;
			pending_sep = 1;
			if (optind == argc)
				break;
			continue;
		}
		switch (c) {
		case 1:
			sep[nf] = pending_sep;
			pending_sep = 0;
			files[nf++] = optarg;
			break;
		case 'o': out = optarg; break;
		case 'H': html = optarg; break;
		case 'F':
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				cli_err("diff", "--failed needs LABEL=TEXT (a configuration that made "
					"no profile, and why)");
				goto out;
			}
			fails[nfail++] = optarg;
			break;
		case 'h':
			usage(stdout);
			rc = IOT_EXIT_OK;
			goto out;
		case ':':
			if (optopt == 'o' || optopt == 'H')
				cli_err("diff", "%s needs a FILE; usage: iotape diff A B [C...] "
					"[--html PAGE] [-o OUT]", argv[optind - 1]);
			else if (optopt == 'F')
				cli_err("diff", "--failed needs LABEL=TEXT (a configuration that made "
					"no profile, and why)");
			else
				cli_bad_option("diff", c, argv);
			goto out;
		default:
			cli_bad_option("diff", c, argv);
			goto out;
		}
	}
	if (nf < 1 || nf + nfail < 2) {
		if (nf == 0)
			cli_err("diff", "no files given; usage: iotape diff A B [C...] (see --help)");
		else
			cli_err("diff", "%s: nothing to compare it with; give two files or more, or "
				"see one with 'iotape report %s'", files[0], files[0]);
		goto out;
	}
	if (ana_outputs_refused("diff", out, html, files, nf))
		goto out;
	lr = ana_load_files("diff", files, nf, &t, &g);
	if (lr == IOT_EXIT_FAIL) {
		rc = lr;
		goto out;
	}
	ng = ana_group_traces(t, nf, sep, g);
	if (nfail && (i = ana_groups_add_failed(&g, ng, fails, nfail)) > 0)
		ng = i;
	ana_groups_failed(g, ng);
	if (ng == 1 && nf > 1 && g[0].n == nf)
		cli_warn("diff", "all %d files are runs of one configuration (%s); "
			 "separate configurations with '--'", nf, g[0].label);
	ana_diff_warn("diff", g, ng);
	if (out && !(f = ana_open_out("diff", out))) {
		f = stdout;
		rc = IOT_EXIT_FAIL;
		goto out;
	}
	ana_diff_text(f, g, ng);
	rc = lr;
	if (html && ana_html_write("diff", html, g, ng) < 0)
		rc = IOT_EXIT_FAIL;
	if (ana_close_out("diff", f, out) < 0)
		rc = IOT_EXIT_FAIL;
	f = stdout;
out:
	if (f != stdout)
		fclose(f);
	ana_groups_free(g, ng);
	ana_files_free(t, g, nf);
	free(sep);
	free(fails);
	free(files);
	return rc;
}
