/*
 * cancel_wait.c - threads that wait in a loop, each in one of glibc's
 * cancellation points that wait (epoll_wait, poll, nanosleep, a read of
 * a pipe no one writes), cancelled and joined by the first thread, as an
 * event loop's thread is at a server's exit (tarantool).  Prints
 * "joined 4".
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static int ep, pfd[2];

static void *in_epoll(void *arg)
{
	struct epoll_event ev;

	(void)arg;
	for (;;)
		epoll_wait(ep, &ev, 1, 200);	/* timed out: waits again */
	return NULL;
}

static void *in_poll(void *arg)
{
	(void)arg;
	for (;;)
		poll(NULL, 0, 200);
	return NULL;
}

static void *in_sleep(void *arg)
{
	struct timespec ts = { 0, 200000000 };

	(void)arg;
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

static void *in_read(void *arg)
{
	char c;

	(void)arg;
	for (;;)
		if (read(pfd[0], &c, 1) < 0)
			break;
	return NULL;
}

int main(void)
{
	void *(*fn[])(void *) = { in_epoll, in_poll, in_sleep, in_read };
	pthread_t t[4];
	int i, n = 0;

	ep = epoll_create1(0);
	if (pipe(pfd) < 0)
		return 1;
	for (i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL) != 0)
			return 1;
	usleep(50000);
	for (i = 0; i < 4; i++) {
		void *r;

		pthread_cancel(t[i]);
		if (pthread_join(t[i], &r) == 0 && r == PTHREAD_CANCELED)
			n++;
	}
	printf("joined %d\n", n);
	return n == 4 ? 0 : 1;
}
