/*
 * wake_late.c - a thread woken through memory that gets a CPU only
 * milliseconds after the thread that woke it let it go: what a loaded
 * machine does to a woken thread, made on purpose.
 *
 * usage: wake_late DIR
 *   Both threads on one CPU.  The second thread waits on a semaphore (a
 *   futex: no recorded call); the main thread yields until the thread is
 *   at its wait (else a thread that got the CPU late, on a loaded
 *   machine, slept less than the 100 ms below).  The main
 *   thread then calls access("DIR/m.before"),
 *   sleeps 100 ms, calls access("DIR/m.after"), takes SCHED_FIFO, posts
 *   the semaphore and spins 5 ms without a call (the woken thread cannot
 *   run on its CPU meanwhile), then sleeps 50 ms; the woken thread calls
 *   access("DIR/t.first") ~5 ms after m.after returned, having been
 *   woken just after it.  Exit 0; 2 if the process cannot be pinned or
 *   take SCHED_FIFO (the delay cannot be made); 1 with what failed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sem_t go;
static atomic_int waiting;
static char first[4096];

static void *woken(void *arg)
{
	atomic_store(&waiting, 1);
	while (sem_wait(&go) < 0 && errno == EINTR)
		;
	access(first, F_OK);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec t100 = { 0, 100000000 }, t50 = { 0, 50000000 };
	struct sched_param sp = { .sched_priority = 1 }, sp0 = { 0 };
	char name[4096];
	pthread_t th;
	cpu_set_t one;
	double t0;
	int err;

	if (argc != 2)
		return fprintf(stderr, "usage: wake_late DIR\n"), 1;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return perror("wake_late: sched_setaffinity"), 2;
	snprintf(first, sizeof(first), "%s/t.first", argv[1]);
	if (sem_init(&go, 0, 0) < 0)
		return perror("sem_init"), 1;
	err = pthread_create(&th, NULL, woken, NULL);
	if (err)
		return fprintf(stderr, "pthread_create: %s\n", strerror(err)), 1;
	while (!atomic_load(&waiting))
		sched_yield();
	snprintf(name, sizeof(name), "%s/m.before", argv[1]);
	access(name, F_OK);
	nanosleep(&t100, NULL);
	snprintf(name, sizeof(name), "%s/m.after", argv[1]);
	access(name, F_OK);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("wake_late: SCHED_FIFO");
		sem_post(&go);
		pthread_join(th, NULL);
		return 2;
	}
	sem_post(&go);
	for (t0 = now_s(); now_s() - t0 < 0.005;)
		;
	sched_setscheduler(0, SCHED_OTHER, &sp0);
	nanosleep(&t50, NULL);
	pthread_join(th, NULL);
	return 0;
}
