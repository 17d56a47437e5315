/*
 * lock_flip.c - one process's read lock taken and let go again and again
 * while another tries for a write lock of the same bytes without waiting:
 *   lock_flip FILE [ROUNDS [PROCS]]
 * PROCS children (4), in turn readers and writers, each through a
 * descriptor of FILE of its own: a reader takes a read lock of bytes 0-1
 * by fcntl() F_SETLK and lets it go (F_UNLCK), ROUNDS times; a writer
 * tries for a write lock of the same bytes as often and, granted, lets it
 * go.  None waits.  More of them than CPUs, one is often taken off its
 * CPU between a call's return and its recorder's time of that return: a
 * try refused while a reader held its lock is then recorded as returning
 * after that reader's unlock, which it entered before, and a replay has
 * to refuse it all the same.  They start together, at the end of a pipe.
 * Each prints how many of its tries were refused; exits 0 unless a call
 * failed otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"

/* @rounds tries of lock @type through a descriptor of @path of its own,
 * each granted one let go at once: the number refused, -1 on an error */
static int flip(const char *path, short type, int rounds)
{
	int fd = open(path, O_RDWR), i, refused = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < rounds; i++) {
		if (lk(fd, F_SETLK, type, 0, 2) == 0) {
			if (lk(fd, F_SETLK, F_UNLCK, 0, 2) < 0)
				return -1;
		} else if (errno == EAGAIN || errno == EACCES) {
			refused++;
		} else {
			return -1;
		}
	}
	close(fd);
	return refused;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 2000, procs = argc > 3 ? atoi(argv[3]) : 4;
	int p[2], fd, i, st, bad = 0;
	pid_t pid;
	char b;

	if (argc < 2 || procs < 2 || (fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0) {
		fprintf(stderr, "usage: lock_flip FILE [ROUNDS [PROCS]]\n");
		return 2;
	}
	close(fd);
	if (pipe(p) < 0)
		return 1;
	for (i = 0; i < procs; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			short type = i % 2 ? F_WRLCK : F_RDLCK;
			int r;

			close(p[1]);
			/* all start at once: at the end of the pipe */
			if (read(p[0], &b, 1) != 0)
				_exit(1);
			r = flip(argv[1], type, rounds);
			printf("%s %d: %d of %d refused\n", type == F_RDLCK ? "reader" : "writer",
			       i, r, rounds);
			fflush(stdout);
			_exit(r < 0);
		}
	}
	close(p[0]);
	close(p[1]);
	while ((pid = wait(&st)) > 0)
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	return bad != 0;
}
