/*
 * spawn_status - threads that each spawn children as Go's os/exec does:
 * a close-on-exec pipe made, a vfork, the child's exec of PROG (on
 * failure it writes its errno into the pipe), the parent's close of the
 * write end and its read of the pipe, which sees end of file once the
 * exec has closed the child's copy.  A child forked by one thread while
 * another spawns holds that one's pipe until its own exec.
 *
 * Usage: spawn_status THREADS ROUNDS PROG
 * Prints the reads that did not see end of file (0 expected).
 * Exit: 0, or 1 if some did not or a call failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int rounds;
static const char *prog;
static _Atomic int not_eof, failed;

static void *spawner(void *arg)
{
	int i, p[2], err;
	char buf[8];
	pid_t pid;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		if (pipe2(p, O_CLOEXEC) < 0) {
			failed++;
			break;
		}
		pid = vfork();
		if (pid == 0) {
			execl(prog, prog, (char *)NULL);
			err = errno;
			(void)!write(p[1], &err, sizeof(err));
			_exit(127);
		}
		close(p[1]);
		if (pid < 0) {
			close(p[0]);
			failed++;
			break;
		}
		if (read(p[0], buf, sizeof(buf)) != 0)
			not_eof++;
		close(p[0]);
		if (waitpid(pid, NULL, 0) != pid)
			failed++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int i, n;

	if (argc != 4 || (n = atoi(argv[1])) < 1 || n > 64 || (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: spawn_status THREADS ROUNDS PROG\n");
		return 1;
	}
	prog = argv[3];
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, spawner, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("%d\n", not_eof);
	return not_eof || failed;
}
