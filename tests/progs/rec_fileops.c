/*
 * rec_fileops.c - descriptor and path syscalls whose recorded form
 * tests/integration/record_progs.sh compares with the expected lines:
 * dirfd-relative calls, AT_EMPTY_PATH, renameat2, O_TMPFILE + linkat,
 * getdents64, copy_file_range, /proc/self/fd, F_DUPFD_CLOEXEC, pipe2,
 * dup2, close_range, chdir + relative names, readahead.  Run in an empty directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

int main(void)
{
	char buf[4096], proc[64];
	struct stat st;
	int d, f, g, t, p[2];

	if (mkdir("d", 0755) < 0)
		return 1;
	d = open("d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);		/* 3 */
	f = openat(d, "f", O_WRONLY | O_CREAT | O_TRUNC, 0644);	/* 4 */
	if (d != 3 || f != 4)
		return 2;
	if (write(f, "hello", 5) != 5)
		return 3;
	syscall(SYS_newfstatat, f, "", &st, AT_EMPTY_PATH);
	syscall(SYS_renameat2, d, "f", d, "g", RENAME_NOREPLACE);
	syscall(SYS_renameat2, d, "missing", d, "g", RENAME_NOREPLACE);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f);
	g = open(proc, O_RDONLY);					/* 5 */
	syscall(SYS_read, g, buf, sizeof(buf));
	syscall(SYS_readahead, g, 0, 4096);
	t = open("d", O_TMPFILE | O_WRONLY, 0600);			/* 6 */
	if (t >= 0) {
		syscall(SYS_write, t, "tmp", 3);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", t);
		syscall(SYS_linkat, AT_FDCWD, proc, d, "linked", AT_SYMLINK_FOLLOW);
		close(t);
	}
	syscall(SYS_copy_file_range, g, NULL, f, NULL, 5, 0);
	syscall(SYS_getdents64, d, buf, sizeof(buf));
	t = fcntl(d, F_DUPFD_CLOEXEC, 100);				/* 100 */
	syscall(SYS_newfstatat, t, "g", &st, 0);
	if (pipe2(p, O_CLOEXEC) < 0)					/* 6, 7 */
		return 4;
	syscall(SYS_write, p[1], "x", 1);
	syscall(SYS_read, p[0], buf, 1);
	dup2(f, 20);
	syscall(SYS_fsync, 20);
	syscall(SYS_close_range, 5, 7, 0);
	syscall(SYS_close, 5);
	if (chdir("d") < 0)
		return 5;
	syscall(SYS_unlinkat, AT_FDCWD, "linked", 0);
	syscall(SYS_unlinkat, t, "./g", 0);
	syscall(SYS_faccessat, AT_FDCWD, "../d/./missing", F_OK);
	syscall(SYS_mkdirat, AT_FDCWD, "sub//dir", 0700);
	syscall(SYS_mkdirat, AT_FDCWD, "sub", 0700);
	syscall(SYS_fchdir, 3);
	syscall(SYS_unlinkat, AT_FDCWD, "sub", AT_REMOVEDIR);
	syscall(SYS_faccessat, AT_FDCWD, "/dev/null/iotape-phase/done", F_OK);
	return 0;
}
