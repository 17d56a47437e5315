/*
 * util.c - helpers shared by the subcommands: messages (and the sink the
 * engines print through), options, files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "iotape.h"

void cli_msg(int level, const char *who, const char *text)
{
	switch (level) {
	case IOT_MSG_QUOTE:
		fprintf(stderr, "  | %s\n", text);
		return;
	case IOT_MSG_STATUS:
		fprintf(stderr, "\riotape: %s: %s", who, text);
		fflush(stderr);
		return;
	}
	/* one call, so that lines from several threads do not mix */
	fprintf(stderr, "iotape: %s%s%s%s\n", who ? who : "", who ? ": " : "",
		level == IOT_MSG_WARNING ? "warning: " : "", text);
}

int cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void cli_open_trace_msg(const char *cmd, const char *path, int err)
{
	const char *hint = "";

	if (err == IOT_E_NOT_IOTAPE)
		hint = " (is it an iotape trace? 'iotape check' validates one)";
	else if (err == IOT_E_VERSION)
		hint = "; a newer iotape is needed to read it";
	/* The reader's open fails on damage only inside the header frame:
	 * everything after it is read, or its damage reported, later. */
	if (err == IOT_E_TRUNCATED || err == IOT_E_CORRUPT) {
		cli_err(cmd, "%s: the first frame is %s: not an iotape trace, or "
			"its header is damaged (nothing can be read or repaired)",
			path, err == IOT_E_TRUNCATED ? "incomplete" : "unreadable");
		return;
	}
	cli_err(cmd, "%s: %s%s", path, iot_strerror(err), hint);
}

int cli_read_ahead(void)
{
	const char *v = getenv("IOTAPE_READAHEAD");
	int n;

	if (v && cli_parse_int(v, 0, 64, &n))
		return n;
	return CLI_READ_AHEAD;
}

int cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(b, &sb) < 0 || stat(a, &sa) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void cli_bad_option(const char *cmd, int ch, char **argv)
{
	const char *a = argv[optind - 1];
	int len = (int)strcspn(a, "=");
	char s[3] = { '-', (char)optopt, 0 };

	if (strncmp(a, "--", 2) != 0) {
		a = s;
		len = 2;
	}
	if (ch == ':')
		cli_err(cmd, "%.*s needs a value; 'iotape %s --help' lists the options",
			len, a, cmd);
	else if (optopt && a != s)
		cli_err(cmd, "%.*s takes no value; 'iotape %s --help' lists the options",
			len, a, cmd);
	else
		cli_err(cmd, "unknown option '%.*s'; 'iotape %s --help' lists them",
			len, a, cmd);
}

int cli_parse_int(const char *arg, long min, long max, int *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < min || n > max)
		return 0;
	*v = (int)n;
	return 1;
}
