/*
 * cmd_bench.c - iotape bench (placeholder until the module lands).
 */
#include "commands.h"

int cmd_bench(int argc, char **argv)
{
	cli_err("bench", "not built yet");
	return IOT_EXIT_FAIL;
}
