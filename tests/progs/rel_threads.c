/*
 * rel_threads.c - many threads doing file I/O at once, and a thread that
 * calls execve while its siblings run.
 *
 *   rel_threads DIR NTHREADS NFILES
 *     NTHREADS threads start together (a barrier) and each makes NFILES
 *     rounds of openat(DIR/tI-K, O_CREAT) + write(100 bytes) + close.
 *     Prints one line per thread, "thread TID openat N write N close N",
 *     after all have joined: what the trace must hold, thread by thread.
 *   rel_threads DIR NTHREADS --exec
 *     NTHREADS-1 siblings append one byte per write(2) to DIR/sI (opened
 *     once, O_APPEND) until the last thread, not the leader, execs
 *     "rel_threads DIR NTHREADS --after": that image prints the total size
 *     of DIR/s* - the writes that completed - and exits 0.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct worker {
	pthread_t th;
	int idx;
	pid_t tid;
	long opens, writes, closes;
};

static const char *dir;
static long nfiles;
static pthread_barrier_t start;
static char **self_argv;

static void *io_thread(void *arg)
{
	struct worker *w = arg;
	char path[4096], buf[100];
	long k;
	int fd;

	memset(buf, 't', sizeof(buf));
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	for (k = 0; k < nfiles; k++) {
		snprintf(path, sizeof(path), "%s/t%d-%ld", dir, w->idx, k);
		fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			continue;
		w->opens++;
		if (write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
			w->writes++;
		if (close(fd) == 0)
			w->closes++;
	}
	return NULL;
}

static void *appender(void *arg)
{
	struct worker *w = arg;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/s%d", dir, w->idx);
	fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
	pthread_barrier_wait(&start);
	if (fd < 0)
		return NULL;
	for (;;)
		syscall(SYS_write, fd, "x", 1);
	return NULL;
}

static void *execer(void *arg)
{
	char *argv[5];

	pthread_barrier_wait(&start);
	usleep(20000);	/* let the siblings get going */
	argv[0] = self_argv[0];
	argv[1] = self_argv[1];
	argv[2] = self_argv[2];
	argv[3] = (char *)"--after";
	argv[4] = NULL;
	execv("/proc/self/exe", argv);
	perror("execv");
	exit(1);
}

static int after(void)
{
	struct dirent *de;
	struct stat st;
	char path[4096];
	long long total = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 1;
	while ((de = readdir(d))) {
		if (de->d_name[0] != 's')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0)
			total += st.st_size;
	}
	closedir(d);
	printf("%lld\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct worker *w;
	int n, i, exec_mode;

	if (argc < 4) {
		fprintf(stderr, "usage: rel_threads DIR NTHREADS NFILES|--exec|--after\n");
		return 2;
	}
	dir = argv[1];
	n = atoi(argv[2]);
	self_argv = argv;
	if (!strcmp(argv[3], "--after"))
		return after();
	exec_mode = !strcmp(argv[3], "--exec");
	nfiles = exec_mode ? 0 : atol(argv[3]);
	if (n < 1 || (exec_mode && n < 2))
		return 2;
	w = calloc((size_t)n, sizeof(*w));
	if (!w)
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		void *(*fn)(void *) = exec_mode ? (i == n - 1 ? execer : appender) : io_thread;

		w[i].idx = i;
		if (pthread_create(&w[i].th, NULL, fn, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	for (i = 0; i < n; i++)
		printf("thread %d openat %ld write %ld close %ld\n", (int)w[i].tid, w[i].opens,
		       w[i].writes, w[i].closes);
	return 0;
}
