/*
 * dotdot_rename.c - chdir("..") and back, N times, while a forked child
 * renames a file to and fro in DIR: the chdirs are recorded as
 * "DIR/d/s/..", which the replay looks up with RESOLVE_IN_ROOT, and the
 * kernel fails a ".." step with EAGAIN when a rename runs during it.
 *   dotdot_rename DIR N
 * Exit 0 when no chdir failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n, i, bad = 0;
	pid_t pid;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || chdir(argv[1])) {
		fprintf(stderr, "usage: dotdot_rename DIR N\n");
		return 2;
	}
	if (mkdir("d", 0755) || mkdir("d/s", 0755) || mkdir("r", 0755))
		return 1;
	close(creat("r/a", 0644));
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		for (i = 0; i < n; i++)
			rename(i & 1 ? "r/b" : "r/a", i & 1 ? "r/a" : "r/b");
		_exit(0);
	}
	if (chdir("d/s"))
		return 1;
	for (i = 0; i < n; i++) {
		bad += chdir("..") != 0;
		bad += chdir("s") != 0;
	}
	waitpid(pid, NULL, 0);
	return bad != 0;
}
