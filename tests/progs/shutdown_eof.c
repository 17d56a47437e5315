/*
 * shutdown_eof.c - a server that ends its reply with shutdown(SHUT_WR),
 * as lighttpd and clamd do, and closes only after its client's "bye":
 * three rounds of a forked server on a socket pair; the client reads the
 * reply, then end of file (the shutdown's), and says bye.
 *   shutdown_eof
 * Exit 0 when every round read 5 bytes, then end of file.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char b[64];
	int i;

	for (i = 0; i < 3; i++) {
		ssize_t n1, n2;
		int p[2], st;
		pid_t pid;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) < 0 || (pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			close(p[0]);
			if (write(p[1], "reply", 5) != 5 || shutdown(p[1], SHUT_WR) < 0 ||
			    read(p[1], b, sizeof(b)) != 3)
				_exit(1);
			_exit(close(p[1]) != 0);
		}
		close(p[1]);
		n1 = read(p[0], b, sizeof(b));
		n2 = read(p[0], b, sizeof(b));
		if (n1 != 5 || n2 != 0 || write(p[0], "bye", 3) != 3)
			return 1;
		close(p[0]);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
