/*
 * lock_downgrade.c - a write lock made a read lock lets waiting readers
 * through (LMDB's lock file at open), three processes on byte 0 of FILE,
 * in turn through pipes:
 *   1. A write-locks it (granted);
 *   2. B asks for a write lock (refused: EAGAIN), then waits for a read
 *      lock (F_SETLKW);
 *   3. C, a moment after B began to wait, asks for a write lock (refused)
 *      and tells A;
 *   4. A makes its write lock a read lock (F_SETLK, F_RDLCK): B's wait
 *      ends; C waits for a read lock too (granted at once or once A's
 *      downgrade is done).
 *   lock_downgrade FILE
 * Exit 0 when every answer was as above.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"

int main(int argc, char **argv)
{
	int bc[2], ca[2], fd, st, bad = 0;
	char c = 'x';
	pid_t b, cc;

	if (argc != 2 || pipe(bc) || pipe(ca))
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || lk(fd, F_SETLK, F_WRLCK, 0, 1))			/* 1 */
		return 1;
	if ((b = fork()) == 0) {
		fd = open(argv[1], O_RDWR);
		if (lk(fd, F_SETLK, F_WRLCK, 0, 1) == 0 || errno != EAGAIN)	/* 2 */
			_exit(1);
		if (write(bc[1], &c, 1) != 1)
			_exit(1);
		_exit(lk(fd, F_SETLKW, F_RDLCK, 0, 1) ? 1 : 0);
	}
	if ((cc = fork()) == 0) {
		if (read(bc[0], &c, 1) != 1)
			_exit(1);
		usleep(50000);		/* B is in its F_SETLKW */
		fd = open(argv[1], O_RDWR);
		if (lk(fd, F_SETLK, F_WRLCK, 0, 1) == 0 || errno != EAGAIN)	/* 3 */
			_exit(1);
		if (write(ca[1], &c, 1) != 1)
			_exit(1);
		_exit(lk(fd, F_SETLKW, F_RDLCK, 0, 1) ? 1 : 0);
	}
	if (read(ca[0], &c, 1) != 1 || lk(fd, F_SETLK, F_RDLCK, 0, 1))	/* 4 */
		return 1;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	if (waitpid(cc, &st, 0) != cc || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	close(fd);
	return bad;
}
