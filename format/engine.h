/*
 * engine.h - what the engines (format/, record/, replay/, analyze/) share
 * below the command line: the sink they report through, time arithmetic
 * on trace times, and the units they print in.
 *
 * Not installed: outside programs use iotape.h.  Only cli/ and the
 * cmd_*.c files talk to the terminal; an engine that has something to say
 * that its return value cannot carry (a warning while it goes on, the
 * detail of a failure) hands one line to iot_err() or iot_warn(), and the
 * command line decides where it goes (iot_msg_set_sink()).  Until a sink
 * is set, lines are dropped: the library never prints.
 */
#ifndef IOT_ENGINE_H
#define IOT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "iotape.h"

/* ---- the message sink ---- */

enum iot_msg_level {
	IOT_MSG_ERROR = 0,	/* the operation failed; this says why */
	IOT_MSG_WARNING,	/* the operation goes on; the result may lack something */
	IOT_MSG_INFO,		/* what was done (a summary at the end) */
	IOT_MSG_QUOTE,		/* a line of another program's output, under an error */
	IOT_MSG_STATUS,		/* a status line that replaces the previous one; the
				 * last one ends with its own newline */
};

/* One line, without a newline (but for IOT_MSG_STATUS): @who is the
 * command it belongs to ("replay", "record", ...; NULL for none), @text
 * what happened, where and what to do.  May be called from several
 * threads at once. */
typedef void (*iot_msg_fn)(int level, const char *who, const char *text);

/*! iot_msg_set_sink() : send every later line to @fn (NULL: drop them).
 *  Set once, before the engines run. */
void iot_msg_set_sink(iot_msg_fn fn);

/*! iot_msg() : format one line and hand it to the sink. */
void iot_msg(int level, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*! iot_err() : iot_msg() at IOT_MSG_ERROR. */
void iot_err(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*! iot_warn() : iot_msg() at IOT_MSG_WARNING. */
void iot_warn(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- time arithmetic ---- */

/* The CPU time the calling thread has used, to the nanosecond; -1 if the
 * clock cannot be read. */
int64_t iot_thread_cpu_ns(void);

/* Times and durations from a trace: a well-formed file may hold any int64
 * (the format round-trips them), so differences and sums saturate at
 * +-INT64_MAX instead of overflowing (undefined behaviour).  The result is
 * never INT64_MIN: it can be negated. */
static inline int64_t iot_ns_sub(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(a, b, &d))
		return b < 0 ? INT64_MAX : -INT64_MAX;
	return d == INT64_MIN ? -INT64_MAX : d;
}

static inline int64_t iot_ns_add(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_add_overflow(a, b, &d))
		return b > 0 ? INT64_MAX : -INT64_MAX;
	return d == INT64_MIN ? -INT64_MAX : d;
}

/* ---- units ---- */

/*! iot_fmt_ns() : format a duration in ns with a unit (ns, us, ms, s)
 *  into @buf, 3 significant decimals. @return : @buf. */
char *iot_fmt_ns(char *buf, size_t len, double ns);

/*! iot_fmt_bytes() : format a byte count with a unit (B, KiB, MiB, GiB,
 *  TiB). @return : @buf. */
char *iot_fmt_bytes(char *buf, size_t len, double bytes);

/* sockdiag.c: the inode of the socket connected to the Unix socket of
 * inode @ino (its peer), 0 if unknown; *@diag_fd is the netlink socket
 * asked, opened at the first call (<= 0: none yet) and the caller's to
 * close. */
uint64_t iot_unix_peer(int *diag_fd, uint64_t ino);
/* iot_unix_type() : the type of the Unix socket of inode @ino
 * (SOCK_STREAM...), 0 if unknown; @diag_fd as iot_unix_peer()'s. */
int iot_unix_type(int *diag_fd, uint64_t ino);

#endif
