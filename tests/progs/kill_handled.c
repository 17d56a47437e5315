/*
 * kill_handled.c - children killed as they leave a write, with a handled
 * signal taken at the same return: each child writes 8 bytes to a pipe
 * and waits for SIGUSR1 (it has a handler); the parent reads the 8 bytes
 * and sends SIGUSR1 and SIGTERM at once, as R's parallel package ends
 * its children.  A child still in its write then has the handler's frame
 * set up and dies before the handler runs: its registers are the
 * handler's, and the write's result is in the frame.  With "term", the
 * parent sends SIGTERM alone: a child still in its write dies on its way
 * out, its registers the write's return.
 *   kill_handled N [term]
 * Exit 0 when every child's 8 bytes were read.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t can_exit;

static void on_usr1(int sig)
{
	(void)sig;
	can_exit = 1;
}

static void child(int fd)
{
	size_t len = 0;

	if (write(fd, &len, sizeof(len)) != sizeof(len))
		_exit(2);
	close(fd);
	while (!can_exit)
		sleep(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, i;
	int usr1 = !(argc > 2 && strcmp(argv[2], "term") == 0);

	signal(SIGUSR1, on_usr1);
	for (i = 0; i < n; i++) {
		size_t len;
		int p[2];
		pid_t pid;

		if (pipe(p) < 0 || (pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			close(p[0]);
			child(p[1]);
		}
		close(p[1]);
		if (read(p[0], &len, sizeof(len)) != sizeof(len))
			return 1;
		if (usr1)
			kill(pid, SIGUSR1);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		close(p[0]);
	}
	return 0;
}
