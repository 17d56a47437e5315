/*
 * fd_links.c DIR - opens of a descriptor's magic link, not of a path
 * (tests/integration/replay_fd_links.sh), each read back in full:
 *   1. an O_TMPFILE file in DIR, 3000 bytes, opened again through
 *      /proc/self/fd/N (its descriptor's path is DIR: it has no name),
 *      then linked as DIR/h through /dev/fd/N;
 *   2. DIR/f, 2000 bytes, renamed DIR/g, opened again through /dev/fd/N
 *      (the name it was opened with is gone);
 *   3. a pipe holding 100 bytes, its read end opened again through
 *      /dev/stdin after a dup2 to 0, and through /proc/self/fd/N;
 *   4. a pipe of the parent's holding 50 bytes, opened by a forked child
 *      through /proc/PPID/fd/N (the parent's descriptor, not its own).
 * Exit 77 if DIR's filesystem has no O_TMPFILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[4096];

/* open @link for reading and read @n bytes from it: 0, or 1 */
static int read_back(const char *link, size_t n)
{
	int fd = open(link, O_RDONLY);
	ssize_t r;

	if (fd < 0) {
		fprintf(stderr, "fd_links: open %s: %s\n", link, strerror(errno));
		return 1;
	}
	r = read(fd, buf, sizeof(buf));
	close(fd);
	if (r != (ssize_t)n) {
		fprintf(stderr, "fd_links: %s: read %zd, wanted %zu\n", link, r, n);
		return 1;
	}
	return 0;
}

static int put(int fd, size_t n)
{
	memset(buf, 'x', n);
	return write(fd, buf, n) == (ssize_t)n ? 0 : 1;
}

int main(int argc, char **argv)
{
	char link[64], f[4096], g[4096];
	int fd, p[2], bad = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: fd_links DIR\n");
		return 2;
	}
	fd = open(argv[1], O_TMPFILE | O_RDWR, 0640);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		fprintf(stderr, "fd_links: %s: no O_TMPFILE there\n", argv[1]);
		return 77;
	}
	if (fd < 0 || put(fd, 3000))
		return 1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	bad |= read_back(link, 3000);
	snprintf(link, sizeof(link), "/dev/fd/%d", fd);
	snprintf(f, sizeof(f), "%s/h", argv[1]);
	if (linkat(AT_FDCWD, link, AT_FDCWD, f, AT_SYMLINK_FOLLOW) < 0) {
		perror("fd_links: linkat /dev/fd");
		bad = 1;
	}
	close(fd);

	snprintf(f, sizeof(f), "%s/f", argv[1]);
	snprintf(g, sizeof(g), "%s/g", argv[1]);
	fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || put(fd, 2000) || rename(f, g) < 0)
		return 1;
	snprintf(link, sizeof(link), "/dev/fd/%d", fd);
	bad |= read_back(link, 2000);
	close(fd);

	if (pipe(p) < 0 || put(p[1], 100) || dup2(p[0], 0) < 0)
		return 1;
	bad |= read_back("/dev/stdin", 100);
	if (put(p[1], 100))
		return 1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", p[0]);
	bad |= read_back(link, 100);
	close(p[0]);
	close(p[1]);

	if (pipe(p) < 0 || put(p[1], 50))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)getppid(), p[0]);
		_exit(read_back(link, 50));
	}
	if (waitpid(pid, &fd, 0) != pid || !WIFEXITED(fd) || WEXITSTATUS(fd) != 0)
		bad = 1;
	close(p[0]);
	close(p[1]);
	return bad;
}
