/*
 * map_tail.c - a file written through a shared mapping whose size is not
 * a whole number of pages: FILE made 10,000 bytes long, every byte
 * stored through the mapping, msync'd, unmapped; then read to its end in
 * 4,096-byte reads (4,096, 4,096, 1,808, then 0).
 * (tests/integration/replay_map_tail.sh)
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE 10000

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t r;
	char *m;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: map_tail FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, SIZE) < 0) {
		perror(argv[1]);
		return 1;
	}
	m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("map_tail: mmap");
		return 1;
	}
	memset(m, 'x', SIZE);
	if (msync(m, SIZE, MS_SYNC) < 0 || munmap(m, SIZE) < 0 || close(fd) < 0) {
		perror("map_tail: msync");
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return r < 0;
}
