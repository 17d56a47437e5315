/*
 * accept_first.c - a server already waiting in accept when its client
 * connects, a thread per connection (Python's multiprocessing Manager):
 * a forked client connects to DIR/sock N times, sends a request, reads
 * the first of the two replies the server's thread writes, waits 5 ms and
 * closes; the thread closes after its second reply.
 *   accept_first DIR N
 * Exit 0 when every reply was written.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int bad;

static void *serve(void *arg)
{
	int c = (int)(long)arg;
	char b[16] = "reply-----------";

	if (read(c, b, sizeof(b)) != (ssize_t)sizeof(b) ||
	    write(c, b, sizeof(b)) != (ssize_t)sizeof(b) ||
	    write(c, b, sizeof(b)) != (ssize_t)sizeof(b))	/* never read */
		bad++;
	close(c);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec ts = { 0, 5000000 };
	int n, i, l, st;
	pid_t pid;

	if (argc != 3 || (n = atoi(argv[2])) < 1 ||
	    snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", argv[1]) >= (int)sizeof(a.sun_path)) {
		fprintf(stderr, "usage: accept_first DIR N\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 16) || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		for (i = 0; i < n; i++) {
			char b[16] = "request---------";
			int s = socket(AF_UNIX, SOCK_STREAM, 0);

			if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) ||
			    write(s, b, sizeof(b)) != (ssize_t)sizeof(b) ||
			    read(s, b, sizeof(b)) != (ssize_t)sizeof(b))
				_exit(1);
			nanosleep(&ts, NULL);
			close(s);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		pthread_t t;
		int c = accept(l, NULL, NULL);

		if (c < 0 || pthread_create(&t, NULL, serve, (void *)(long)c))
			return 1;
		pthread_join(t, NULL);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	unlink(a.sun_path);
	return bad != 0;
}
