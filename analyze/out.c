/*
 * out.c - escaping for JSON, CSV and HTML, and units for tables.
 *
 * Paths and argv are bytes, not text.  JSON output must still parse, so
 * valid UTF-8 sequences pass through and every other byte >= 0x80 becomes
 * \u00XX: the byte's value as a code point (as Latin-1 would decode it).
 * A consumer that wants the original bytes back encodes such characters
 * as Latin-1; a path that was valid UTF-8 is unchanged.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ana.h"
#include "engine.h"

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are invalid */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void ana_json_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, l;

	fputc('"', f);
	while (s && i < len) {
		unsigned char c = u[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c == '\n') {
			fputs("\\n", f);
			i++;
		} else if (c == '\t') {
			fputs("\\t", f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else if ((l = utf8_len(u + i, len - i)) > 0) {
			fwrite(u + i, 1, l, f);
			i += l;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', f);
}

void ana_csv_str(FILE *f, const char *s, size_t len)
{
	size_t i;
	int quote = 0;

	if (!s)
		return;
	for (i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r' ||
		    (i == 0 && s[i] == ' '))
			quote = 1;
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void html_esc(FILE *f, const char *s, size_t len, int keep_nl)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, l;

	while (s && i < len) {
		unsigned char c = u[i];

		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\n' && keep_nl)
			fputc('\n', f);
		else if (c < 0x20)
			fputc(' ', f);
		else if (c < 0x80)
			fputc(c, f);
		else if ((l = utf8_len(u + i, len - i)) > 0) {
			fwrite(u + i, 1, l, f);
			i += l;
			continue;
		} else
			fputs("&#xfffd;", f);
		i++;
	}
}

void ana_html_str(FILE *f, const char *s, size_t len)
{
	html_esc(f, s, len, 0);
}

void ana_html_str_pre(FILE *f, const char *s, size_t len)
{
	html_esc(f, s, len, 1);
}

char *ana_fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (ns < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	return iot_fmt_ns(buf, len, ns);
}

char *ana_fmt_bytes(char *buf, size_t len, double b)
{
	if (isnan(b) || b < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	return iot_fmt_bytes(buf, len, b);
}

char *ana_trunc(char *buf, size_t len, const char *s, int w)
{
	size_t n = strlen(s), i;

	if (w < 4 || (size_t)w >= len)
		w = (int)len - 1;
	if (n <= (size_t)w) {
		memcpy(buf, s, n + 1);
	} else {
		memcpy(buf, s, (size_t)w - 3);
		memcpy(buf + w - 3, "...", 4);
	}
	/* table cells are single-line */
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20)
			buf[i] = ' ';
	return buf;
}

FILE *ana_open_out(const char *cmd, const char *path)
{
	FILE *f = fopen(path, "w");
	int err = errno;

	if (!f) {
		iot_err(cmd, "%s: %s; check the directory exists and is writable", path,
			strerror(err));
		errno = err;	/* callers return -errno */
	}
	return f;
}

int ana_close_out(const char *cmd, FILE *f, const char *path)
{
	struct stat st, now;
	int err = 0, reg;

	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (!path) {
		if (err)
			iot_err(cmd, "writing standard output: %s", strerror(err));
		return -err;
	}
	reg = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && lstat(path, &now) == 0 &&
	      now.st_dev == st.st_dev && now.st_ino == st.st_ino;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err)
		return 0;
	if (reg && unlink(path) == 0)
		iot_err(cmd, "%s: write failed: %s; the partial file was removed", path,
			strerror(err));
	else
		iot_err(cmd, "%s: write failed: %s; it is incomplete", path, strerror(err));
	return -err;
}

