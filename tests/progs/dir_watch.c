/*
 * dir_watch - a watcher lists a directory as another process makes and
 * removes names in it (a hot folder): woken by inotify (IN_CREATE,
 * IN_DELETE) at each change, it reads the directory to its end and
 * counts the entries, then tells the other process, which makes the
 * next name (O_EXCL; with `creat`, O_CREAT alone, as git-annex makes
 * its transfer files) or removes the one it made.
 *
 * The watcher runs the moment the name is there or gone, often before
 * the call has returned: where the recorder takes a call's end in the
 * program after it returned (the ptrace backend's in-process path), the
 * listing ends before the create that it shows, and ordered by their
 * ends the replay listed before the create (an entry missing).
 *
 * Usage: dir_watch DIR TIMES [creat]   (DIR/out is made anew)
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int changer(const char *dir, int ack, int times, int excl)
{
	char c, name[4200];
	int i;

	for (i = 0; i < times; i++) {
		if (read(ack, &c, 1) != 1)
			return 1;
		snprintf(name, sizeof(name), "%s/result-%03d.pdf", dir, i / 2);
		if (i % 2)
			CHECK("unlink", unlink(name), 0);
		else
			CHECK("create", close(open(name, O_WRONLY | O_CREAT | excl, 0644)), 0);
	}
	return fails != 0;
}

int main(int argc, char **argv)
{
	char dir[4096], buf[4096];
	struct pollfd pf;
	struct dirent *e;
	int ack[2], in, i, n, times, st;
	DIR *d;
	pid_t pid;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: dir_watch DIR TIMES [creat]\n");
		return 1;
	}
	times = atoi(argv[2]);
	snprintf(dir, sizeof(dir), "%s/out", argv[1]);
	if (mkdir(dir, 0755) < 0 || pipe(ack) < 0 || (in = inotify_init1(IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(in, dir, IN_CREATE | IN_DELETE) < 0)
		return 1;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(ack[1]);
		_exit(changer(dir, ack[0], times, argc == 4 && !strcmp(argv[3], "creat") ? 0 : O_EXCL));
	}
	close(ack[0]);
	pf.fd = in;
	pf.events = POLLIN;
	for (i = 0; i < times; i++) {
		CHECK("the go-ahead", write(ack[1], "", 1), 1);
		CHECK("the wake-up", poll(&pf, 1, 5000), 1);
		CHECK("the event", read(in, buf, sizeof(buf)) > 0, 1);
		if (!(d = opendir(dir)))
			return 1;
		for (n = 0; (e = readdir(d)); n++)
			;
		closedir(d);
		CHECK("the entries listed", n, i % 2 ? 2 : 3);
	}
	close(ack[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fails++;
	return fails != 0;
}
