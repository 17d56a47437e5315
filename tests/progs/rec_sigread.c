/*
 * rec_sigread.c - a signal interrupts a blocking read (no SA_RESTART):
 * the trace must show read() = -1 EINTR and the program must still get
 * its handler run (exit 0) - the recorder re-injects the signal.
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_alarm(int sig)
{
	got = sig;
}

int main(void)
{
	struct itimerval it;
	struct sigaction sa;
	int p[2];
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(p) < 0)
		return 2;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 100000;
	setitimer(ITIMER_REAL, &it, NULL);
	if (read(p[0], &c, 1) >= 0)
		return 3;
	return got == SIGALRM ? 0 : 4;
}
