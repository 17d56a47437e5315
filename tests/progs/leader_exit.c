/*
 * leader_exit.c FILE [ROUNDS] - a process whose main thread ends first
 * (pthread_exit(): the leader's exit, the process going on) while its
 * other thread works on (tests/integration/analyze_leader_exit.sh): the
 * thread makes ROUNDS (8) rounds of 5,000 stats of FILE, forking a child
 * that exits at once after each round (process records in the chunks of
 * its calls, long after the leader's exit record), then exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *file;
static int rounds = 8;

static void *work(void *arg)
{
	struct stat st;
	int r, i;

	(void)arg;
	for (r = 0; r < rounds; r++) {
		pid_t pid;

		for (i = 0; i < 5000; i++)
			if (stat(file, &st) < 0) {
				perror("leader_exit: stat");
				exit(1);
			}
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
			perror("leader_exit: fork");
			exit(1);
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc < 2) {
		fprintf(stderr, "usage: leader_exit FILE [ROUNDS]\n");
		return 2;
	}
	file = argv[1];
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (pthread_create(&th, NULL, work, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
