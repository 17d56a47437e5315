/*
 * cmd_replay.c - iotape replay (placeholder until the module lands).
 */
#include "commands.h"

int cmd_replay(int argc, char **argv)
{
	cli_err("replay", "not built yet");
	return IOT_EXIT_FAIL;
}
