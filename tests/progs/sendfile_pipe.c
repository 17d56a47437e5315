/*
 * sendfile_pipe.c - a file sent into a pipe whose reader starts late (as
 * busybox tar feeds its gzip): the writer's sendfile()s fill the pipe and
 * block until the reader, 100 ms later, drains it 4 KiB at a time.  Under
 * a replay the pipe never blocks: a sendfile into it full must wait for
 * the reader as the program's did, not fail with EAGAIN
 * (tests/integration/replay_sendfile_pipe.sh).  Usage: sendfile_pipe FILE
 * (made, 1 MiB).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIZE (1 << 20)

int main(int argc, char **argv)
{
	static char buf[65536];
	struct timespec late = { 0, 100 * 1000 * 1000 };
	long left = SIZE, got = 0;
	int p[2], fd, i;
	ssize_t n;
	pid_t k;

	if (argc != 2) {
		fprintf(stderr, "usage: sendfile_pipe FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pipe(p) < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < SIZE / (int)sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			return 1;
		}
	lseek(fd, 0, SEEK_SET);
	k = fork();
	if (k == 0) {
		close(p[1]);
		nanosleep(&late, NULL);
		while ((n = read(p[0], buf, 4096)) > 0)
			got += n;
		_exit(got == SIZE ? 0 : 3);
	}
	close(p[0]);
	while (left > 0) {
		n = sendfile(p[1], fd, NULL, (size_t)left);
		if (n <= 0) {
			perror("sendfile");
			return 1;
		}
		left -= n;
	}
	close(p[1]);
	if (waitpid(k, &i, 0) != k || !WIFEXITED(i) || WEXITSTATUS(i) != 0) {
		fprintf(stderr, "sendfile_pipe: the reader did not read it all\n");
		return 1;
	}
	return 0;
}
