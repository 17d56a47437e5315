/*
 * util.c - helpers shared by the subcommands: messages and units.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
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

int64_t cli_time_base(const struct iot_header *h, const struct iot_summary *s)
{
	int64_t base = h ? h->start_ns : 0;

	if (s && s->events && (base <= 0 || s->t_min < base))
		base = s->t_min;
	return base;
}

int cli_damage_text(char *buf, size_t len, const struct iot_summary *s,
		    int64_t base)
{
	char kept[96];

	if (s->events && s->good_t_max > base)
		snprintf(kept, sizeof(kept), "events up to %.3f s kept",
			 (double)iot_ns_sub(s->good_t_max, base) / 1e9);
	else
		snprintf(kept, sizeof(kept), "no events before it");
	/* Frames count from the header (frame 0), as 'zstd -l' would. */
	if (s->damage == IOT_E_TRUNCATED) {
		snprintf(buf, len, "truncated at frame %llu, byte %llu (%s); "
			 "run 'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->damage_frame + 1,
			 (unsigned long long)s->damage_offset, kept);
	} else if (s->damage) {
		snprintf(buf, len, "corrupt frame %llu at byte %llu: %s (%s); "
			 "run 'iotape check --repair' to cut it off and rewrite "
			 "the index",
			 (unsigned long long)s->damage_frame + 1,
			 (unsigned long long)s->damage_offset,
			 s->damage == IOT_E_CORRUPT ? "checksum or decoding failure"
						    : iot_strerror(s->damage),
			 kept);
	} else if (s->index_damaged) {
		snprintf(buf, len, "its index is damaged (its checksum fails); the "
			 "frames were read instead, %llu complete events; run "
			 "'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->events);
	} else if (!s->has_index || (!s->clean_close && !s->repaired)) {
		snprintf(buf, len, "not closed cleanly (no usable index: was "
			 "the recorder killed?); its %llu complete events were read; "
			 "run 'iotape check --repair' to rewrite the index",
			 (unsigned long long)s->events);
	} else {
		return 0;
	}
	return 1;
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
