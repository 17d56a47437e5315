/*
 * sock_unread.c - a message its peer never reads: the child sends one
 * over a socket pair after some work (stats of DIR); the parent, which
 * only waits a while for it and then closes its end unread, reaps the
 * child.  The send must come before the close that could have failed it
 * (EPIPE), as it did.
 *   sock_unread DIR
 * Exit 0 when the child's send went through.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 100000000 };
	struct stat sb;
	int sv[2], i, st;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: sock_unread DIR\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		for (i = 0; i < 2000; i++)
			stat(argv[1], &sb);
		_exit(send(sv[1], "unread", 6, MSG_NOSIGNAL) != 6);
	}
	close(sv[1]);
	nanosleep(&ts, NULL);
	close(sv[0]);
	return waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st);
}
