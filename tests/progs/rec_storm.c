/*
 * rec_storm.c - a fork storm: N processes, flat (each forked by the first
 * process, up to 16 at once) or nested (each forks the next), each makes
 * exactly one recorded call on "storm-probe" (openat, ENOENT) and exits.
 * Prints N; the trace must hold N such openat calls and N+1 exits.
 *   rec_storm N [nested]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void probe(void)
{
	syscall(SYS_openat, AT_FDCWD, "storm-probe", O_RDONLY);
}

static int nested(int left)
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
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, i, live = 0, bad = 0, st;

	if (argc > 2 && strcmp(argv[2], "nested") == 0) {
		bad = nested(n);
	} else {
		for (i = 0; i < n; i++) {
			pid_t pid;

			if (live == 16) {
				if (wait(&st) > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
					bad++;
				live--;
			}
			pid = fork();
			if (pid < 0)
				return 1;
			if (pid == 0) {
				probe();
				_exit(0);
			}
			live++;
		}
		while (wait(&st) > 0)
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
				bad++;
	}
	printf("%d\n", n);
	return bad ? 1 : 0;
}
