/*
 * trunc_watch - a reader reads a small status file as another process
 * rewrites it (open with O_TRUNC, write the line, close): woken by
 * inotify when the open empties the file, it reads it (0 bytes) and
 * tells the writer, which writes the line; woken again, it reads the
 * line, and tells the writer to rewrite it.
 *
 * The reader runs the moment the file is empty, often before the
 * writer's open has returned: where the recorder takes a call's end in
 * the program after it returned (the ptrace backend's in-process path),
 * the read ends before the open that emptied the file, and ordered by
 * their ends the replay read before the open (the line, not 0 bytes).
 *
 * Usage: trunc_watch DIR TIMES [creat]   (DIR/status is made anew; creat:
 * the writer opens with O_CREAT too, as a shell's > does)
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static const char line[] = "1 transferred 123456 bytes of 123456\n";

static int writer(const char *path, int ack, int times, int flags)
{
	char c;
	int i, fd;

	for (i = 0; i < times; i++) {
		if (read(ack, &c, 1) != 1)
			return 1;
		fd = open(path, O_WRONLY | O_TRUNC | flags, 0644);
		CHECK("the writer's open", fd >= 0, 1);
		if (read(ack, &c, 1) != 1)
			return 1;
		CHECK("the write", write(fd, line, sizeof(line) - 1), (long long)sizeof(line) - 1);
		close(fd);
	}
	return fails != 0;
}

/* Wait for the writer's change, then read the file through an open of
 * its own: @want bytes */
static void read_it(const char *path, int in, long long want)
{
	char buf[4096];
	struct pollfd pf = { .fd = in, .events = POLLIN };
	int fd;

	CHECK("the wake-up", poll(&pf, 1, 5000), 1);
	CHECK("the event", read(in, buf, sizeof(buf)) > 0, 1);
	fd = open(path, O_RDONLY);
	CHECK("the reader's open", fd >= 0, 1);
	CHECK("the bytes read", read(fd, buf, sizeof(buf)), want);
	close(fd);
}

int main(int argc, char **argv)
{
	char path[4096];
	int ack[2], in, i, times, fd, st;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: trunc_watch DIR TIMES [creat]\n");
		return 1;
	}
	times = atoi(argv[2]);
	snprintf(path, sizeof(path), "%s/status", argv[1]);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1 || close(fd) < 0 ||
	    pipe(ack) < 0 || (in = inotify_init1(IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(in, path, IN_MODIFY) < 0)
		return 1;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(ack[1]);
		_exit(writer(path, ack[0], times, argc > 3 && !strcmp(argv[3], "creat") ? O_CREAT : 0));
	}
	close(ack[0]);
	for (i = 0; i < times; i++) {
		CHECK("the go-ahead", write(ack[1], "", 1), 1);
		read_it(path, in, 0);
		CHECK("the go-ahead", write(ack[1], "", 1), 1);
		read_it(path, in, (long long)sizeof(line) - 1);
	}
	close(ack[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fails++;
	return fails != 0;
}
