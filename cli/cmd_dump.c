/*
 * cmd_dump.c - iotape dump (placeholder until the module lands).
 */
#include "commands.h"

int cmd_dump(int argc, char **argv)
{
	cli_err("dump", "not built yet");
	return IOT_EXIT_FAIL;
}
