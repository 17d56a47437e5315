/*
 * cmd_report.c - iotape report (placeholder until the module lands).
 */
#include "commands.h"

int cmd_report(int argc, char **argv)
{
	cli_err("report", "not built yet");
	return IOT_EXIT_FAIL;
}
