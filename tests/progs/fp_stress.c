/*
 * fp_stress.c - the awkward cases for the recorder's fast path, each
 * counted: the run makes exactly EXPECT fchmod() calls (nothing in libc or
 * the loader makes one), from threads, a forked child, a vfork child, a
 * signal handler that interrupts wrappers, a re-exec'd copy of itself
 * after closing every descriptor, and after unmapping the fast path's
 * shared memory.  A child blocked in read() is killed mid-call.  Recorded,
 * the trace must hold EXPECT fchmod calls: a record lost or doubled in any
 * of those paths shows up as a difference.
 *   fp_stress FILE        (prints "EXPECT KILLED_PID" on stdout)
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define N_LOOP 3000
#define N_THREADS 4

static int fd;
static pid_t killed;
static volatile sig_atomic_t in_handler;

static void on_alarm(int sig)
{
	/* a wrapper call inside a wrapper call: the ring must take both */
	fchmod(fd, 0644);
	/* atomic: the next SIGALRM may run this handler on another thread
	 * while this one is here; a plain ++ preempted between its load and
	 * its store loses every count made meanwhile, and the trace then
	 * holds more calls than the program says it made */
	__atomic_add_fetch(&in_handler, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	struct stat st;
	int i;

	for (i = 0; i < N_LOOP; i++) {
		fchmod(fd, 0644);
		fstat(fd, &st);
	}
	return arg;
}

/* unmap the recorder's shared memory under the library: it must notice
 * (the recorder switches it off) and go on, recorded */
static void unmap_rings(void)
{
	char line[512];
	FILE *m = fopen("/proc/self/maps", "r");

	while (m && fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;

		if (strstr(line, "memfd:iotape-fast") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			munmap((void *)lo, hi - lo);
	}
	if (m)
		fclose(m);
}

/* the text of /proc/PID/NAME (a PID of ours) in @buf, "" if unread */
static void proc_text(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n = -1;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f >= 0) {
		n = read(f, buf, size - 1);
		close(f);
	}
	buf[n > 0 ? n : 0] = 0;
}

/*
 * Whether @pid is asleep inside its read(): /proc/PID/syscall gives the
 * number of the call a task blocks in ("running", or -1, out of one), and
 * the state after the comm in /proc/PID/stat is S while it sleeps in it
 * (t while a tracer holds it at a stop before the call); where the first
 * cannot be read, the state alone.  A child killed before it got there
 * made no read, and its trace rightly holds none: a fixed pause before
 * the kill assumed the child would be in its read by then, which a
 * loaded machine need not give.
 */
static int in_read(pid_t pid)
{
	char nr[128], st[512], *end;

	proc_text(pid, "syscall", nr, sizeof(nr));
	if (nr[0] && (strtol(nr, &end, 10) != SYS_read || end == nr || *end != ' '))
		return 0;
	proc_text(pid, "stat", st, sizeof(st));
	end = strrchr(st, ')');
	return end && end[1] == ' ' && end[2] == 'S';
}

static int run(const char *file, int depth)
{
	pthread_t th[N_THREADS];
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	long calls = 0;
	pid_t pid;
	int i, status;

	fd = open(file, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < N_THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	calls += (long)N_THREADS * N_LOOP;
	pid = fork();
	if (pid == 0) {
		worker(NULL);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	calls += N_LOOP;
	/* a forked child (no exec) that unmaps the rings */
	pid = fork();
	if (pid == 0) {
		unmap_rings();
		for (i = 0; i < 50; i++)
			fchmod(fd, 0644);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	calls += 50;
	pid = vfork();
	if (pid == 0) {
		/* shares our TLS and ring slot: the tracer pauses the ring */
		fchmod(fd, 0600);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	calls += 1;
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	calls += __atomic_load_n(&in_handler, __ATOMIC_RELAXED);
	if (depth == 0) {
		unmap_rings();
		for (i = 0; i < 100; i++)
			fchmod(fd, 0644);
		calls += 100;
	}
	close(fd);
	if (depth == 0) {
		int pipefd[2], hang[2];
		long sub = 0;
		char b;
		FILE *f;

		/* killed in the middle of a call: the call is kept, unfinished */
		if (pipe(hang) < 0)
			return -1;
		killed = fork();
		if (killed == 0) {
			close(hang[1]);
			if (read(hang[0], &b, 1) < 0)
				_exit(1);
			_exit(0);
		}
		/* up to 30 s for it to block there, then killed wherever it is
		 * (the test then says its read is missing) */
		for (i = 0; i < 30000 && !in_read(killed); i++)
			usleep(1000);
		kill(killed, SIGKILL);
		waitpid(killed, &status, 0);
		close(hang[0]);
		close(hang[1]);

		if (pipe(pipefd) < 0)
			return -1;
		pid = fork();
		if (pid == 0) {
			dup2(pipefd[1], 1);
			/* a program that closes everything must not lose the ring */
			syscall(SYS_close_range, 3, ~0u, 0);
			execl("/proc/self/exe", "fp_stress", file, "1", (char *)NULL);
			_exit(127);
		}
		close(pipefd[1]);
		f = fdopen(pipefd[0], "r");
		if (!f || fscanf(f, "%ld", &sub) != 1)
			return -1;
		fclose(f);
		waitpid(pid, &status, 0);
		calls += sub;
	}
	if (depth == 0)
		printf("%ld %d\n", calls, (int)killed);
	else
		printf("%ld\n", calls);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	return run(argv[1], argc > 2) < 0 ? 1 : 0;
}
