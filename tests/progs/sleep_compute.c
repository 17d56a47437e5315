/*
 * sleep_compute.c DIR - one thread that computes, then sleeps where the
 * trace holds no call: access("DIR/a"), 100 ms of computing (until its
 * own CPU clock has advanced so far; the clock's read is no recorded
 * call), access("DIR/b"), a 100 ms wait on a condition variable that
 * nobody signals (a futex with a timeout: no recorded call either),
 * access("DIR/c").  Prints the CPU time the computing took, in
 * nanoseconds.  Exit 0; 1 with what failed.
 * (tests/integration/replay_sleep_cut.sh)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "compute.h"

int main(int argc, char **argv)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t cv;
	struct timespec until;
	long long t0, t1;
	char name[4096];
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: sleep_compute DIR\n");
		return 2;
	}
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&cv, &ca)) {
		fprintf(stderr, "sleep_compute: condition variable not made\n");
		return 1;
	}
	snprintf(name, sizeof(name), "%s/a", argv[1]);
	access(name, F_OK);
	t0 = cpu_ns();
	t1 = compute_until(t0 + 100000000LL);
	snprintf(name, sizeof(name), "%s/b", argv[1]);
	access(name, F_OK);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += 100000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mu);
	do
		r = pthread_cond_timedwait(&cv, &mu, &until);
	while (r == 0 || r == EINTR);
	pthread_mutex_unlock(&mu);
	snprintf(name, sizeof(name), "%s/c", argv[1]);
	access(name, F_OK);
	printf("%lld\n", t1 - t0);
	fflush(stdout);
	return r == ETIMEDOUT ? 0 : 1;
}
