/*
 * thread_cpu.c - a process whose CPU time is its threads': the main
 * thread starts 2 threads that each compute for a while (and stat "."
 * now and then, so that their calls are recorded) and joins them, doing
 * nothing itself.  It prints the threads' CPU time in all, in
 * nanoseconds, as each read its own clock at its end.
 * (tests/integration/analyze_thread_cpu.sh)
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

static void *work(void *arg)
{
	volatile unsigned long x = 0;
	struct timespec ts;
	struct stat st;
	unsigned long i;

	for (i = 0; i < 150000000UL; i++) {
		x += i;
		if (i % 10000000UL == 0)
			stat(".", &st);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	*(long long *)arg = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long long ns[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, work, &ns[i])) {
			fprintf(stderr, "thread_cpu: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("%lld\n", ns[0] + ns[1]);
	return 0;
}
