/*
 * lock_waiting.c - a process waiting in F_SETLKW for a lock another
 * holds, while a third is refused a range that overlaps it (tdb: a chain
 * lock waited for while other processes' transactions take the
 * whole-file read lock piece by piece), on FILE, in turn through pipes:
 *   1. A write-locks byte 10 (granted);
 *   2. B waits for a write lock of byte 10 (F_SETLKW);
 *   3. a moment later A write-locks byte 200 (granted);
 *   4. C asks for a read lock of bytes 0-99 (refused: A holds byte 10)
 *      and tells A;
 *   5. A unlocks byte 10: B's wait ends (granted).
 *   lock_waiting FILE
 * Exit 0 when every answer was as above.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"

int main(int argc, char **argv)
{
	int ab[2], ca[2], fd, st, bad = 0;
	char c = 'x';
	pid_t b, cc;

	if (argc != 2 || pipe(ab) || pipe(ca))
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || lk(fd, F_SETLK, F_WRLCK, 10, 1))		/* 1 */
		return 1;
	if ((b = fork()) == 0) {
		int f = open(argv[1], O_RDWR);

		if (write(ab[1], &c, 1) != 1)
			_exit(1);
		_exit(lk(f, F_SETLKW, F_WRLCK, 10, 1) ? 1 : 0);	/* 2 */
	}
	if (read(ab[0], &c, 1) != 1)
		return 1;
	usleep(50000);		/* B is in its F_SETLKW */
	if (lk(fd, F_SETLK, F_WRLCK, 200, 1))			/* 3 */
		return 1;
	if ((cc = fork()) == 0) {
		int f = open(argv[1], O_RDWR);
		int r = lk(f, F_SETLK, F_RDLCK, 0, 100);	/* 4 */

		_exit(write(ca[1], &c, 1) != 1 || r == 0 || errno != EAGAIN);
	}
	if (read(ca[0], &c, 1) != 1 || lk(fd, F_SETLK, F_UNLCK, 10, 1))	/* 5 */
		return 1;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	if (waitpid(cc, &st, 0) != cc || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	close(fd);
	return bad;
}
