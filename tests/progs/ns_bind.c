/*
 * ns_bind.c - a program that makes its own mount namespace and binds a
 * directory over another between two reads, without a program started
 * between (bubblewrap's setup does so): it reads view/a, a file of the
 * directory before the bind, then binds data over view and reads view/c,
 * a file of data.  Each file's starting state is the one it read: view/a
 * the one under the bind, view/c data's.
 *
 *   ns_bind DIR     (DIR holds data/ and view/; as root)
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

/* the bytes of @path, or -1 */
static long size_read(const char *path)
{
	char buf[4096];
	long n = 0, r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		n += r;
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	long a, c;

	if (argc < 2 || chdir(argv[1]) < 0)
		return 2;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		perror("ns_bind: unshare");
		return 3;
	}
	a = size_read("view/a");
	if (mount("data", "view", NULL, MS_BIND, NULL) < 0) {
		perror("ns_bind: mount");
		return 4;
	}
	c = size_read("view/c");
	printf("%ld %ld\n", a, c);
	return a < 0 || c < 0 ? 5 : 0;
}
