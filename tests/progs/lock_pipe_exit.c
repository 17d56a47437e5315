/*
 * lock_pipe_exit.c - a writer that holds a lock and the last write end of
 * a pipe, and ends: its reader sees end of file before the writer is
 * reaped, as in `flock -s FILE cat x | wc -l`:
 *   lock_pipe_exit FILE [ROUNDS]
 * Each round makes a pipe and forks a reader, which reads it to its end,
 * and a writer, which opens FILE, takes a shared flock() on it, writes a
 * line into the pipe a moment later (the reader waits in its read
 * meanwhile) and ends without an unlock or a close: its exit lets the
 * lock go and closes the pipe.  The parent reaps the reader first, then
 * the writer.  Exits 0 unless a call failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 20, i, p[2], st, bad = 0;
	pid_t rd, wr;
	char buf[256];

	if (argc < 2) {
		fprintf(stderr, "usage: lock_pipe_exit FILE [ROUNDS]\n");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		if (pipe(p) < 0)
			return 1;
		rd = fork();
		if (rd == 0) {
			ssize_t n;

			close(p[1]);
			while ((n = read(p[0], buf, sizeof(buf))) > 0)
				;
			_exit(n < 0);
		}
		wr = fork();
		if (wr == 0) {
			int fd = open(argv[1], O_RDONLY | O_CREAT, 0644);

			close(p[0]);
			if (fd < 0 || flock(fd, LOCK_SH) < 0)
				_exit(1);
			usleep(3000);
			_exit(write(p[1], "line\n", 5) != 5);
		}
		close(p[0]);
		close(p[1]);
		if (rd < 0 || wr < 0 || waitpid(rd, &st, 0) != rd || st || waitpid(wr, &st, 0) != wr || st)
			bad++;
	}
	return bad != 0;
}
