/*
 * kill_send.c - sends to a child that was just killed: the child maps
 * MIB MiB of a file it made in DIR (its end then takes a while to tear
 * down), says it is ready over a socket pair and waits; the parent kills
 * it (SIGTERM) and sends one byte after another to it, never read, each
 * without waiting (EAGAIN when the socket is full), until the kernel
 * closed the child's end (EPIPE).  The sends between the kill and that
 * close went through; the replay, whose child ends at once, must keep
 * its end open for them, and fail the last one as it failed.
 *   kill_send DIR MIB
 * Exit 0 when some sends went through after the kill and one met EPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(int sock, const char *path, size_t len)
{
	volatile char *m;
	char c = 'r';
	size_t i;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
		return 1;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	for (i = 0; i < len; i += 4096)
		m[i] = 1;
	if (write(sock, &c, 1) != 1)
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char path[4096], c;
	long ok = 0;
	int sv[2], st;
	pid_t pid;

	if (argc != 3 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: kill_send DIR MIB\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/mapped", argv[1]);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], path, (size_t)atoi(argv[2]) << 20));
	}
	close(sv[1]);
	if (read(sv[0], &c, 1) != 1 || kill(pid, SIGTERM) < 0)
		return 1;
	for (;;) {
		if (send(sv[0], "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
			ok++;
		else if (errno != EAGAIN)
			break;
	}
	if (errno != EPIPE || waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st))
		return 1;
	printf("%ld sends after the kill, then EPIPE\n", ok);
	return ok == 0;
}
