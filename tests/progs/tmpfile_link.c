/*
 * tmpfile_link.c DIR [empty] - files made without a name and named after
 * they are written (tests/integration/replay_tmpfile_link.sh): an
 * O_TMPFILE file in DIR, 5000 bytes written, linked as DIR/a through
 * /proc/self/fd/N (linkat(2) with AT_SYMLINK_FOLLOW, the way open(2)
 * documents); with "empty", a second one of 3000 bytes linked as DIR/b by
 * linkat(fd, "", ..., AT_EMPTY_PATH) (which needs CAP_DAC_READ_SEARCH).
 * Exit 77 if DIR's filesystem has no O_TMPFILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* an unnamed file in @dir with @n bytes, or -1 */
static int unnamed(const char *dir, size_t n)
{
	char b[5000];
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0640);

	if (fd < 0)
		return -1;
	memset(b, 't', sizeof(b));
	if (n > sizeof(b) || write(fd, b, n) != (ssize_t)n) {
		perror("tmpfile_link: write");
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	char proc[64], to[4096];
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: tmpfile_link DIR [empty]\n");
		return 2;
	}
	fd = unnamed(argv[1], 5000);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		fprintf(stderr, "tmpfile_link: %s: no O_TMPFILE there\n", argv[1]);
		return 77;
	}
	if (fd < 0) {
		perror("tmpfile_link: open O_TMPFILE");
		return 1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(to, sizeof(to), "%s/a", argv[1]);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) < 0) {
		perror("tmpfile_link: linkat /proc/self/fd");
		return 1;
	}
	close(fd);
	if (argc > 2 && strcmp(argv[2], "empty") == 0) {
		fd = unnamed(argv[1], 3000);
		snprintf(to, sizeof(to), "%s/b", argv[1]);
		if (fd < 0 || linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) < 0) {
			perror("tmpfile_link: linkat AT_EMPTY_PATH");
			return 1;
		}
		close(fd);
	}
	return 0;
}
