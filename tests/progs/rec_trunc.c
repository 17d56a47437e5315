/*
 * rec_trunc.c - files the program changes right after it opens them,
 * for tests/integration/record_bpf_trunc.sh.  Run where the test made
 * f1..f5 and t1..t4 (files with content).
 *
 * "fd": each of f1..f5 opened without O_TRUNC and changed at once
 * through its descriptor (ftruncate down and up, an appending write,
 * fchmod, fallocate): no call that names a path changes it, so the bpf
 * backend's guard stops none, and the recorder's look at the path comes
 * after the change; the path's state must still be the file before it.
 * "path" besides: the calls that truncate a path (open with O_TRUNC,
 * with O_CREAT|O_TRUNC, creat, truncate), which the guard stops.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[5000];
	int fd;

	memset(buf, 'x', sizeof(buf));
	if ((fd = open("f1", O_RDWR)) < 0 || ftruncate(fd, 0) < 0 || close(fd) < 0)
		return 1;
	if ((fd = open("f2", O_RDWR)) < 0 || ftruncate(fd, 100000) < 0 || close(fd) < 0)
		return 2;
	if ((fd = open("f3", O_WRONLY | O_APPEND)) < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    close(fd) < 0)
		return 3;
	if ((fd = open("f4", O_RDONLY)) < 0 || fchmod(fd, 0600) < 0 || close(fd) < 0)
		return 4;
	if ((fd = open("f5", O_RDWR)) < 0 || posix_fallocate(fd, 0, 65536) != 0 || close(fd) < 0)
		return 5;
	if (argc > 1 && strcmp(argv[1], "fd") == 0)
		return 0;
	if ((fd = open("t1", O_WRONLY | O_TRUNC)) < 0 || close(fd) < 0)
		return 6;
	if ((fd = open("t2", O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || close(fd) < 0)
		return 7;
	if ((fd = creat("t3", 0644)) < 0 || close(fd) < 0)
		return 8;
	if (truncate("t4", 1) < 0)
		return 9;
	return 0;
}
