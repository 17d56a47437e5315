/*
 * rel_forks.c - a fork storm: N short processes, nested (each forks the
 * next: a chain N deep) or flat (the first forks them all, up to WIDTH at
 * once).  Each makes one recorded call, openat("DIR/probe-PID") (ENOENT),
 * and prints "pid PID" with one write(2) before it exits: the trace must
 * hold one such openat and one exit per logged pid.
 *   rel_forks DIR N nested|flat [WIDTH]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;

static void probe(void)
{
	char path[4096], line[64];
	int len;

	snprintf(path, sizeof(path), "%s/probe-%d", dir, (int)getpid());
	openat(AT_FDCWD, path, O_RDONLY);
	len = snprintf(line, sizeof(line), "pid %d\n", (int)getpid());
	(void)!write(1, line, (size_t)len);
}

static int nested(long left)
{
	int st = 0;
	pid_t pid;

	if (left == 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		probe();
		_exit(nested(left - 1));
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static int flat(long n, long width)
{
	long started = 0, running = 0;
	int st, bad = 0;
	pid_t pid;

	while (started < n || running > 0) {
		if (started < n && running < width) {
			pid = fork();
			if (pid < 0)
				return 1;
			if (pid == 0) {
				probe();
				_exit(0);
			}
			started++;
			running++;
			continue;
		}
		if (wait(&st) < 0)
			return 1;
		running--;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	long n, width;

	if (argc < 4) {
		fprintf(stderr, "usage: rel_forks DIR N nested|flat [WIDTH]\n");
		return 2;
	}
	dir = argv[1];
	n = atol(argv[2]);
	width = argc > 4 ? atol(argv[4]) : 16;
	if (width < 1)
		width = 1;
	return strcmp(argv[3], "flat") ? nested(n) : flat(n, width);
}
