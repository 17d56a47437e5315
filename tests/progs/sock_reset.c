/*
 * sock_reset.c - a client whose last read of a Unix stream socket fails
 * with ECONNRESET: ROUNDS times, a child accepts a connection on
 * DIR/sock, answers it, waits 50 ms and closes it without reading the
 * request the client sent meanwhile; the client's read, blocked until
 * that close, fails with ECONNRESET (a multiprocessing manager's client
 * whose last request the server left unread as it shut down).  Its
 * replay must fail that read at the close, not find the socket still
 * open (tests/integration/replay_sock_reset.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 3

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int l, i, resets = 0;
	char b[64];

	if (argc != 2) {
		fprintf(stderr, "usage: sock_reset DIR\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", argv[1]);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 4) < 0) {
		perror(a.sun_path);
		return 1;
	}
	for (i = 0; i < ROUNDS; i++) {
		pid_t p = fork();
		int s;

		if (p == 0) {
			s = accept(l, NULL, NULL);
			if (s < 0 || write(s, "hello", 5) != 5)
				_exit(1);
			nanosleep(&ts, NULL);
			close(s);
			_exit(0);
		}
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (p < 0 || s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("connect");
			return 1;
		}
		if (read(s, b, 5) != 5 || write(s, "request", 7) != 7)
			return 1;
		if (read(s, b, sizeof(b)) < 0 && errno == ECONNRESET)
			resets++;
		close(s);
		waitpid(p, NULL, 0);
	}
	unlink(a.sun_path);
	printf("%d of %d reads met ECONNRESET\n", resets, ROUNDS);
	return resets == ROUNDS ? 0 : 1;
}
