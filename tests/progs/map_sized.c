/*
 * map_sized - map a new, empty file larger than it is, compute, size the
 * file, store into its first pages, unmap.
 *
 * The pages are taken at the munmap, and the replay makes them in the
 * longest gap of the thread since the mapping was made: that was the
 * computing before the ftruncate, when the file was empty, and the
 * record failed (kchashmgr's create did this).
 *
 * Usage: map_sized FILE
 * Exit: 0, or 1 on an error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAP_BYTES (64UL << 20)
#define FILE_BYTES (1UL << 20)
#define PAGES 16

/* Compute for @ms milliseconds. */
static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	char *m;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: map_sized FILE\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("map_sized: open");
		return 1;
	}
	m = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("map_sized: mmap");
		return 1;
	}
	spin_ms(20);
	if (ftruncate(fd, FILE_BYTES) < 0) {
		perror("map_sized: ftruncate");
		return 1;
	}
	memset(m, 0xab, PAGES * 4096);
	munmap(m, MAP_BYTES);
	close(fd);
	return 0;
}
