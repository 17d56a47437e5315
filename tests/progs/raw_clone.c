/*
 * raw_clone.c - a child made by the raw clone syscall (as bubblewrap's
 * raw_clone() does), not by glibc's fork(), so that no atfork handler runs
 * in it.  The child waits on an eventfd its parent writes after making a
 * file, then makes five files of its own.
 *
 *   raw_clone DIR
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	uint64_t v = 1;
	int efd = eventfd(0, EFD_CLOEXEC), fd, i;
	long pid;

	if (argc < 2 || efd < 0 || chdir(argv[1]) < 0)
		return 2;
	pid = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0)
		return 3;
	if (pid == 0) {
		/* the child waits for its parent, then writes files */
		if (read(efd, &v, sizeof(v)) != sizeof(v))
			_exit(4);
		for (i = 0; i < 5; i++) {
			snprintf(path, sizeof(path), "child%d", i);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, path, 6) != 6)
				_exit(5);
			close(fd);
		}
		_exit(0);
	}
	fd = open("parent", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "parent", 6) != 6)
		return 6;
	close(fd);
	if (write(efd, &v, sizeof(v)) != sizeof(v))
		return 7;
	return waitpid((pid_t)pid, &i, 0) == pid && WIFEXITED(i) && !WEXITSTATUS(i) ? 0 : 8;
}
