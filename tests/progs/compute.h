/*
 * compute.h - what the test programs that compute between calls share
 * (join_wake, idle_worker, sleep_compute, think_cpu, ready_threads): the
 * thread's own CPU clock, and computing on it, with no call the recorder
 * records (the clock's read is none).
 */
#ifndef IOT_PROGS_COMPUTE_H
#define IOT_PROGS_COMPUTE_H

#include <time.h>

/* the calling thread's CPU time, in nanoseconds */
static inline long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* compute until the thread's CPU clock reads @end or more; its reading */
static inline long long compute_until(long long end)
{
	volatile unsigned long x = 0;
	unsigned long i;
	long long t;

	while ((t = cpu_ns()) < end)
		for (i = 0; i < 10000; i++)
			x += i;
	return t;
}

#endif
