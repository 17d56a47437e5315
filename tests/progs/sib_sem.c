/*
 * sib_sem.c - two processes forked without an exec, siblings, that take
 * turns through semaphores in the memory they share, as a server's
 * workers wait for each other's locks:
 *   sib_sem DIR N
 * N rounds: the first writes a line to DIR/a, computes 2 ms and posts the
 * second, then waits for it; the second waits, writes a line to DIR/b
 * and posts the first.  Neither file is the other's: what orders them is
 * the semaphores (futexes), whose calls the trace does not hold.  Exits 0
 * when both did N rounds.
 */
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	sem_t ab, ba;
};

static int line(int fd, const char *who, int i)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%s %d\n", who, i);

	return write(fd, b, (size_t)n) == n ? 0 : -1;
}

/* 2 ms of computing, no call (the clock is the vDSO's) */
static void work(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000L);
}

static pid_t side(struct shared *s, const char *dir, int first, int n)
{
	char path[512];
	pid_t pid = fork();
	int f, i;

	if (pid != 0)
		return pid;
	snprintf(path, sizeof(path), "%s/%s", dir, first ? "a" : "b");
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (f < 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		if (first) {
			if (line(f, "a", i))
				_exit(1);
			work();
			if (sem_post(&s->ab) || sem_wait(&s->ba))
				_exit(1);
		} else {
			if (sem_wait(&s->ab) || line(f, "b", i) || sem_post(&s->ba))
				_exit(1);
		}
	}
	_exit(close(f) != 0);
}

int main(int argc, char **argv)
{
	struct shared *s;
	pid_t a, b;
	int sa, sb, n;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED || sem_init(&s->ab, 1, 0) || sem_init(&s->ba, 1, 0))
		return 1;
	b = side(s, argv[1], 0, n);
	a = side(s, argv[1], 1, n);
	if (a < 0 || b < 0 || waitpid(a, &sa, 0) != a || waitpid(b, &sb, 0) != b)
		return 1;
	return !WIFEXITED(sa) || WEXITSTATUS(sa) || !WIFEXITED(sb) || WEXITSTATUS(sb);
}
