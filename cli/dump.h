/*
 * dump.h - what iotape dump (cmd_dump.c) prints its lines with
 * (dump_lines.c).
 */
#ifndef IOT_CLI_DUMP_H
#define IOT_CLI_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "iotape.h"

/* Per-syscall totals for --count. Numbers beyond the table share a row. */
#define DUMP_COUNT_NR 1024
struct dump_count_row {
	int nr;
	uint64_t calls, errors;
	int64_t ns;
};

void dump_print_header(FILE *f, const struct iot_header *h);
void dump_print_process(FILE *f, const struct iot_process *p, int64_t base);
void dump_print_state(FILE *f, const struct iot_path_state *ps, int64_t base);
/* @buf (*@cap bytes) grows as an event needs: @return : 0 or -ENOMEM. */
int dump_print_event(FILE *f, const struct iot_event *ev, int64_t base,
		     unsigned fmt, char **buf, size_t *cap);
void dump_count_event(struct dump_count_row *rows, const struct iot_event *ev);
/* the table of @n @rows (sorted in place) */
void dump_print_counts(FILE *f, struct dump_count_row *rows, size_t n);

#endif
