/*
 * rpl_sockpair.c - two processes talk through a socketpair(), as a local
 * rsync's do: the parent writes KIB KiB per round in 3000-byte writes,
 * the child reads them 7000 bytes at a time and answers each round with
 * 16 bytes the parent waits for; after ROUNDS rounds the parent closes
 * its end and the child reads the end of file.  Every byte crosses the
 * pair in one direction or the other, so a replay that does not know
 * the pair's descriptors, or orders a read before the write that fed
 * it, shows it.
 *   rpl_sockpair KIB ROUNDS [stream|seqpacket]
 * Exit 0 when every byte arrived as sent.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WCHUNK 3000
#define RCHUNK 7000
#define REPLY 16

/* Write all of @n bytes of @buf (a stream may take part). */
static int put(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, buf, n);

		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static int child(int fd, size_t round, int rounds)
{
	static char buf[RCHUNK];
	char reply[REPLY];
	int i;

	for (i = 0; i < rounds; i++) {
		size_t got = 0;

		while (got < round) {
			size_t want = round - got < RCHUNK ? round - got : RCHUNK;
			ssize_t r = read(fd, buf, want);

			if (r <= 0)
				return 10;
			if (buf[0] != (char)('a' + i % 26))
				return 11;
			got += (size_t)r;
		}
		memset(reply, 'A' + i % 26, sizeof(reply));
		if (put(fd, reply, sizeof(reply)) < 0)
			return 12;
	}
	/* the parent closed its end: end of file */
	return read(fd, buf, 1) == 0 ? 0 : 13;
}

int main(int argc, char **argv)
{
	static char buf[WCHUNK];
	int sv[2], i, st, type = SOCK_STREAM;
	size_t round;
	pid_t pid;

	if (argc < 3)
		return 2;
	round = (size_t)atol(argv[1]) * 1024;
	if (argc > 3 && strcmp(argv[3], "seqpacket") == 0)
		type = SOCK_SEQPACKET;
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return 3;
	pid = fork();
	if (pid < 0)
		return 4;
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], round, atoi(argv[2])));
	}
	close(sv[1]);
	for (i = 0; i < atoi(argv[2]); i++) {
		size_t sent = 0;
		char reply[REPLY];
		ssize_t r;

		memset(buf, 'a' + i % 26, sizeof(buf));
		while (sent < round) {
			size_t n = round - sent < WCHUNK ? round - sent : WCHUNK;

			if (put(sv[0], buf, n) < 0)
				return 5;
			sent += n;
		}
		r = read(sv[0], reply, sizeof(reply));
		if (r != REPLY || reply[0] != 'A' + i % 26)
			return 6;
	}
	close(sv[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 7;
	return WEXITSTATUS(st);
}
