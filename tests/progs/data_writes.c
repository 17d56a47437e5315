/*
 * data_writes.c - writes of known bytes, neither zeros nor the replay's
 * pattern, through write, pwrite64, writev, pwritev and pwritev2, into
 * DIR/data (tests/integration/record_data.sh), and one write of zeros.
 * With a size argument, one more write of that many bytes into
 * DIR/big.  Prints nothing; exits 1 with a message if a call fails.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* text, so that the file is easy to look at: line k of the file is
 * "line k of the data" */
static void fill(char *p, size_t n, unsigned k)
{
	size_t o = 0;

	while (o < n) {
		char line[64];
		int len = snprintf(line, sizeof(line), "line %u of the data\n", k++);
		size_t m = (size_t)len < n - o ? (size_t)len : n - o;

		memcpy(p + o, line, m);
		o += m;
	}
}

int main(int argc, char **argv)
{
	static char a[5000], b[3000], c[7000], z[4096];
	char path[PATH_MAX];
	struct iovec two[2] = { { b, 1000 }, { c, 6000 } };
	struct iovec three[3] = { { a, 100 }, { b + 1000, 2000 }, { c + 6000, 1000 } };
	int fd, bad = 0;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: data_writes DIR [BIG-SIZE]\n");
		return 2;
	}
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 1000);
	fill(c, sizeof(c), 2000);
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	bad |= write(fd, a, sizeof(a)) != sizeof(a);
	bad |= pwrite(fd, b, sizeof(b), 20000) != sizeof(b);
	bad |= writev(fd, two, 2) != 7000;
	bad |= pwritev(fd, three, 3, 30000) != 3100;
	bad |= pwritev2(fd, two, 2, 40000, 0) != 7000;
	bad |= write(fd, z, sizeof(z)) != sizeof(z);
	bad |= write(fd, "end\n", 4) != 4;
	bad |= close(fd) != 0;
	if (argc == 3) {
		size_t n = strtoul(argv[2], NULL, 0);
		char *big = malloc(n ? n : 1);

		snprintf(path, sizeof(path), "%s/big", argv[1]);
		fd = big ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
		if (fd < 0) {
			perror(path);
			return 1;
		}
		fill(big, n, 5000);
		bad |= write(fd, big, n) != (ssize_t)n;
		bad |= close(fd) != 0;
		free(big);
	}
	if (bad) {
		perror("data_writes: a write");
		return 1;
	}
	return 0;
}
