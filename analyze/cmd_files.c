/*
 * cmd_files.c - what report, diff and export share on the command line:
 * loading the input files with their messages and exit codes, and
 * refusing an output that would destroy an input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"
#include "commands.h"

int ana_load_all(const char *cmd, char **paths, int n, struct ana_trace *t)
{
	int i, rc, ret = IOT_EXIT_OK;

	for (i = 0; i < n; i++) {
		t[i].read_ahead = cli_read_ahead();
		rc = ana_load(&t[i], paths[i]);
		if (rc < 0) {
			if (rc == -ENOMEM)
				cli_err(cmd, "%s: out of memory", paths[i]);
			else
				cli_open_trace_msg(cmd, paths[i], rc);
			while (i >= 0)
				ana_trace_free(&t[i--]);
			return IOT_EXIT_FAIL;
		}
		if (t[i].damaged) {
			cli_warn(cmd, "%s: %s", paths[i], t[i].damage_msg);
			ret = IOT_EXIT_DAMAGED;
		}
	}
	return ret;
}

int ana_load_files(const char *cmd, char **paths, int n,
		   struct ana_trace **tp, struct ana_group **gp)
{
	struct ana_trace *t = calloc((size_t)n, sizeof(*t));
	struct ana_group *g = calloc((size_t)n, sizeof(*g));
	int rc;

	*tp = NULL;
	*gp = NULL;
	if (!t || !g) {
		cli_err(cmd, "out of memory for %d traces", n);
		rc = IOT_EXIT_FAIL;
		goto out;
	}
	rc = ana_load_all(cmd, paths, n, t);
	if (rc == IOT_EXIT_FAIL)
		goto out;	/* ana_load_all() freed what it had loaded */
	*tp = t;
	*gp = g;
	return rc;
out:
	free(t);
	free(g);
	return rc;
}

/* Whether the output @out of option @opt is one of the @nf input @files,
 * which opening it for writing would destroy; says so. */
static int out_is_input(const char *cmd, const char *opt, const char *out, char **files,
			int nf)
{
	int i;

	for (i = 0; out && i < nf; i++) {
		if (!cli_same_file(files[i], out))
			continue;
		if (strcmp(files[i], out) == 0)
			cli_err(cmd, "%s %s is an input trace; give another output file", opt, out);
		else
			cli_err(cmd, "%s %s is the input trace %s; give another output file", opt,
				out, files[i]);
		return 1;
	}
	return 0;
}

int ana_outputs_refused(const char *cmd, const char *out, const char *html, char **files,
			int nf)
{
	if (out_is_input(cmd, "-o", out, files, nf) || out_is_input(cmd, "--html", html, files, nf))
		return 1;
	if (out && html && (strcmp(out, html) == 0 || cli_same_file(out, html))) {
		cli_err(cmd, "-o %s and --html %s are the same file; give two different ones",
			out, html);
		return 1;
	}
	return 0;
}
