/*
 * sock_pingpong.c - a client and a server process over a Unix socket,
 * taking turns as a database and its client do:
 *   sock_pingpong DIR N
 * The server listens on DIR/sock and forks the client, which connects.
 * N rounds: the client writes a line to DIR/client, sends a byte and
 * poll()s for the answer; the server poll()s for the byte, reads it, waits
 * 2 ms (its work), writes a line to DIR/server and answers.  Neither
 * file is the other's: what orders them is the socket, whose send and
 * recv the trace does not hold, and the polls it woke.  Exits 0 when
 * both did N rounds.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int wait_in(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 10000) == 1 ? 0 : -1;
}

static int line(int fd, const char *who, int i)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%s %d\n", who, i);

	return write(fd, b, (size_t)n) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec work = { 0, 2000000 };
	char path[512], c;
	int n, i, ls, s, f, st;
	pid_t pid;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", argv[1]);
	unlink(a.sun_path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(ls);
		snprintf(path, sizeof(path), "%s/client", argv[1]);
		f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (f < 0 || s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
			_exit(1);
		for (i = 0; i < n; i++)
			if (line(f, "client", i) || send(s, "q", 1, 0) != 1 || wait_in(s) ||
			    recv(s, &c, 1, 0) != 1)
				_exit(1);
		_exit(close(f) || close(s));
	}
	snprintf(path, sizeof(path), "%s/server", argv[1]);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	s = accept(ls, NULL, NULL);
	if (f < 0 || s < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (wait_in(s) || recv(s, &c, 1, 0) != 1 || nanosleep(&work, NULL) ||
		    line(f, "server", i) || send(s, "a", 1, 0) != 1)
			return 1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	unlink(a.sun_path);
	return close(f) || close(s) || close(ls);
}
