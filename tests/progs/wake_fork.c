/*
 * wake_fork.c - a process woken through memory it shares with its parent:
 * what fio does to start a job process (forked, no exec) after a
 * 100 ms sleep.
 *
 * usage: wake_fork DIR
 *   A semaphore in an anonymous shared mapping; the child (forked, no
 *   exec) waits on it (a futex: no recorded call), then calls
 *   access("DIR/c.first") and exits.  The parent calls
 *   access("DIR/p.before"), sleeps 100 ms, calls access("DIR/p.after"),
 *   posts the semaphore and waits for the child.  The child's call comes
 *   just after p.after returned.  Exit 0; 1 with what failed.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t100 = { 0, 100000000 };
	char name[4096];
	sem_t *go;
	pid_t pid;
	int st;

	if (argc != 2)
		return fprintf(stderr, "usage: wake_fork DIR\n"), 1;
	go = mmap(NULL, sizeof(*go), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (go == MAP_FAILED)
		return perror("wake_fork: mmap"), 1;
	if (sem_init(go, 1, 0) < 0)
		return perror("wake_fork: sem_init"), 1;
	pid = fork();
	if (pid < 0)
		return perror("wake_fork: fork"), 1;
	if (pid == 0) {
		while (sem_wait(go) < 0 && errno == EINTR)
			;
		snprintf(name, sizeof(name), "%s/c.first", argv[1]);
		access(name, F_OK);
		_exit(0);
	}
	snprintf(name, sizeof(name), "%s/p.before", argv[1]);
	access(name, F_OK);
	nanosleep(&t100, NULL);
	snprintf(name, sizeof(name), "%s/p.after", argv[1]);
	access(name, F_OK);
	sem_post(go);
	if (waitpid(pid, &st, 0) < 0)
		return perror("wake_fork: waitpid"), 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
