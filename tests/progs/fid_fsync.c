/*
 * fid_fsync.c - fsync-heavy creation from several processes: the parent
 * forks NPROC children, each creates NFILES files of SIZE bytes in its
 * own directory DIR/dK, writing each whole and fsyncing it before close,
 * and waits for them.  Like fs_mark, a child makes sure its directory is
 * there before each file (a mkdir that fails with EEXIST).
 *   fid_fsync DIR [NPROC [NFILES [SIZE]]]     (default 2 1500 8192)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(const char *dir, int k, long nfiles, size_t size)
{
	char path[4096];
	char *buf = malloc(size);
	long i;

	if (!buf)
		return 1;
	memset(buf, 'a' + k, size);
	snprintf(path, sizeof(path), "%s/d%d", dir, k);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/d%d", dir, k);
		if (mkdir(path, 0755) == 0 || errno != EEXIST) {
			perror(path);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/d%d/f%06ld", dir, k, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, buf, size) != (ssize_t)size || fsync(fd) < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int nproc = argc > 2 ? atoi(argv[2]) : 2, k, st, bad = 0;
	long nfiles = argc > 3 ? atol(argv[3]) : 1500;
	size_t size = argc > 4 ? (size_t)atol(argv[4]) : 8192;

	if (argc < 2 || nproc < 1 || nfiles < 0) {
		fprintf(stderr, "usage: fid_fsync DIR [NPROC [NFILES [SIZE]]]\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (k = 0; k < nproc; k++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(child(argv[1], k, nfiles, size));
	}
	for (k = 0; k < nproc; k++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	return bad;
}
