/*
 * commands.h - the subcommands of the iotape binary and the helpers they
 * share.  Each module owns its command: record/cmd_record.c,
 * replay/cmd_replay.c, bench/cmd_bench.c, analyze/cmd_*.c, cli/cmd_dump.c.
 * Only cli/ and the cmd_*.c files include it: the engines below report
 * through the sink of engine.h, which cli_msg() prints.
 */
#ifndef IOT_COMMANDS_H
#define IOT_COMMANDS_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"

/* Exit codes, the same for every command (documented in iotape(1)). */
#define IOT_EXIT_OK	 0	/* done */
#define IOT_EXIT_FAIL	 1	/* the operation failed (message says why) */
#define IOT_EXIT_USAGE	 2	/* bad command line */
#define IOT_EXIT_DAMAGED 3	/* input trace damaged; the complete part was used */
#define IOT_EXIT_MISMATCH 4	/* replay --verify: results differed from the trace */
#define IOT_EXIT_TARGET	 5	/* replay: the filesystem under test failed (ENOSPC, EIO,
				 * EROFS, ...) or cannot hold the starting tree */
/* iotape record exits with the recorded program's status (128+N on signal N),
 * 127 if the program was not found, 126 if it could not be run. */

int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);

/*! cli_msg() : the sink main() gives the engines (iot_msg_set_sink())
 *  before any command runs, and the command line speaks through too:
 *  IOT_MSG_ERROR as "iotape: <who>: <text>", IOT_MSG_WARNING as
 *  "iotape: <who>: warning: <text>", IOT_MSG_INFO as "iotape: <who>:
 *  <text>", IOT_MSG_QUOTE as "  | <text>", IOT_MSG_STATUS as
 *  "\riotape: <who>: <text>" without a newline of its own; to stderr. */
void cli_msg(int level, const char *who, const char *text);

/* cli_err() : "iotape: <cmd>: <message>"; cli_warn() : "iotape: <cmd>:
 * warning: <message>" (through cli_msg()). */
#define cli_err iot_err
#define cli_warn iot_warn

/*! cli_is_help() : @return : 1 if @arg is -h or --help. */
int cli_is_help(const char *arg);

/*! cli_open_trace_msg() : print the standard message for a reader open
 *  failure of @path with code @err (damage there is in the header frame:
 *  nothing can be kept or repaired).  Damage found later is described by
 *  iot_damage_text(). */
void cli_open_trace_msg(const char *cmd, const char *path, int err);

/*! cli_read_ahead() : how many chunks the commands that read a trace in
 *  order (report, diff, export, dump, check) decode ahead on a thread of
 *  their own (iot_reader_set_ahead()): IOTAPE_READAHEAD if it is a number
 *  (0: no thread, to compare or to keep to one CPU), else CLI_READ_AHEAD.
 *  What they print is the same. */
#define CLI_READ_AHEAD 2
int cli_read_ahead(void);

/*! cli_same_file() : whether @a and @b name the same file (symbolic links
 *  followed), so that a command can refuse an output that is one of its
 *  inputs before opening it for writing destroys it.
 *  @return : 1 if both exist and are one file, else 0. */
int cli_same_file(const char *a, const char *b);

/*! cli_bad_option() : the one line for an option getopt_long() stopped
 *  at (opterr 0, optstring starting with ':' or "+:"): "--x needs a
 *  value", "--x takes no value" or "unknown option '--x'", naming the
 *  option as given ("--bogus", "-z") and 'iotape CMD --help'. */
void cli_bad_option(const char *cmd, int ch, char **argv);

/*! cli_parse_int() : @return : 1 with *@v set if @arg is a whole number
 *  from @min to @max (which fit an int), else 0. */
int cli_parse_int(const char *arg, long min, long max, int *v);

#endif
