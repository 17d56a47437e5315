/*
 * text_int.h - what text.c and text_args.c share: a bounded string
 * builder that counts what it would need (snprintf's contract), and the
 * per-kind argument printer with the event it belongs to.
 *
 * Private to format/: other modules use iot_format_event() and friends.
 */
#ifndef IOT_TEXT_INT_H
#define IOT_TEXT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "iotape.h"

/* Writes go to buf[0 .. len-2]; pos keeps counting past the end so the
 * caller learns the length it needs.  buf stays NUL-terminated. */
struct iot_sbuf {
	char *buf;
	size_t len;
	size_t pos;
};

void iot_sb_init(struct iot_sbuf *b, char *buf, size_t len);
void iot_sb_putc(struct iot_sbuf *b, char c);
void iot_sb_puts(struct iot_sbuf *b, const char *s);
void iot_sb_printf(struct iot_sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A C string literal: quotes, escapes for control bytes and bytes that are
 * not valid UTF-8 (3-digit octal, as strace prints them). */
void iot_sb_quote(struct iot_sbuf *b, const char *s, size_t n);
/* NUL-terminate; @return : the length needed (without the NUL). */
int iot_sb_end(struct iot_sbuf *b);

/* Print @v of kind @kind.  @ev (may be NULL) gives the syscall context
 * that changes how some kinds read: dup3's flags have no access mode,
 * fcntl's third argument depends on the command, ... */
void iot_sb_arg(struct iot_sbuf *b, int kind, int64_t v,
		const struct iot_event *ev);

/* Flags words used by the event printer. */
void iot_sb_open_flags(struct iot_sbuf *b, uint64_t v, int accmode);
void iot_sb_mode(struct iot_sbuf *b, uint64_t v);
void iot_sb_resolve(struct iot_sbuf *b, uint64_t v);
void iot_sb_signal(struct iot_sbuf *b, int sig);
/* a struct flock as iot_flock_pack() keeps it */
void iot_sb_flock(struct iot_sbuf *b, int64_t type, int64_t start, int64_t len);

#define IOT_O_ACCMODE	03
#define IOT_O_CREAT	0100
#define IOT_O_TMPFILE	020000000	/* without O_DIRECTORY */

#endif
