/*
 * rel_writer.c - writes N files DIR/fK (K = I mod M, so a long run reuses
 * M names), each openat + write + close, and after each close prints
 * "closed DIR/fK" to stdout with one write(2): a line in the log is a
 * close that returned, so a trace of a run killed at any moment must hold
 * at least as many closes of DIR/f* as the log has lines.
 *   rel_writer DIR N [M [SIZE]]      N = 0: until killed
 * Output is unbuffered on purpose: SIGKILL must not eat stdio buffers.
 * No O_TRUNC: ext4 flushes a file truncated and rewritten at close
 * (auto_da_alloc), which would make the run disk-bound.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	char path[4096], line[4200];
	long n, m, size, i;
	int fd, len;

	if (argc < 3) {
		fprintf(stderr, "usage: rel_writer DIR N [M [SIZE]]\n");
		return 2;
	}
	n = atol(argv[2]);
	m = argc > 3 ? atol(argv[3]) : 1000;
	size = argc > 4 ? atol(argv[4]) : 512;
	if (m <= 0)
		m = 1000;
	if (size < 0 || size > (long)sizeof(buf))
		size = sizeof(buf);
	memset(buf, 'w', sizeof(buf));
	for (i = 0; n == 0 || i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i % m);
		fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (write(fd, buf, (size_t)size) != size) {
			perror(path);
			return 1;
		}
		if (close(fd)) {
			perror(path);
			return 1;
		}
		len = snprintf(line, sizeof(line), "closed %s\n", path);
		if (write(1, line, (size_t)len) != len)
			return 1;
	}
	return 0;
}
