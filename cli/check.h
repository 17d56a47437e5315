/*
 * check.h - what every command that reads a trace shares: the time origin
 * of a file and the one-line description of its damage.
 */
#ifndef IOT_CLI_CHECK_H
#define IOT_CLI_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "iotape.h"

/*! cli_time_base() :
 *  @return : the monotonic time that prints as 0.000000: the workload's
 *            start from the header, or the first event if that is
 *            earlier or the header has none. */
int64_t cli_time_base(const struct iot_header *h, const struct iot_summary *s);

/*! cli_damage_text() :
 *  Describe what is wrong with a file whose every readable item has been
 *  read: "truncated at frame 12, byte 40960 (events up to 1.234 s kept);
 *  run 'iotape check --repair' to rewrite the index".  Not closed cleanly
 *  (no index) counts as damage too: the tail may be missing.
 *  @return : 1 with @buf filled if the file is damaged, 0 if it is clean. */
int cli_damage_text(char *buf, size_t len, const struct iot_summary *s,
		    int64_t base);

#endif
