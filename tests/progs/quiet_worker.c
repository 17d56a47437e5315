/*
 * quiet_worker.c FILE - a worker thread that computes and makes no call
 * the recorder records until its exit: the main thread hands it 4 rounds
 * of work through a condition variable (futexes) and writes FILE after
 * each; the worker computes for a while each round.  Prints the worker's
 * CPU time in nanoseconds, as it read its own clock at its end.
 * (tests/integration/replay_quiet_worker.sh)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int round_given, round_done, quit;
static long long worker_ns;

static void *worker(void *arg)
{
	volatile unsigned long x = 0;
	struct timespec ts;
	unsigned long i;
	int r = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (round_given == r && !quit)
			pthread_cond_wait(&cv, &mu);
		if (quit && round_given == r) {
			pthread_mutex_unlock(&mu);
			break;
		}
		r = round_given;
		pthread_mutex_unlock(&mu);
		for (i = 0; i < 60000000UL; i++)	/* no call */
			x += i;
		pthread_mutex_lock(&mu);
		round_done = r;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	worker_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int k, fd;

	if (argc != 2) {
		fprintf(stderr, "usage: quiet_worker FILE\n");
		return 2;
	}
	if (pthread_create(&th, NULL, worker, NULL)) {
		fprintf(stderr, "quiet_worker: pthread_create failed\n");
		return 1;
	}
	for (k = 1; k <= 4; k++) {
		pthread_mutex_lock(&mu);
		round_given = k;
		pthread_cond_broadcast(&cv);
		while (round_done != k)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || write(fd, "round\n", 6) != 6 || close(fd) < 0) {
			perror(argv[1]);
			return 1;
		}
	}
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	printf("%lld\n", worker_ns);
	return 0;
}
