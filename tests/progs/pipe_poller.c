/*
 * pipe_poller.c - packets of 4 and 65,516 bytes (git's pkt-lines) written
 * into a pipe whose reader reads a non-blocking end and, on EAGAIN,
 * sleeps until a poller thread's epoll_wait wakes it (a runtime's I/O
 * manager: git-annex's filter process).  Whether a 65,516-byte write
 * fits the pipe at once depends on how the kernel laid out its pages,
 * which how the two sides' calls met decides.
 *   pipe_poller N
 * Writes N packets; the reader prints what it read.  Exit 0 when every
 * write was whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

static int rfd, efd, ready;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

/* The poller: each event wakes the reader. */
static void *poller(void *arg)
{
	struct epoll_event ev;

	for (;;) {
		if (epoll_wait(efd, &ev, 1, -1) != 1)
			continue;
		pthread_mutex_lock(&mu);
		ready = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

/* A read of up to @n bytes; on EAGAIN, armed for one event and asleep
 * until the poller saw it. */
static ssize_t get(char *b, size_t n)
{
	for (;;) {
		ssize_t r = read(rfd, b, n);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };

		if (r >= 0 || errno != EAGAIN)
			return r;
		pthread_mutex_lock(&mu);
		ready = 0;
		epoll_ctl(efd, EPOLL_CTL_MOD, rfd, &ev);
		while (!ready)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
	}
}

static int reader(void)
{
	static char buf[65536];
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	pthread_t t;
	long total = 0;
	ssize_t r;

	fcntl(rfd, F_SETFL, O_NONBLOCK);
	efd = epoll_create1(0);
	epoll_ctl(efd, EPOLL_CTL_ADD, rfd, &ev);
	if (pthread_create(&t, NULL, poller, NULL))
		return 1;
	for (;;) {
		if ((r = get(buf, 8192)) <= 0)
			break;
		total += r;
		if ((r = get(buf, 65520 - r)) <= 0)
			break;
		total += r;
		for (volatile int k = 0; k < 20000; k++)
			;	/* work on the packet */
	}
	printf("read %ld\n", total);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[65516];
	int n = argc > 1 ? atoi(argv[1]) : 300, p[2], i;
	pid_t pid;

	if (pipe(p) || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(p[1]);
		rfd = p[0];
		_exit(reader());
	}
	close(p[0]);
	for (i = 0; i < n; i++) {
		ssize_t w;

		if (write(p[1], buf, 4) != 4)
			return 2;
		if ((w = write(p[1], buf, sizeof(buf))) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "pipe_poller: short write %zd\n", w);
			return 3;
		}
	}
	close(p[1]);
	waitpid(pid, NULL, 0);
	return 0;
}
