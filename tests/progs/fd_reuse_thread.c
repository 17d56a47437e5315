/*
 * fd_reuse_thread - a thread takes the descriptor number its process
 * just freed, and nothing else orders the two.
 *
 * The main thread starts a worker, which spins on a flag in memory (no
 * call the trace holds), then opens FILE, locks it, stats it 2,000 times
 * and closes it, as descriptor N; then it lets the worker go, which opens
 * FILE2 and gets N again, reads it to its end and closes it.  The thread
 * shares the table from its start, not from its first call: replayed
 * without that order, the worker took N while the main thread still
 * held it (rrdtool's fontconfig thread).
 *
 * Usage: fd_reuse_thread FILE FILE2
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static atomic_int go;
static const char *file2;
static int got;

static void *worker(void *arg)
{
	char buf[4096];
	ssize_t n;
	int fd;

	(void)arg;
	while (!atomic_load(&go))
		;
	fd = open(file2, O_RDONLY | O_CLOEXEC);
	got = fd;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	CHECK("worker's last read", n, 0);
	CHECK("worker's close", close(fd), 0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct stat st;
	pthread_t th;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: fd_reuse_thread FILE FILE2\n");
		return 1;
	}
	file2 = argv[2];
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	CHECK("lock", fcntl(fd, F_SETLK, &fl), 0);
	for (i = 0; i < 2000; i++)
		CHECK("fstat", fstat(fd, &st), 0);
	CHECK("close", close(fd), 0);
	atomic_store(&go, 1);
	pthread_join(th, NULL);
	CHECK("the worker's descriptor", got, fd);
	return fails != 0;
}
