/*
 * xdev_copy.c - SRC DST: copy SRC to DST as cat and cp do, for
 * tests/integration/replay_xdev.sh: copy_file_range first, and where it
 * says EXDEV (SRC and DST on two filesystems) read and write instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	ssize_t n;
	int in, out, xdev = 0;

	if (argc != 3)
		return 2;
	if ((in = open(argv[1], O_RDONLY)) < 0 ||
	    (out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return 1;
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
		;
	if (n < 0 && errno != EXDEV)
		return 1;
	if (n < 0)
		xdev = 1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 1;
	if (n < 0 || close(out) < 0)
		return 1;
	printf("%s\n", xdev ? "read and write" : "copy_file_range");
	return 0;
}
