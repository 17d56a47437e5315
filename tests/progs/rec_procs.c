/*
 * rec_procs.c - process syscalls for record_progs.sh: fork + wait4, vfork,
 * fork + execve, two threads.  Each process or thread touches one file
 * named after itself, so the trace can be checked per process.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		syscall(SYS_write, fd, name, strlen(name));
		close(fd);
	}
}

static void *thread_main(void *arg)
{
	touch(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	int status;
	pid_t pid;

	if (argc > 1) {		/* the exec'd image */
		touch(argv[1]);
		return 0;
	}
	touch("parent");
	pid = fork();
	if (pid == 0) {
		touch("forked");
		_exit(3);
	}
	waitpid(pid, &status, 0);
	pid = vfork();
	if (pid == 0)
		_exit(5);
	waitpid(pid, &status, 0);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "execed", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	pthread_create(&th[0], NULL, thread_main, "thread1");
	pthread_join(th[0], NULL);
	pthread_create(&th[1], NULL, thread_main, "thread2");
	pthread_join(th[1], NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
