/*
 * pass_early.c - a pipe's read end passed to a server already waiting in
 * recvmsg, as Python's forkserver gets a pool worker's task queue: the
 * parent writes a message into a pipe (a 4-byte length and 100 bytes, one
 * write), forks the server, which blocks in recvmsg on a socket pair, and
 * sends it the pipe's read end (SCM_RIGHTS) once it waits.  The server
 * forks a worker and waits for it.  The parent, after a little work
 * (stats of DIR), reads its own message back (4 bytes, then 100), and
 * writes a second one (4 and 20) for the worker, which waits until the
 * pipe holds exactly that (FIONREAD) and reads it (4, then 20).
 *   pass_early DIR
 * Exit 0 when each reader got its own message.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A message of @len bytes after its length into @fd, in one write. */
static int put(int fd, uint32_t len)
{
	char b[4 + 256];

	memcpy(b, &len, 4);
	memset(b + 4, 'm', len);
	return write(fd, b, 4 + len) == (ssize_t)(4 + len) ? 0 : -1;
}

/* A message from @fd, its length and then its bytes: @want of them. */
static int get(int fd, uint32_t want)
{
	char b[256];
	uint32_t len;

	if (read(fd, &len, 4) != 4 || len != want)
		return -1;
	return read(fd, b, len) == (ssize_t)len ? 0 : -1;
}

static int worker(int r)
{
	struct timespec ts = { 0, 5000000 };
	int avail = 0;

	/* the parent's second message, and nothing else, in the pipe */
	while (avail != 4 + 20) {
		nanosleep(&ts, NULL);
		if (ioctl(r, FIONREAD, &avail) < 0)
			return 2;
	}
	return get(r, 20) ? 3 : 0;
}

static int server(int sock)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	char c;
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *h;
	int r, st;
	pid_t pid;

	if (recvmsg(sock, &m, 0) != 1)
		return 2;
	h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(sizeof(int)))
		return 3;
	memcpy(&r, CMSG_DATA(h), sizeof(int));
	if ((pid = fork()) < 0)
		return 4;
	if (pid == 0)
		_exit(worker(r));
	close(r);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 5;
	return WEXITSTATUS(st) ? 10 + WEXITSTATUS(st) : 0;
}

int main(int argc, char **argv)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	char c = 'f';
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct timespec ts = { 0, 50000000 };
	int p[2], sv[2], j, st;
	struct stat sb;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: pass_early DIR\n");
		return 2;
	}
	if (pipe(p) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || put(p[1], 100) < 0 ||
	    (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		close(p[0]);
		close(p[1]);
		_exit(server(sv[1]));
	}
	close(sv[1]);
	/* the server waits in its recvmsg by now */
	nanosleep(&ts, NULL);
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &p[0], sizeof(int));
	if (sendmsg(sv[0], &m, 0) != 1)
		return 1;
	for (j = 0; j < 20000; j++)
		stat(argv[1], &sb);
	if (get(p[0], 100) < 0) {
		fprintf(stderr, "pass_early: the parent's read did not get its message\n");
		return 1;
	}
	if (put(p[1], 20) < 0)
		return 1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pass_early: the server failed (%d)\n", WEXITSTATUS(st));
		return 1;
	}
	return 0;
}
