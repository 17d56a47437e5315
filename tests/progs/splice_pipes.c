/*
 * splice_pipes.c [ROUNDS] - data moved between pipes in the kernel: a
 * child writes ROUNDS chunks of 512 bytes into pipe A, one at a time,
 * each after the last was taken; the parent copies each from A into pipe
 * B with tee(2), then drains it from A into /dev/null with splice(2); a
 * second child reads B.  The parent then splices /dev/zero into pipe C
 * and reads it back.  Exits 1 if a count is not what it must be.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define CHUNK 512

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	int a[2], b[2], c[2], go[2], null, zero, i, st;
	char buf[CHUNK];
	long got = 0;
	pid_t w, r;

	if (pipe(a) < 0 || pipe(b) < 0 || pipe(go) < 0)
		return 2;
	w = fork();
	if (w == 0) {		/* the writer: a chunk each time it is asked */
		close(a[0]);
		close(b[0]);
		close(b[1]);
		close(go[1]);
		memset(buf, 'x', sizeof(buf));
		for (i = 0; i < rounds; i++) {
			char t;

			if (read(go[0], &t, 1) != 1 || write(a[1], buf, CHUNK) != CHUNK)
				_exit(3);
		}
		_exit(0);
	}
	r = fork();
	if (r == 0) {		/* the reader of B */
		ssize_t n;
		long all = 0;

		close(a[0]);
		close(a[1]);
		close(b[1]);
		close(go[1]);
		while ((n = read(b[0], buf, sizeof(buf))) > 0)
			all += n;
		_exit(all == (long)rounds * CHUNK ? 0 : 4);
	}
	close(a[1]);
	close(b[0]);
	close(go[0]);
	null = open("/dev/null", O_WRONLY);
	if (null < 0)
		return 2;
	for (i = 0; i < rounds; i++) {
		CHECK("ask", write(go[1], "x", 1), 1);
		CHECK("tee", tee(a[0], b[1], CHUNK, 0), CHUNK);
		CHECK("splice to /dev/null", splice(a[0], NULL, null, NULL, CHUNK, 0), CHUNK);
	}
	close(go[1]);
	close(b[1]);
	waitpid(w, &st, 0);
	CHECK("writer", WEXITSTATUS(st), 0);
	waitpid(r, &st, 0);
	CHECK("reader", WEXITSTATUS(st), 0);

	/* from /dev/zero into a pipe, read back */
	zero = open("/dev/zero", O_RDONLY);
	if (zero < 0 || pipe(c) < 0)
		return 2;
	for (i = 0; i < 16; i++) {
		CHECK("splice from /dev/zero", splice(zero, NULL, c[1], NULL, CHUNK, 0), CHUNK);
		CHECK("read of it", read(c[0], buf, CHUNK), CHUNK);
		got += CHUNK;
	}
	CHECK("bytes read back", got, 16 * CHUNK);
	return fails != 0;
}
