/*
 * lock_letgo.c - locks let go without an unlock, by their holder's close
 * or its end, raced by another process's tries that do not wait:
 *   lock_letgo FILE [ROUNDS [close|exit]]
 * Each round forks a child that opens FILE, locks it (flock() LOCK_EX in
 * even rounds, fcntl() F_SETLK of bytes 0-9 in odd ones) and says so
 * through a pipe.  With close (the default) it then closes its
 * descriptor without an unlock, which lets the lock go, and ends 5 ms
 * later; with exit it ends at once, and its exit lets the lock go.  The
 * parent, once told, asks for the same lock through a descriptor of its
 * own without waiting (LOCK_NB, F_SETLK) and, granted, unlocks it.
 * Whether a try came before the child's close or end or after it is the
 * race's: some are refused (EAGAIN), the others granted, and a replay has
 * to answer each as recorded.  Exits 0 unless a call failed otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 100, i, fd, p[2], refused = 0, bad = 0;
	int by_exit = argc > 3 && strcmp(argv[3], "exit") == 0;
	char b = 1;

	if (argc < 2 || (argc > 3 && !by_exit && strcmp(argv[3], "close") != 0) ||
	    (fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0) {
		fprintf(stderr, "usage: lock_letgo FILE [ROUNDS [close|exit]]\n");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		int by_flock = i % 2 == 0, r;
		pid_t pid;

		if (pipe(p) < 0 || (pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			int h = open(argv[1], O_RDWR);

			if (h < 0 || (by_flock ? flock(h, LOCK_EX) : lk(h, F_SETLK, F_WRLCK, 0, 10)) < 0 ||
			    write(p[1], &b, 1) != 1)
				_exit(1);
			if (by_exit)
				_exit(0);	/* its end lets the lock go */
			close(h);	/* lets the lock go */
			usleep(5000);
			_exit(0);
		}
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			bad++;
		close(p[0]);
		r = by_flock ? flock(fd, LOCK_EX | LOCK_NB) : lk(fd, F_SETLK, F_WRLCK, 0, 10);
		if (r == 0)
			r = by_flock ? flock(fd, LOCK_UN) : lk(fd, F_SETLK, F_UNLCK, 0, 10);
		else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EACCES)
			refused++;
		else
			bad++;
		if (waitpid(pid, &r, 0) != pid || r != 0)
			bad++;
	}
	printf("%d of %d tries refused\n", refused, rounds);
	return bad ? 1 : 0;
}
