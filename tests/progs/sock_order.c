/*
 * sock_order - clients' connects to one named Unix socket, each served by
 * its own process.
 *
 * The server binds DIR/s, forks two clients and accepts twice, forking a
 * handler per connection that reads the client's message and answers.
 * The first client forked waits 20 ms before it connects and sends 100
 * bytes; the second connects at once and sends 50.  The k-th accept
 * takes the k-th connect: replayed in another order, each handler gets
 * the other's client (postgres's backends, pgbench -C).
 *
 * Usage: sock_order DIR
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static struct sockaddr_un sa = { .sun_family = AF_UNIX };

static void client(size_t n, useconds_t delay)
{
	char buf[128];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	usleep(delay);
	CHECK("connect", connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(buf, 'x', n);
	CHECK("client's write", write(s, buf, n), (long long)n);
	CHECK("client's read", read(s, buf, sizeof(buf)), 2);
	_exit(fails != 0);
}

int main(int argc, char **argv)
{
	int l, c, i, st, bad = 0;

	if (argc != 2 || strlen(argv[1]) + 3 > sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: sock_order DIR (a short path)\n");
		return 1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", argv[1]);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK("bind", bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	CHECK("listen", listen(l, 8), 0);
	if (fails)
		return 1;
	if (fork() == 0)
		client(100, 20000);
	if (fork() == 0)
		client(50, 0);
	for (i = 0; i < 2; i++) {
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			perror("sock_order: accept");
			return 1;
		}
		if (fork() == 0) {
			char buf[4096];
			ssize_t r = read(c, buf, sizeof(buf));

			CHECK("handler's read", r == 50 || r == 100, 1);
			CHECK("handler's write", write(c, "ok", 2), 2);
			_exit(fails != 0);
		}
		close(c);
	}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	unlink(sa.sun_path);
	return bad || fails;
}
