/*
 * gap_pagein.c - a thread that waits on a disk between two calls and in
 * none: the pages of a file mapping it touches after their file's cache
 * was dropped come in by major page faults, outside any call.
 *
 * usage: gap_pagein FILE  (FILE: some MiB on a disk-backed filesystem)
 *   writes FILE back and drops its cache (posix_fadvise DONTNEED), maps
 *   it, calls access("FILE.before"), reads one byte of every page
 *   (MADV_RANDOM: one fault, one read from the disk, per page), calls
 *   access("FILE.after").  Exit 0; 2 if the cache could not be dropped
 *   (a filesystem that keeps it: the test cannot show a page-in); 1
 *   with what failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG 4096

int main(int argc, char **argv)
{
	char name[4096];
	unsigned char vec[64];
	struct stat sb;
	volatile char *m;
	size_t i, npg;
	int fd, s = 0;

	if (argc != 2)
		return fprintf(stderr, "usage: gap_pagein FILE\n"), 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_size < 64 * PG)
		return perror(argv[1]), 1;
	npg = (size_t)sb.st_size / PG;
	if (fdatasync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return perror("fadvise"), 1;
	m = mmap(NULL, npg * PG, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return perror("mmap"), 1;
	close(fd);
	if (madvise((void *)m, npg * PG, MADV_RANDOM) < 0)
		return perror("madvise"), 1;
	/* the first 64 pages must be out, or no fault waits on the disk */
	if (mincore((void *)m, 64 * PG, vec) < 0)
		return perror("mincore"), 1;
	for (i = 0; i < 64; i++)
		if (vec[i] & 1)
			return fprintf(stderr, "gap_pagein: %s stays cached\n", argv[1]), 2;
	snprintf(name, sizeof(name), "%s.before", argv[1]);
	access(name, F_OK);
	for (i = 0; i < npg; i++)
		s += m[i * PG];
	snprintf(name, sizeof(name), "%s.after", argv[1]);
	access(name, F_OK);
	munmap((void *)m, npg * PG);
	return s == -1;
}
