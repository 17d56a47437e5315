/*
 * wait_child.c - a parent that polls for its child's end: wait4 with
 * WNOHANG, then a 20 ms sleep, until the child is reaped.  The child
 * reads a byte from standard input and exits, so it runs as long as
 * whoever feeds the input makes it (tests/integration/replay_waits.sh
 * feeds it late: the replay, which does not wait for an inherited
 * descriptor, has a child that ends at once).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	const struct timespec ts = { 0, 20000000 };
	pid_t pid = fork(), r;
	char c;

	if (pid < 0) {
		perror("wait_child: fork");
		return 1;
	}
	if (pid == 0)
		_exit(read(0, &c, 1) == 1 ? 0 : 1);
	while ((r = waitpid(pid, NULL, WNOHANG)) == 0)
		nanosleep(&ts, NULL);
	if (r != pid) {
		perror("wait_child: waitpid");
		return 1;
	}
	return 0;
}
