/*
 * map_reuse.c - a mapping made where another one was: DIR/a (64 pages)
 * mapped shared, one byte stored, unmapped; then DIR/b (64 pages) mapped
 * shared at the very address a's mapping had (MAP_FIXED_NOREPLACE: the
 * range is free again), a byte stored in each of its pages, msync'd,
 * unmapped.  Its replay must write b's pages into b, not into a, whose
 * mapping was at that address before (tests/integration/replay_map_reuse.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 64
#define LEN (PAGES * 4096)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

int main(int argc, char **argv)
{
	char pa[4096], pb[4096];
	char *p, *q;
	int a, b, i;

	if (argc != 2) {
		fprintf(stderr, "usage: map_reuse DIR\n");
		return 2;
	}
	snprintf(pa, sizeof(pa), "%s/a", argv[1]);
	snprintf(pb, sizeof(pb), "%s/b", argv[1]);
	a = open(pa, O_RDWR | O_CREAT | O_TRUNC, 0644);
	b = open(pb, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (a < 0 || b < 0 || ftruncate(a, LEN) < 0 || ftruncate(b, LEN) < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	if (p == MAP_FAILED) {
		perror("mmap a");
		return 1;
	}
	p[0] = 1;
	munmap(p, LEN);
	q = mmap(p, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, b, 0);
	if (q != p) {
		fprintf(stderr, "b was not mapped where a was\n");
		return 1;
	}
	for (i = 0; i < PAGES; i++)
		q[i * 4096] = 2;
	if (msync(q, LEN, MS_SYNC) < 0) {
		perror("msync");
		return 1;
	}
	munmap(q, LEN);
	close(a);
	close(b);
	return 0;
}
