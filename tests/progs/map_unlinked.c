/*
 * map_unlinked.c - a file mapped, then its name removed, then a fork:
 * the parent and the child touch pages of the mapping after the file
 * has no name, so the pages can only be tied to it by the descriptor
 * the mapping was made from, not by a path looked up later.
 *
 * usage: map_unlinked FILE  (FILE: 64 pages, made here)
 *   parent: reads pages 0..7 and writes pages 8..15 (shared mapping),
 *   child:  reads pages 16..23 and writes pages 24..31, then msyncs,
 *   both before their munmap.  Exit 0, or 1 with what failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096
#define NPAGES 64

static int touch(volatile char *m, int rd0, int wr0)
{
	int i, s = 0;

	for (i = rd0; i < rd0 + 8; i++)
		s += m[i * PG];
	for (i = wr0; i < wr0 + 8; i++)
		m[i * PG] = (char)(i + 1);
	return s;
}

int main(int argc, char **argv)
{
	static char page[PG];
	volatile char *m;
	int fd, i, st;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: map_unlinked FILE\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < NPAGES; i++)
		if (write(fd, page, PG) != PG) {
			perror("write");
			return 1;
		}
	/* clean in the page cache: only stores through the mapping dirty them */
	if (fsync(fd) < 0) {
		perror("fsync");
		return 1;
	}
	m = mmap(NULL, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (unlink(argv[1]) < 0) {
		perror("unlink");
		return 1;
	}
	close(fd);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		touch(m, 16, 24);
		if (msync((void *)m, NPAGES * PG, MS_SYNC) < 0)
			_exit(1);
		munmap((void *)m, NPAGES * PG);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "child failed\n");
		return 1;
	}
	touch(m, 0, 8);
	if (msync((void *)m, NPAGES * PG, MS_SYNC) < 0) {
		perror("msync");
		return 1;
	}
	munmap((void *)m, NPAGES * PG);
	return 0;
}
