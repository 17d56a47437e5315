/*
 * openat2_resolve.c - openat2 calls whose answers rest on their resolve
 * bits: a symlink refused by RESOLVE_NO_SYMLINKS (ELOOP), an absolute
 * symlink taken in the directory given by RESOLVE_IN_ROOT (found), a ".."
 * and an absolute symlink out of it refused by RESOLVE_BENEATH (EXDEV),
 * from a descriptor and from the working directory.
 *   openat2_resolve DIR
 * Exit 0 when each answer is Linux's.
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

/* 1 for a descriptor (closed), else -errno */
static long how(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how h = { .flags = O_RDONLY | O_CLOEXEC, .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, path, &h, sizeof(h));

	if (fd < 0)
		return -errno;
	close((int)fd);
	return 1;
}

int main(int argc, char **argv)
{
	int d;

	if (argc != 2 || chdir(argv[1])) {
		fprintf(stderr, "usage: openat2_resolve DIR\n");
		return 2;
	}
	if (mkdir("d", 0755) || close(creat("d/f", 0644)) || close(creat("f", 0644)) ||
	    symlink("f", "d/l") || symlink("/f", "d/abs") ||
	    (d = open("d", O_PATH | O_DIRECTORY)) < 0)
		return 1;
	CHECK("no symlinks, a symlink", how(AT_FDCWD, "d/l", RESOLVE_NO_SYMLINKS), -ELOOP);
	CHECK("no symlinks, a file", how(AT_FDCWD, "d/f", RESOLVE_NO_SYMLINKS), 1);
	CHECK("in root, /f", how(d, "abs", RESOLVE_IN_ROOT), 1);
	CHECK("beneath, /f", how(d, "abs", RESOLVE_BENEATH), -EXDEV);
	CHECK("beneath, a file", how(d, "f", RESOLVE_BENEATH), 1);
	if (chdir("d"))
		return 1;
	CHECK("in root from the working directory, /f", how(AT_FDCWD, "abs", RESOLVE_IN_ROOT), 1);
	CHECK("beneath from the working directory, /f", how(AT_FDCWD, "abs", RESOLVE_BENEATH),
	      -EXDEV);
	CHECK("beneath from the working directory, l", how(AT_FDCWD, "l", RESOLVE_BENEATH), 1);
	return fails != 0;
}
