/*
 * close_handled.c - children that exit from a signal handler taken as
 * their close returns: each child closes its end of a socket pair, which
 * wakes the parent; the parent reads the end of file and sends SIGTERM,
 * whose handler exits, as fdm ends its delivery children.  On one CPU the
 * woken parent often runs before the child is back from its close, and
 * the handler runs before the fast path's library writes the close's
 * result down: a record in flight, though the close was done.
 *   close_handled N
 * Exit 0 when every read found the end of file.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_term(int sig)
{
	(void)sig;
	_exit(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, i, cpu = sched_getcpu();
	cpu_set_t set;

	/* the parent and its children on one CPU: the woken parent can run
	 * between the child's close and its return to the program */
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < n; i++) {
		struct pollfd pf;
		char buf[16];
		int sv[2];
		pid_t pid;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || (pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			signal(SIGTERM, on_term);
			close(sv[0]);
			close(sv[1]);
			for (;;)
				pause();
		}
		close(sv[1]);
		if (fcntl(sv[0], F_SETFL, O_RDWR | O_NONBLOCK) < 0)
			return 1;
		pf.fd = sv[0];
		pf.events = POLLIN;
		if (poll(&pf, 1, -1) != 1 || read(sv[0], buf, sizeof(buf)) != 0)
			return 1;
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		close(sv[0]);
	}
	return 0;
}
