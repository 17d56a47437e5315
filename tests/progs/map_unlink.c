/*
 * map_unlink.c - a file read through a mapping, unmapped, closed and
 * removed, then another written in the space it freed: DIR/a (MIB MiB)
 * written, mapped, each page read, unmapped, closed, unlinked; then DIR/b
 * (MIB MiB) written.  On a filesystem with room for one of them only, b
 * fits once a is gone.  Its replay must let go of a when the program
 * unmapped it (tests/integration/replay_map_unlink.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1 << 20)

static int fill(const char *path, int mib, char c)
{
	static char buf[MIB];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), i;

	memset(buf, c, sizeof(buf));
	for (i = 0; fd >= 0 && i < mib; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror(path);
			exit(1);
		}
	if (fd < 0)
		perror(path);
	return fd;
}

int main(int argc, char **argv)
{
	char pa[4096], pb[4096];
	volatile char *p;
	long sum = 0;
	int a, b, mib;
	size_t i;

	if (argc != 3 || (mib = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: map_unlink DIR MIB\n");
		return 2;
	}
	snprintf(pa, sizeof(pa), "%s/a", argv[1]);
	snprintf(pb, sizeof(pb), "%s/b", argv[1]);
	if ((a = fill(pa, mib, 'a')) < 0)
		return 1;
	p = mmap(NULL, (size_t)mib * MIB, PROT_READ, MAP_SHARED, a, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < (size_t)mib * MIB; i += 4096)
		sum += p[i];
	if (munmap((void *)p, (size_t)mib * MIB) < 0 || close(a) < 0 || unlink(pa) < 0) {
		perror(pa);
		return 1;
	}
	if ((b = fill(pb, mib, 'b')) < 0 || close(b) < 0)
		return 1;
	printf("%ld\n", sum);
	return 0;
}
