/*
 * main.c - the iotape command: dispatch to subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "iotape.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "run a program and record its filesystem syscalls" },
	{ "replay", cmd_replay, "re-execute a trace under a root directory, with timing" },
	{ "bench",  cmd_bench,  "replay a trace on a matrix of fresh filesystems" },
	{ "validate", cmd_validate, "does a replay predict the workload? native runs vs replays" },
	{ "report", cmd_report, "where the time went: per syscall, class, process, phase" },
	{ "diff",   cmd_diff,   "compare traces/profiles: values for the first, ratios for the rest" },
	{ "export", cmd_export, "export events as Chrome trace JSON, CSV or JSON" },
	{ "dump",   cmd_dump,   "print events as strace-like lines" },
	{ "check",  cmd_check,  "validate a trace; --repair rewrites a damaged file's index" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iotape COMMAND [ARGS]\n\n"
		"Record what programs do to the filesystem, replay it on other\n"
		"filesystems with its timing, and compare the timing profiles.\n\n"
		"Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'iotape COMMAND --help' shows a command's options and examples.\n\n"
		"Examples:\n"
		"  iotape record -o build.iotape -- make -j2\n"
		"  iotape replay build.iotape --root /mnt/xfs -o build.xfs.iotape\n"
		"  iotape bench build.iotape --fs ext4,xfs,btrfs,tmpfs\n"
		"  iotape diff build.ext4.iotape build.xfs.iotape\n\n"
		"Exit status: 0 done; 1 failed; 2 bad usage; 3 input trace damaged (its\n"
		"complete part was used); 4 replay results differed. 'record' exits\n"
		"with the recorded program's status. See iotape(1).\n");
}

int main(int argc, char **argv)
{
	size_t i;

	iot_msg_set_sink(cli_msg);
	if (argc < 2) {
		usage(stderr);
		return IOT_EXIT_USAGE;
	}
	if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char help[] = "--help";
			char *av[] = { argv[2], help, NULL };

			for (i = 0; i < N_COMMANDS; i++)
				if (strcmp(argv[2], commands[i].name) == 0)
					return commands[i].fn(2, av);
		}
		usage(stdout);
		return IOT_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("iotape %s (trace format %d.%d)\n", IOT_VERSION,
		       IOT_FORMAT_MAJOR, IOT_FORMAT_MINOR);
		return IOT_EXIT_OK;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	cli_err(NULL, "unknown command '%s'; 'iotape help' lists them", argv[1]);
	return IOT_EXIT_USAGE;
}
