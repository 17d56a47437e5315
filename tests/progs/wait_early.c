/*
 * wait_early.c - a parent that waits for its child at once: the child
 * computes for a while before its first call (as a subshell that execs a
 * long build may be slow to start), so the parent's wait4 enters before
 * any call of the child's.  The child then writes child.out and exits;
 * the parent, once it has reaped it, writes parent.out.
 * (tests/integration/replay_wait_early.sh)
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, name, 5) != 5 || close(fd) < 0) {
		perror(name);
		_exit(1);
	}
}

int main(void)
{
	volatile unsigned long x = 0;
	unsigned long i;
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		perror("wait_early: fork");
		return 1;
	}
	if (pid == 0) {
		for (i = 0; i < 200000000UL; i++)	/* no call */
			x += i;
		put("child.out");
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		perror("wait_early: waitpid");
		return 1;
	}
	put("parent.out");
	return 0;
}
