/*
 * clock.c - the one clock every iotape timestamp comes from.
 */
#include <time.h>

#include "iotape.h"

int64_t iot_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
