/*
 * util.c - helpers shared by the subcommands: messages and units.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "iotape.h"

static __attribute__((format(printf, 3, 0))) void vmsg(const char *cmd, const char *kind,
							const char *fmt, va_list ap)
{
	fprintf(stderr, "iotape: ");
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cmd, NULL, fmt, ap);
	va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cmd, "warning", fmt, ap);
	va_end(ap);
}

int cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

char *cli_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

char *cli_fmt_bytes(char *buf, size_t len, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (b >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", b);
	else
		snprintf(buf, len, "%.1f %s", b, unit[u]);
	return buf;
}

void cli_open_trace_msg(const char *cmd, const char *path, int err)
{
	const char *hint = "";

	if (err == IOT_E_NOT_IOTAPE)
		hint = " (is it an iotape trace? 'iotape check' validates one)";
	else if (err == IOT_E_VERSION)
		hint = "; a newer iotape is needed to read it";
	else if (err == IOT_E_TRUNCATED || err == IOT_E_CORRUPT)
		hint = "; run 'iotape check --repair' to keep the complete part";
	cli_err(cmd, "%s: %s%s", path, iot_strerror(err), hint);
}
