/*
 * close_reuse.c - a thread's close of a socket whose number another
 * thread's open takes: thread A makes a socket (the lowest free number),
 * naps 20 us, closes it, naps, again and again; the main thread opens,
 * writes 4 KiB into and closes NF files in DIR.  Now and then the main
 * thread's open enters before A's close and gets the number the close
 * freed.  Then every file is read back.
 *   close_reuse DIR NF
 * Exit 0 when each file holds 4 KiB.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile int done;

static void nap(void)
{
	struct timespec t = { 0, 20000 };

	nanosleep(&t, NULL);
}

static void *closer(void *x)
{
	while (!done) {
		int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

		nap();
		close(fd);
		nap();
	}
	return x;
}

int main(int argc, char **argv)
{
	static char buf[4096], rb[8192];
	char p[4096];
	pthread_t a;
	int i, nf, bad = 0;

	if (argc != 3 || (nf = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: close_reuse DIR NF\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < nf; i++) {
		snprintf(p, sizeof(p), "%s/b%d", argv[1], i);
		close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	}
	if (pthread_create(&a, NULL, closer, NULL))
		return 1;
	for (i = 0; i < nf; i++) {
		int fd;

		snprintf(p, sizeof(p), "%s/b%d", argv[1], i);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			return 1;
		close(fd);
	}
	done = 1;
	pthread_join(a, NULL);
	for (i = 0; i < nf; i++) {
		int fd;

		snprintf(p, sizeof(p), "%s/b%d", argv[1], i);
		fd = open(p, O_RDONLY);
		if (fd < 0 || read(fd, rb, sizeof(rb)) != 4096)
			bad++;
		close(fd);
	}
	return bad != 0;
}
