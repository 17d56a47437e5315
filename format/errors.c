/*
 * errors.c - names for iotape's error codes.
 */
#include <string.h>

#include "iotape.h"

const char *iot_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case IOT_E_NOT_IOTAPE:
		return "not an iotape file";
	case IOT_E_VERSION:
		return "written by a newer iotape (format major version too new)";
	case IOT_E_TRUNCATED:
		return "truncated (the file ends inside a frame)";
	case IOT_E_CORRUPT:
		return "corrupt (checksum or decoding failure)";
	case IOT_E_EMPTY:
		return "empty file";
	case IOT_E_NO_INDEX:
		return "no index (the writer did not close the file)";
	case IOT_E_RANGE:
		return "seek target beyond the end of the file";
	case IOT_E_ARG:
		return "invalid argument";
	}
	if (err < 0 && err > -IOT_E_BASE)
		return strerror(-err);
	return "unknown error";
}
