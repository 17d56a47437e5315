/*
 * send_recv.c - requests and answers over a named Unix socket, as a
 * client library talks to its server (hiredis to redis, libpq to
 * PostgreSQL): the parent binds and listens in DIR, its forked child
 * connects and sends N requests of 100 bytes with send(); the parent
 * (the server) peeks at each with recv(MSG_PEEK), reads it with read(),
 * appends it to DIR/log and answers with write(); the child takes each
 * answer with recv() and appends it to DIR/got.  A replay that does not
 * make the client's sends leaves the server's reads nothing to read.
 *   send_recv DIR N
 * Exit 0 when each side got all it was sent.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define REQ 100
#define ANS 40

/* Read exactly @n bytes (a stream may deliver a message in parts). */
static int take(int fd, char *b, size_t n, int use_recv)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = use_recv ? recv(fd, b + got, n - got, 0) : read(fd, b + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int client(const struct sockaddr_un *sa, const char *dir, int n)
{
	char req[REQ], ans[ANS], path[4096];
	int s = socket(AF_UNIX, SOCK_STREAM, 0), out, i;

	snprintf(path, sizeof(path), "%s/got", dir);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (s < 0 || out < 0 || connect(s, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return 1;
	for (i = 0; i < n; i++) {
		memset(req, 'a' + i % 26, sizeof(req));
		if (send(s, req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req) ||
		    take(s, ans, sizeof(ans), 1) < 0 || write(out, ans, sizeof(ans)) != (ssize_t)sizeof(ans))
			return 1;
	}
	close(s);
	return close(out) < 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[REQ], ans[ANS], path[4096];
	int l, c, log, n, i, st;
	pid_t pid;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: send_recv DIR N\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", argv[1]);
	snprintf(path, sizeof(path), "%s/log", argv[1]);
	unlink(sa.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	log = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (l < 0 || log < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 4) < 0) {
		perror("send_recv: socket");
		return 1;
	}
	pid = fork();
	if (pid == 0)
		_exit(client(&sa, argv[1], n));
	c = accept(l, NULL, NULL);
	if (c < 0)
		return 1;
	for (i = 0; i < n; i++) {
		char first;

		/* a whole request's worth there before it is read, as a
		 * server that parses only complete messages waits */
		while (recv(c, req, sizeof(req), MSG_PEEK) < (ssize_t)sizeof(req))
			;
		if (recv(c, &first, 1, MSG_PEEK) != 1 || take(c, req, sizeof(req), 0) < 0 ||
		    first != req[0] || write(log, req, sizeof(req)) != (ssize_t)sizeof(req))
			return 1;
		memset(ans, 'A' + i % 26, sizeof(ans));
		if (write(c, ans, sizeof(ans)) != (ssize_t)sizeof(ans))
			return 1;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	close(c);
	close(l);
	unlink(sa.sun_path);
	return close(log) < 0;
}
