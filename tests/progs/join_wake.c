/*
 * join_wake.c FILE N MS - N rounds of: a thread that computes MS ms (no
 * call the recorder records) and ends, the main thread joining it
 * (pthread_join: a futex the ending thread's kernel exit wakes, through
 * CLONE_CHILD_CLEARTID), then writing one byte to FILE.  Each write's gap
 * is a wait that the ending thread ended.
 * (tests/integration/record_bpf_join.sh)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "compute.h"

static long ms;

static void *worker(void *arg)
{
	(void)arg;
	compute_until(cpu_ns() + ms * 1000000LL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int fd, n, i;

	if (argc != 4) {
		fprintf(stderr, "usage: join_wake FILE N MS\n");
		return 2;
	}
	n = atoi(argv[2]);
	ms = atol(argv[3]);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0) {
			fprintf(stderr, "join_wake: thread %d failed\n", i);
			return 1;
		}
		if (write(fd, "x", 1) != 1) {
			perror("write");
			return 1;
		}
	}
	return close(fd) ? 1 : 0;
}
