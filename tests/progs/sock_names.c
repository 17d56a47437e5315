/*
 * sock_names.c - a Unix socket's name, as a server and its client use
 * it: in DIR, bind a listening socket to the relative path sock/s.0,
 * chmod it 0777, stat it, connect a client to it by its absolute path,
 * connect to a name that is not there (ENOENT) and to OLD (a socket's
 * name nobody listens on: ECONNREFUSED), bind an abstract name (no
 * file) and connect to 127.0.0.1 port 1 (no file either: its result is
 * not looked at), then unlink the name and stat it again (ENOENT); then
 * mknod a socket's name sock/s.1, stat it and unlink it.
 *   sock_names DIR OLD      the run above
 *   sock_names mk PATH      leave a socket's name at PATH (bound, closed)
 * Exit 0 when every call gave what it should.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"

static socklen_t addr_of(struct sockaddr_un *sa, const char *path, int abstract)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path + (abstract ? 1 : 0), sizeof(sa->sun_path) - 1, "%s", path);
	if (abstract)
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path));
	return (socklen_t)sizeof(*sa);
}

/* connect a new socket to @path: @return : 0 or -errno */
static int connect_to(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = addr_of(&sa, path, 0);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), r;

	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&sa, len) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	char abs_path[4096], abst[64];
	struct sockaddr_un sa;
	struct stat st;
	socklen_t len;
	int srv, ab;

	if (argc != 3)
		return 2;
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	if (srv < 0)
		return 1;
	if (strcmp(argv[1], "mk") == 0) {
		len = addr_of(&sa, argv[2], 0);
		return bind(srv, (struct sockaddr *)&sa, len) < 0;
	}
	if (chdir(argv[1]) < 0 || mkdir("sock", 0755) < 0)
		return 1;
	len = addr_of(&sa, "sock/s.0", 0);
	CHECK("bind", bind(srv, (struct sockaddr *)&sa, len), 0);
	CHECK("listen", listen(srv, 4), 0);
	CHECK("chmod", chmod("sock/s.0", 0777), 0);
	CHECK("stat", stat("sock/s.0", &st), 0);
	CHECK("S_IFSOCK", S_ISSOCK(st.st_mode), 1);
	snprintf(abs_path, sizeof(abs_path), "%s/sock/s.0", argv[1]);
	CHECK("connect", connect_to(abs_path), 0);
	snprintf(abs_path, sizeof(abs_path), "%s/sock/missing", argv[1]);
	CHECK("connect missing", connect_to(abs_path), -ENOENT);
	CHECK("connect old", connect_to(argv[2]), -ECONNREFUSED);
	ab = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(abst, sizeof(abst), "iotape-sock-names-%d", (int)getpid());
	len = addr_of(&sa, abst, 1);
	CHECK("bind abstract", bind(ab, (struct sockaddr *)&sa, len), 0);
	close(ab);
	ab = socket(AF_INET, SOCK_STREAM, 0);
	if (ab >= 0) {
		struct sockaddr_in in;

		memset(&in, 0, sizeof(in));
		in.sin_family = AF_INET;
		in.sin_port = htons(1);
		in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		(void)!connect(ab, (struct sockaddr *)&in, sizeof(in));
		close(ab);
	}
	close(srv);
	CHECK("unlink", unlink("sock/s.0"), 0);
	CHECK("stat after unlink", stat("sock/s.0", &st) < 0 ? -errno : 0, -ENOENT);
	/* a socket's name made by mknod, as bind makes it */
	CHECK("mknod", mknod("sock/s.1", S_IFSOCK | 0600, 0), 0);
	CHECK("stat mknod", stat("sock/s.1", &st), 0);
	CHECK("S_IFSOCK mknod", S_ISSOCK(st.st_mode), 1);
	CHECK("unlink mknod", unlink("sock/s.1"), 0);
	return fails != 0;
}
