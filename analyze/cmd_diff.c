/*
 * cmd_diff.c - iotape diff (placeholder until the module lands).
 */
#include "commands.h"

int cmd_diff(int argc, char **argv)
{
	cli_err("diff", "not built yet");
	return IOT_EXIT_FAIL;
}
