/*
 * cmd_export.c - iotape export (placeholder until the module lands).
 */
#include "commands.h"

int cmd_export(int argc, char **argv)
{
	cli_err("export", "not built yet");
	return IOT_EXIT_FAIL;
}
