/*
 * pipe_fanout.c - N threads each reading R bytes, one at a time, from a
 * pipe of its own, which the main thread writes in turn (a server's
 * connection threads fed by one dispatcher).  Each read waits for the
 * main thread's write in the replay: with every waiting thread woken at
 * each such write, its afap replay took 37-60x the native run
 * (tests/bench/replay.sh, "fan-out").
 *   pipe_fanout N R
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int (*fds)[2];
static int rounds;

static void *reader(void *arg)
{
	long i = (long)arg;
	char c;
	int r;

	for (r = 0; r < rounds; r++)
		if (read(fds[i][0], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *th;
	long n, i;
	int r;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (rounds = atoi(argv[2])) <= 0)
		return 2;
	fds = calloc((size_t)n, sizeof(*fds));
	th = calloc((size_t)n, sizeof(*th));
	if (!fds || !th)
		return 1;
	for (i = 0; i < n; i++)
		if (pipe(fds[i]) < 0 || pthread_create(&th[i], NULL, reader, (void *)i) != 0)
			return 1;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++)
			if (write(fds[i][1], "x", 1) != 1)
				return 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("%ld threads, %d rounds\n", n, rounds);
	return 0;
}
