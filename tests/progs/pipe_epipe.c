/*
 * pipe_epipe.c - a writer that fills a pipe and blocks until its reader
 * ends: the reader maps NMAP files of DIR (a page of each read through
 * the mapping, left mapped), reads 64 KiB of the pipe, waits 50 ms and
 * exits with the read end open; the writer's last write, blocked in the
 * full pipe, fails with EPIPE at that exit (as yes(1) feeding shuf's
 * --random-source).  Its replay must fail that write at the reader's
 * exit, not into the full pipe before it (tests/integration/replay_epipe.sh).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NMAP 12

int main(int argc, char **argv)
{
	static char buf[8192];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char path[4096];
	volatile char sum = 0;
	int p[2], i, fd;
	long got = 0;
	ssize_t r;

	if (argc != 2) {
		fprintf(stderr, "usage: pipe_epipe DIR\n");
		return 2;
	}
	if (pipe(p) < 0) {
		perror("pipe");
		return 1;
	}
	if (fork() == 0) {
		signal(SIGPIPE, SIG_IGN);
		close(p[0]);
		memset(buf, 'y', sizeof(buf));
		while (write(p[1], buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	for (i = 0; i < NMAP; i++) {
		char *m;

		snprintf(path, sizeof(path), "%s/m%d", argv[1], i);
		if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0 ||
		    write(fd, "mapped\n", 7) != 7) {
			perror(path);
			return 1;
		}
		m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		sum += m[0];
		close(fd);
	}
	while (got < 65536 && (r = read(p[0], buf, sizeof(buf))) > 0)
		got += r;
	nanosleep(&ts, NULL);
	printf("%ld\n", got);
	return 0;
}
