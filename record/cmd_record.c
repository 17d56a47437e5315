/*
 * cmd_record.c - iotape record (placeholder until the module lands).
 */
#include "commands.h"

int cmd_record(int argc, char **argv)
{
	cli_err("record", "not built yet");
	return IOT_EXIT_FAIL;
}
