/*
 * cmd_check.c - iotape check (placeholder until the module lands).
 */
#include "commands.h"

int cmd_check(int argc, char **argv)
{
	cli_err("check", "not built yet");
	return IOT_EXIT_FAIL;
}
