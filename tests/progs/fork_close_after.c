/*
 * fork_close_after.c - one thread forks a child that writes into a pipe,
 * another closes the pipe's write end right after the fork; the close
 * comes after the fork only through a wake-up the trace does not hold
 * (a condition variable):
 *   fork_close_after [ROUNDS]
 * Each round the main thread makes a close-on-exec pipe and lets the
 * forker go; the forker forks a child that makes the write end its
 * stdout and writes 6 bytes; once forked, the main thread closes the
 * write end and reads to the end, and the forker reaps the child.
 * Replayed with the close before the child's copy of the table, the
 * child's dup2 and write are not replayed and the read meets end of
 * file.  Prints the bytes read; exits 0 unless a call failed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int wfd = -1, state, rounds = 20;	/* 1: pipe made, 2: forked */

static void *forker(void *arg)
{
	for (int r = 0; r < rounds; r++) {
		pid_t pid;

		pthread_mutex_lock(&mu);
		while (state != 1)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		pid = fork();
		if (pid < 0)
			exit(1);
		if (pid == 0) {
			if (dup2(wfd, 1) < 0 || write(1, "hello\n", 6) != 6)
				_exit(1);
			_exit(0);
		}
		pthread_mutex_lock(&mu);
		state = 2;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		if (waitpid(pid, NULL, 0) != pid)
			exit(1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;
	long total = 0;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (pthread_create(&th, NULL, forker, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
		int p[2];
		char buf[64];
		ssize_t got;

		if (pipe2(p, O_CLOEXEC) < 0)
			return 1;
		pthread_mutex_lock(&mu);
		wfd = p[1];
		state = 1;
		pthread_cond_broadcast(&cv);
		while (state != 2)
			pthread_cond_wait(&cv, &mu);
		state = 0;
		pthread_mutex_unlock(&mu);
		close(p[1]);	/* the child has its copy: its end is the last */
		while ((got = read(p[0], buf, sizeof(buf))) > 0)
			total += got;
		close(p[0]);
	}
	pthread_join(th, NULL);
	printf("%ld bytes read\n", total);
	return 0;
}
