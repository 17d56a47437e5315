/*
 * rec_thread_exec.c - a non-leader thread calls execve while its siblings
 * keep writing one byte per call to "log" (O_APPEND).  The exec'd image
 * prints the log's size: the number of writes that completed, which the
 * trace's count of finished write(...) = 1 must match (up to one per
 * sibling: a write the exec's SIGKILL interrupts after it completed is
 * recorded as unfinished).
 *   rec_thread_exec [NSIBLINGS]     rec_thread_exec --after
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd;
static char *self;

static void *sibling(void *arg)
{
	for (;;)
		syscall(SYS_write, log_fd, "x", 1);
	return NULL;
}

static void *execer(void *arg)
{
	char *av[] = { self, (char *)"--after", NULL };

	usleep(50000);
	syscall(SYS_execve, "/proc/self/exe", av, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	struct stat st;
	int i, n = argc > 1 ? atoi(argv[1]) : 3;

	if (argc > 1 && strcmp(argv[1], "--after") == 0) {
		if (stat("log", &st) < 0)
			return 2;
		printf("%lld\n", (long long)st.st_size);
		return 0;
	}
	self = argv[0];
	log_fd = open("log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		pthread_create(&th, NULL, sibling, NULL);
	pthread_create(&th, NULL, execer, NULL);
	pause();
	return 1;
}
