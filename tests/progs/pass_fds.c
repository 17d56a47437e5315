/*
 * pass_fds.c - descriptors passed over a Unix socket (SCM_RIGHTS), as a
 * privilege-separated server, a sandboxed worker or a build tool's
 * jobserver passes them: the parent opens two files, sends both in one
 * message over a socket pair to its forked child and closes its own
 * copies; the child receives them (with MSG_CMSG_CLOEXEC), writes KIB
 * KiB into each and a last line into the first, and exits.  The parent
 * then reads both files back.  A replay that does not know which files
 * the child's received descriptors are writes nothing, and the parent's
 * reads find the files empty.
 * With "named", the two talk through a Unix socket with a name in DIR
 * instead: the parent binds and listens before the fork, the child
 * connects, and the parent sends through the connection it accepts.
 *   pass_fds DIR KIB [named]
 * Exit 0 when each file holds what the child wrote.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(int sock, size_t kib)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } u;
	struct msghdr m = { 0 };
	char byte, buf[1024];
	struct iovec iov = { &byte, 1 };
	struct cmsghdr *h;
	int fds[2];
	size_t i;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof(u.b);
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return 2;
	h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
	    h->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return 3;
	memcpy(fds, CMSG_DATA(h), sizeof(fds));
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < kib; i++)
		if (write(fds[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    write(fds[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 4;
	if (write(fds[0], "end\n", 4) != 4)
		return 4;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

/* bytes in @path, read through */
static long long readall(const char *path)
{
	char buf[4096];
	long long n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		n += r;
	close(fd);
	return r < 0 ? -1 : n;
}

int main(int argc, char **argv)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } u;
	struct msghdr m = { 0 };
	struct iovec iov = { "f", 1 };
	char a[4096], b[4096];
	int sv[2], fds[2], st;
	size_t kib;
	pid_t pid;

	if (argc < 3 || (argc == 4 && strcmp(argv[3], "named")) || argc > 4) {
		fprintf(stderr, "usage: pass_fds DIR KIB [named]\n");
		return 2;
	}
	kib = strtoul(argv[2], NULL, 10);
	snprintf(a, sizeof(a), "%s/a.out", argv[1]);
	snprintf(b, sizeof(b), "%s/b.out", argv[1]);
	if (argc == 4) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", argv[1]);
		if ((sv[0] = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
		    bind(sv[0], (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(sv[0], 4) < 0)
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			int s = socket(AF_UNIX, SOCK_STREAM, 0);

			close(sv[0]);
			if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
				_exit(6);
			_exit(child(s, kib));
		}
		sv[1] = accept(sv[0], NULL, NULL);
		if (sv[1] < 0)
			return 1;
		close(sv[0]);
		sv[0] = sv[1];
	} else {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			close(sv[0]);
			_exit(child(sv[1], kib));
		}
		close(sv[1]);
	}
	fds[0] = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fds[1] = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fds[0] < 0 || fds[1] < 0)
		return 1;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof(u.b);
	CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), fds, sizeof(fds));
	if (sendmsg(sv[0], &m, 0) != 1)
		return 1;
	close(fds[0]);
	close(fds[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "pass_fds: the child failed (%d)\n", st);
		return 1;
	}
	if (readall(a) != (long long)kib * 1024 + 4 || readall(b) != (long long)kib * 1024) {
		fprintf(stderr, "pass_fds: the files do not hold what the child wrote\n");
		return 1;
	}
	return 0;
}
