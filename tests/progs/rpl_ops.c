/*
 * rpl_ops.c - a loop of cheap file syscalls for the replay overhead bench:
 *   rpl_ops DIR N
 * makes DIR/f (1 MiB), then N times: pread 4 KiB, fstat, stat by path,
 * lseek, open+close; prints the loop's own cost per syscall.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	char path[4096];
	struct stat st;
	long long t0, t1;
	long i, n;
	int fd;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
		return 1;
	t0 = now();
	for (i = 0; i < n; i++) {
		int f2;

		if (pread(fd, buf, 4096, (i * 4096) % (1 << 20)) != 4096)
			return 1;
		fstat(fd, &st);
		stat(path, &st);
		lseek(fd, 0, SEEK_SET);
		f2 = open(path, O_RDONLY);
		close(f2);
	}
	t1 = now();
	close(fd);
	fprintf(stderr, "native: %ld syscalls, %.0f ns per syscall\n", n * 6,
		(double)(t1 - t0) / (double)(n * 6));
	return 0;
}
