/*
 * log_follow - a follower reads a log as another process appends to it,
 * as `tail -f` does: woken by inotify at each line, it reads the line
 * through its own open of the log, reads again to its end (0 bytes), and
 * tells the writer, which then opens the log, appends the next line and
 * closes it.
 *
 * The follower runs the moment the line is there, often before the
 * writer's write has returned: where the recorder takes a call's end in
 * the program after it returned (the ptrace backend's in-process path),
 * the follower's read ends before the write that gave it its line, and
 * ordered by their ends the replay read before the write (0 bytes).
 *
 * Usage: log_follow DIR LINES   (DIR/log is made anew)
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

static const char line[] = "a line of the log, one of many\n";

static int writer(const char *log, int ack, int lines)
{
	char c;
	int i, fd;

	for (i = 0; i < lines; i++) {
		if (read(ack, &c, 1) != 1)
			return 1;
		fd = open(log, O_WRONLY | O_APPEND);
		CHECK("the writer's open", fd >= 0, 1);
		CHECK("the append", write(fd, line, sizeof(line) - 1), (long long)sizeof(line) - 1);
		close(fd);
	}
	return fails != 0;
}

int main(int argc, char **argv)
{
	char log[4096], buf[8192];
	struct pollfd pf;
	int ack[2], in, fd, i, lines, st;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: log_follow DIR LINES\n");
		return 1;
	}
	lines = atoi(argv[2]);
	snprintf(log, sizeof(log), "%s/log", argv[1]);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || close(fd) < 0 || pipe(ack) < 0 || (in = inotify_init1(IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(in, log, IN_MODIFY) < 0)
		return 1;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(ack[1]);
		_exit(writer(log, ack[0], lines));
	}
	close(ack[0]);
	if ((fd = open(log, O_RDONLY)) < 0)
		return 1;
	pf.fd = in;
	pf.events = POLLIN;
	for (i = 0; i < lines; i++) {
		CHECK("the go-ahead", write(ack[1], "", 1), 1);
		CHECK("the wake-up", poll(&pf, 1, 5000), 1);
		CHECK("the event", read(in, buf, sizeof(buf)) > 0, 1);
		CHECK("the line read", read(fd, buf, sizeof(buf)), (long long)sizeof(line) - 1);
		CHECK("the end of the log", read(fd, buf, sizeof(buf)), 0);
	}
	close(ack[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fails++;
	return fails != 0;
}
