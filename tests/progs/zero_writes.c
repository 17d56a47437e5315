/*
 * zero_writes.c - writes of zeros and of data, through each call of the
 * write family, into DIR/zeros (tests/integration/record_zeros.sh).
 * The layout of the file (offset, length, zeros or data):
 *         0   8192  zeros    write
 *      8192   4096  data     pwrite
 *     12288   8192  zeros    writev, two iovecs
 *     20480   8192  data     pwritev, zeros then one byte of data
 *     28672   4096  zeros    pwritev2
 *     32768   4096  data     write, the last byte not zero
 *     36864  2 MiB  zeros    write (read in many pieces at a stop)
 * Prints nothing; exits 1 with a message if a call fails.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BIG (2 << 20)

int main(int argc, char **argv)
{
	static char z[8192], d[8192];
	char path[PATH_MAX];
	char *big = calloc(1, BIG);
	struct iovec two[2] = { { z, 4096 }, { z + 4096, 4096 } };
	struct iovec mixed[2] = { { z, 4096 }, { d, 4096 } };
	struct iovec one[1] = { { z, 4096 } };
	int fd, bad = 0;

	if (argc != 2 || !big) {
		fprintf(stderr, "usage: zero_writes DIR\n");
		return 2;
	}
	memset(d, 'd', sizeof(d));
	memset(d, 0, 4095);	/* mixed[1]: zeros but for its last byte */
	snprintf(path, sizeof(path), "%s/zeros", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	bad |= write(fd, z, 8192) != 8192;
	bad |= pwrite(fd, d + 4096, 4096, 8192) != 4096;
	bad |= lseek(fd, 12288, SEEK_SET) != 12288;
	bad |= writev(fd, two, 2) != 8192;
	bad |= pwritev(fd, mixed, 2, 20480) != 8192;
	bad |= pwritev2(fd, one, 1, 28672, 0) != 4096;
	bad |= lseek(fd, 32768, SEEK_SET) != 32768;
	bad |= write(fd, d, 4096) != 4096;
	bad |= write(fd, big, BIG) != BIG;
	bad |= close(fd) != 0;
	free(big);
	if (bad) {
		perror("zero_writes: a write");
		return 1;
	}
	return 0;
}
