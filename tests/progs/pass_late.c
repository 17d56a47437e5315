/*
 * pass_late.c - descriptors that come with the last bytes a recvmsg
 * takes: the parent writes ROUNDS small messages to its child over a
 * socket pair, each after a little work (stats of DIR), and then sends a
 * last one carrying a file it opened (SCM_RIGHTS), and closes its copy.
 * The child, once all of them are queued, takes them in one recvmsg,
 * descriptor included, and writes a line through it; the parent reads the
 * file back.  A replay whose recvmsg finds only the first messages there
 * and takes the rest later must take the descriptor with them.
 *   pass_late DIR ROUNDS
 * Exit 0 when the file holds the child's line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 100

static int child(int sock, int rounds)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	char buf[8192];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct timespec ts = { 0, 20000000 };
	struct cmsghdr *h;
	int avail = 0, fd;

	/* all of them queued: the recorded recvmsg takes them at once */
	while (avail < (rounds + 1) * MSG) {
		nanosleep(&ts, NULL);
		if (ioctl(sock, FIONREAD, &avail) < 0)
			return 2;
	}
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != (rounds + 1) * MSG)
		return 3;
	h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(sizeof(int)))
		return 4;
	memcpy(&fd, CMSG_DATA(h), sizeof(int));
	if (write(fd, "from the child\n", 15) != 15)
		return 5;
	return close(fd) ? 6 : 0;
}

int main(int argc, char **argv)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	char msg[MSG], path[4096], got[64] = "";
	struct iovec iov = { msg, MSG };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	int sv[2], rounds, i, j, fd, st;
	struct stat sb;
	pid_t pid;

	if (argc != 3 || (rounds = atoi(argv[2])) < 1 || (rounds + 1) * MSG > 8192) {
		fprintf(stderr, "usage: pass_late DIR ROUNDS (1-80)\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/passed", argv[1]);
	memset(msg, 'm', sizeof(msg));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], rounds));
	}
	close(sv[1]);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < 200; j++)
			stat(argv[1], &sb);
		if (write(sv[0], msg, MSG) != MSG)
			return 1;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return 1;
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	if (sendmsg(sv[0], &m, 0) != MSG)
		return 1;
	close(fd);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pass_late: the child failed (%d)\n", WEXITSTATUS(st));
		return 1;
	}
	if ((fd = open(path, O_RDONLY)) < 0 || read(fd, got, sizeof(got) - 1) != 15)
		return 1;
	close(fd);
	return strcmp(got, "from the child\n") != 0;
}
