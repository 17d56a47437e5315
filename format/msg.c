/*
 * msg.c - the sink the engines report through, and the units they print
 * in (engine.h).  The sink is one pointer, set by the command line before
 * any engine runs and read by every thread after: an atomic load is all
 * the synchronisation a line needs.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

static _Atomic(iot_msg_fn) sink;

void iot_msg_set_sink(iot_msg_fn fn)
{
	atomic_store(&sink, fn);
}

static __attribute__((format(printf, 3, 0))) void vmsg(int level, const char *who,
							const char *fmt, va_list ap)
{
	iot_msg_fn fn = atomic_load(&sink);
	char small[512], *text = small;
	va_list aq;
	int n;

	if (!fn)
		return;
	/* A line that names two paths may not fit the stack buffer: it is
	 * formatted again into one that does, rather than cut. */
	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(small)) {
		text = malloc((size_t)n + 1);
		if (text)
			vsnprintf(text, (size_t)n + 1, fmt, ap);
		else
			text = small;
	}
	fn(level, who, text);
	if (text != small)
		free(text);
}

void iot_msg(int level, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(level, who, fmt, ap);
	va_end(ap);
}

void iot_err(const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(IOT_MSG_ERROR, who, fmt, ap);
	va_end(ap);
}

void iot_warn(const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(IOT_MSG_WARNING, who, fmt, ap);
	va_end(ap);
}

char *iot_fmt_ns(char *buf, size_t len, double ns)
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

char *iot_fmt_bytes(char *buf, size_t len, double b)
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
