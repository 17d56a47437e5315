/*
 * conn_many.c - N client threads connect at once (a barrier before) to
 * one listening Unix socket SOCK; the main thread, once they are all
 * queued, accepts N connections and writes k+1 bytes to the k-th it
 * took; each client reads what it was sent.  Which client gets which
 * count is the kernel's queue order, which no recorded time gives.
 *   conn_many SOCK N
 * Exit 0 when every client got a different count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NMAX 32

static struct sockaddr_un sa = { .sun_family = AF_UNIX };
static pthread_barrier_t bar;
static int got[NMAX];

static void *client(void *arg)
{
	char buf[64];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ssize_t n;

	pthread_barrier_wait(&bar);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		exit(1);
	n = read(fd, buf, sizeof(buf));
	got[(long)arg] = (int)n;
	close(fd);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 200000000 };
	pthread_t t[NMAX];
	char buf[64];
	int l, k, n, seen = 0;
	long i;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > NMAX ||
	    strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: conn_many SOCK N (1-%d)\n", NMAX);
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(sa.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 64))
		return 1;
	pthread_barrier_init(&bar, NULL, (unsigned)n);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, client, (void *)i);
	nanosleep(&ts, NULL);	/* every connect queued */
	memset(buf, 'x', sizeof(buf));
	for (k = 0; k < n; k++) {
		int c = accept(l, NULL, NULL);

		if (c < 0 || write(c, buf, (size_t)k + 1) != k + 1)
			return 1;
		close(c);
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		seen |= 1 << (got[i] - 1);
	unlink(sa.sun_path);
	return seen != (1 << n) - 1;
}
