/*
 * wait_poll.c - polls the read end of a pipe nobody writes to, for 200 ms:
 * a wait that ends by its timeout (poll returns 0), for the recorder and
 * the replay of waits (tests/integration/replay_waits.sh).
 */
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	struct pollfd pfd;
	int fds[2], r;

	if (pipe(fds) < 0) {
		perror("wait_poll: pipe");
		return 1;
	}
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 200);
	if (r != 0) {
		fprintf(stderr, "wait_poll: poll returned %d, not its timeout\n", r);
		return 1;
	}
	return 0;
}
