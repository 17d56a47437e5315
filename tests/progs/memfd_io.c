/*
 * memfd_io.c - I/O on a file with no name: memfd_create, 8 KiB written,
 * 4 KiB read back at offset 0, its size set with ftruncate, closed
 * (tests/integration/record_memfd.sh).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	char b[8192];
	int fd = memfd_create("memfd_io", MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_io: memfd_create");
		return 1;
	}
	memset(b, 'm', sizeof(b));
	if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b) || pread(fd, b, 4096, 0) != 4096 ||
	    ftruncate(fd, 16384) < 0) {
		perror("memfd_io: write, pread or ftruncate");
		return 1;
	}
	close(fd);
	return 0;
}
