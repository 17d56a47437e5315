/*
 * lock_owner.c - POSIX record locks belong to a process, not to an open
 * file: a process's two opens of one file never conflict, a child that
 * inherited the descriptor its parent locked through is refused, and the
 * process's close of any descriptor of the file releases all its locks
 * there.  In turn, through pipes, so that the order is the program's:
 *   1. the parent opens FILE twice and write-locks bytes 0-9 through
 *      each (granted both times);
 *   2. its forked child asks for the same bytes through the descriptor
 *      it inherited (refused: EAGAIN);
 *   3. the parent closes its second descriptor (its locks go): with
 *      close(), or as HOW says: close_range() of it alone, a dup2() of
 *      a pipe's end onto it, or an exec (of sh, which writes the byte
 *      of step 3) that closes it as it is close-on-exec;
 *   4. the child opens FILE itself and asks again (granted).
 *   lock_owner FILE [close|close_range|dup2|exec]
 * Exit 0 when every answer was as above (with exec, the child's answers
 * are in the trace only).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"

static int wrlock(int fd)
{
	return lk(fd, F_SETLK, F_WRLCK, 0, 10) == 0 ? 0 : -errno;
}

int main(int argc, char **argv)
{
	int p1[2], p2[2], fd1, fd2, st;
	const char *how = argc > 2 ? argv[2] : "close";
	char b, cmd[64];
	pid_t pid;

	if (argc < 2 || argc > 3 || (strcmp(how, "close") && strcmp(how, "close_range") &&
				     strcmp(how, "dup2") && strcmp(how, "exec"))) {
		fprintf(stderr, "usage: lock_owner FILE [close|close_range|dup2|exec]\n");
		return 2;
	}
	fd1 = open(argv[1], O_RDWR | O_CREAT, 0644);
	fd2 = open(argv[1], O_RDWR | (strcmp(how, "exec") ? 0 : O_CLOEXEC));
	if (fd1 < 0 || fd2 < 0 || pipe(p1) || pipe(p2))
		return 1;
	if (wrlock(fd1) || wrlock(fd2)) {
		fprintf(stderr, "lock_owner: the parent's second lock was refused\n");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd3, r = wrlock(fd1);

		if (r != -EAGAIN && r != -EACCES)
			_exit(3);
		if (write(p1[1], "x", 1) != 1 || read(p2[0], &b, 1) != 1)
			_exit(4);
		fd3 = open(argv[1], O_RDWR);
		if (fd3 < 0 || wrlock(fd3) != 0)
			_exit(5);
		_exit(0);
	}
	if (read(p1[0], &b, 1) != 1)
		return 1;
	if (!strcmp(how, "exec")) {
		snprintf(cmd, sizeof(cmd), "printf y >&%d", p2[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		return 1;
	}
	if (!strcmp(how, "close_range"))
		syscall(SYS_close_range, (unsigned)fd2, (unsigned)fd2, 0u);
	else if (!strcmp(how, "dup2"))
		dup2(p1[0], fd2);
	else
		close(fd2);
	if (write(p2[1], "y", 1) != 1)
		return 1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "lock_owner: the child's answers were not as POSIX gives (%d)\n",
			WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 1;
	}
	return 0;
}
