/*
 * val_fsync.c - fsync-heavy creation from several processes, a workload of
 * the validation suite (tests/validate/fsync.sh): P processes each create
 * N files of SIZE bytes in a directory of their own (d0, d1, ...), each
 * file written and fsync()ed before close, the way a mail or package
 * store commits its files.  The parent waits for all of them.
 *   val_fsync P N [SIZE]      (SIZE defaults to 8192)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(int k, long n, long size)
{
	static char buf[1 << 16];
	char dir[32], path[64];
	long i;
	int fd;

	memset(buf, 'a' + k, sizeof(buf));
	snprintf(dir, sizeof(dir), "d%d", k);
	if (mkdir(dir, 0755) < 0) {
		perror(dir);
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%05ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, buf, (size_t)size) != size || fsync(fd) < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n, size;
	int p, k, status, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: val_fsync PROCESSES FILES [SIZE]\n");
		return 2;
	}
	p = atoi(argv[1]);
	n = atol(argv[2]);
	size = argc > 3 ? atol(argv[3]) : 8192;
	if (p < 1 || p > 64 || n < 0 || size < 0 || size > (1 << 16)) {
		fprintf(stderr, "val_fsync: 1-64 processes, SIZE up to 65536\n");
		return 2;
	}
	for (k = 0; k < p; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(child(k, n, size));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	return rc;
}
