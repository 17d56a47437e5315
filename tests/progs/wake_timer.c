/*
 * wake_timer.c - waits that time out while another followed process runs
 * on the same CPU: wake_timer N pins itself and a child to CPU 0; the
 * child spins (getppid() in a loop) until the parent is done, the parent
 * makes N poll()s of no descriptor with a 1 ms timeout.  Each poll is
 * woken by its timer's interrupt, which finds the child running: the
 * trace must not name the child as the poll's waker.  Exits 0 if all N
 * polls timed out.
 *   wake_timer N sem: the same with a semaphore nobody posts, 1 ms
 * sem_timedwait()s (a futex: a sleep between recorded calls), each
 * followed by a close(-1), whose gap's waker the trace must not name.
 */
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i, bad = 0, st;
	int sem = argc > 2 && argv[2][0] == 's';
	struct timespec t;
	cpu_set_t one;
	sem_t s;
	pid_t pid;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		pid_t pa = getppid();

		while (getppid() == pa)
			;
		_exit(0);
	}
	usleep(10000);	/* the child is spinning */
	if (sem && sem_init(&s, 0, 0) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (!sem) {
			if (poll(NULL, 0, 1) != 0)
				bad++;
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 1000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		if (sem_timedwait(&s, &t) == 0 || errno != ETIMEDOUT)
			bad++;
		close(-1);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return bad != 0;
}
