/*
 * idle_worker.c DIR - a worker thread that makes no recorded call at all:
 * it computes, wakes the main thread through a condition variable (a
 * futex, which is not recorded), then waits on it for good; the
 * process's exit ends it.  What xz -T2 does with one block.
 *
 * The main thread calls access("DIR/m.before"), starts the worker, waits
 * for it (pthread_cond_wait), then calls access("DIR/m.after").  The
 * worker computes until its own CPU clock has advanced 150 ms (its clock
 * read is no recorded call).  Prints the worker's CPU time in
 * nanoseconds, as it read it at the end of its computing.  Exit 0; 1
 * with what failed.  (tests/integration/replay_idle_worker.sh)
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "compute.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;
static long long worker_ns;

static void *worker(void *arg)
{
	long long t;

	(void)arg;
	t = compute_until(150000000LL);
	pthread_mutex_lock(&mu);
	worker_ns = t;
	done = 1;
	pthread_cond_broadcast(&cv);
	for (;;)		/* until the process's exit */
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

int main(int argc, char **argv)
{
	char name[4096];
	pthread_t th;

	if (argc != 2) {
		fprintf(stderr, "usage: idle_worker DIR\n");
		return 2;
	}
	snprintf(name, sizeof(name), "%s/m.before", argv[1]);
	access(name, F_OK);
	if (pthread_create(&th, NULL, worker, NULL)) {
		fprintf(stderr, "idle_worker: pthread_create failed\n");
		return 1;
	}
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	snprintf(name, sizeof(name), "%s/m.after", argv[1]);
	access(name, F_OK);
	printf("%lld\n", worker_ns);
	fflush(stdout);
	return 0;
}
