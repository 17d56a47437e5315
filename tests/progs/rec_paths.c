/*
 * rec_paths.c - a program that names many paths, for the recorder's
 * memory: N calls on DISTINCT names under DIR, spread over 1,000
 * directories DIR/dNN/dNN (made first); each name is stat()ed, and every
 * 100th distinct one is created (open O_CREAT, close) after its stat.
 * With DISTINCT < N the names repeat: a long run on few files.  MODE
 * "open" makes every distinct name a file instead (open O_CREAT), and
 * opens each name it comes to, fstat()s it and keeps the descriptor among
 * the last 64 open, closing the oldest: descriptors that keep coming and
 * going.  Prints the calls made.
 *   rec_paths DIR N [DISTINCT [MODE]]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char p[4096];
	unsigned long long n, distinct, i, calls = 0;
	struct stat sb;
	int a, b, fd, opens = 0, ring[64];

	if (argc < 3) {
		fprintf(stderr, "usage: rec_paths DIR N [DISTINCT]\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	distinct = argc > 3 ? strtoull(argv[3], NULL, 10) : n;
	if (distinct == 0)
		distinct = 1;
	if (argc > 4 && strcmp(argv[4], "open") == 0)
		opens = 1;
	for (a = 0; a < 10; a++) {
		snprintf(p, sizeof(p), "%s/d%02d", argv[1], a);
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return perror(p), 1;
		for (b = 0; b < 100; b++) {
			snprintf(p, sizeof(p), "%s/d%02d/d%02d", argv[1], a, b);
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return perror(p), 1;
		}
	}
	for (i = 0; i < n; i++) {
		unsigned long long k = i % distinct, d = k % 1000;

		snprintf(p, sizeof(p), "%s/d%02llu/d%02llu/name-of-file-%09llu", argv[1], d / 100,
			 d % 100, k);
		if (opens) {
			fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			if (fd < 0)
				return perror(p), 1;
			fstat(fd, &sb);
			if (i >= 64)
				close(ring[i % 64]);
			ring[i % 64] = fd;
			calls += i >= 64 ? 3 : 2;
			continue;
		}
		stat(p, &sb);
		calls++;
		if (k % 100 == 0 && i < distinct) {
			fd = open(p, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0)
				close(fd);
			calls += 2;
		}
	}
	printf("%llu\n", calls);
	return 0;
}
