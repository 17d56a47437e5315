/*
 * tcp_loop.c - N TCP connections to a listener of its own on 127.0.0.1,
 * each accepted and closed, and N binds of a TCP socket to port 0 (an
 * address that names no file, which iotape does not record):
 *   tcp_loop N
 * Exit 0 when all N connected and bound.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, l = socket(AF_INET, SOCK_STREAM, 0), i;
	struct sockaddr_in a, b;
	socklen_t al = sizeof(a);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b = a;
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 64) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return 1;
	for (i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s, t = socket(AF_INET, SOCK_STREAM, 0);

		if (c < 0 || t < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) ||
		    bind(t, (struct sockaddr *)&b, sizeof(b)))
			return 1;
		s = accept(l, NULL, NULL);
		if (s < 0)
			return 1;
		close(s);
		close(c);
		close(t);
	}
	return 0;
}
