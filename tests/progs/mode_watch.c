/*
 * mode_watch - a watcher checks a file's mode as another process changes
 * it: woken by inotify (IN_ATTRIB) at each chmod, it asks access(X_OK),
 * then tells the other process, which makes the file executable or not
 * again (0755, 0644, ...).
 *
 * The watcher runs the moment the mode is changed, often before the
 * chmod has returned: where the recorder takes a call's end in the
 * program after it returned (the ptrace backend's in-process path), the
 * access ends before the chmod that gave it its answer, and ordered by
 * their ends the replay asked before the chmod (the other answer).
 *
 * Usage: mode_watch DIR TIMES   (DIR/job.sh is made anew)
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int changer(const char *path, int ack, int times)
{
	char c;
	int i;

	for (i = 0; i < times; i++) {
		if (read(ack, &c, 1) != 1)
			return 1;
		CHECK("chmod", chmod(path, i % 2 ? 0644 : 0755), 0);
	}
	return fails != 0;
}

int main(int argc, char **argv)
{
	char path[4096], buf[4096];
	struct pollfd pf;
	int ack[2], in, fd, i, times, st;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: mode_watch DIR TIMES\n");
		return 1;
	}
	times = atoi(argv[2]);
	snprintf(path, sizeof(path), "%s/job.sh", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || close(fd) < 0 || pipe(ack) < 0 || (in = inotify_init1(IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(in, path, IN_ATTRIB) < 0)
		return 1;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(ack[1]);
		_exit(changer(path, ack[0], times));
	}
	close(ack[0]);
	pf.fd = in;
	pf.events = POLLIN;
	for (i = 0; i < times; i++) {
		CHECK("the go-ahead", write(ack[1], "", 1), 1);
		CHECK("the wake-up", poll(&pf, 1, 5000), 1);
		CHECK("the event", read(in, buf, sizeof(buf)) > 0, 1);
		CHECK("access(X_OK)", access(path, X_OK), i % 2 ? -1 : 0);
	}
	close(ack[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fails++;
	return fails != 0;
}
