/*
 * ready_threads.c - a thread whose gaps wait for a CPU in one part of
 * its run and not in the other: the main thread computes alone for ~2 ms
 * of its CPU time, then stats ".", 100 times (phase A); then it starts
 * twice as many threads as online CPUs less one (at most 7) and does
 * the same with them, 200 times each (phase B), where each spends about
 * half of every gap preempted, runnable.
 * (tests/integration/record_bpf_ready.sh)
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compute.h"

static void compute(int rounds)
{
	struct stat st;
	int i;

	for (i = 0; i < rounds; i++) {
		compute_until(cpu_ns() + 2000000);
		stat(".", &st);
	}
}

static void *work(void *arg)
{
	(void)arg;
	compute(200);
	return NULL;
}

int main(void)
{
	pthread_t th[7];
	long n = sysconf(_SC_NPROCESSORS_ONLN) * 2 - 1;
	int i;

	if (n < 1)
		n = 1;
	if (n > 7)
		n = 7;
	compute(100);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, work, NULL)) {
			fprintf(stderr, "ready_threads: pthread_create failed\n");
			return 1;
		}
	compute(200);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
