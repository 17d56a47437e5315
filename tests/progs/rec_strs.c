/*
 * rec_strs.c - calls whose strings the bpf backend records in one record
 * at their exit (BE_CALLSTR: the strings read at entry and kept in the
 * task's state) or, past its room, as an entry and an exit record: paths
 * around that room's size (record/bpf/event.h, BE_CREC_STR), two strings
 * in one call, empty and NULL ones, a call that fails, and a path in a
 * mapped page not yet faulted in (unreadable at entry, read at exit).
 * Run in an empty directory; prints nothing.
 *   rec_strs
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* "./" repeated, then NAME: a path of about @len bytes naming NAME */
static const char *long_path(char *b, size_t len, const char *name)
{
	size_t n = strlen(name), i = 0;

	while (i + 2 + n < len && i + 2 + n < 4000) {
		b[i++] = '.';
		b[i++] = '/';
	}
	memcpy(b + i, name, n + 1);
	return b;
}

int main(void)
{
	static char p[4096], q[4096];
	static const size_t lens[] = { 8, 1000, 2030, 2040, 2046, 2047, 2048, 2049, 2056,
				       3000, 4000 };
	char link[64];
	struct stat sb;
	size_t i;
	int fd, dfd;
	char *m;

	fd = open("f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return 1;
	dfd = open(".", O_RDONLY | O_DIRECTORY);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		fstatat(AT_FDCWD, long_path(p, lens[i], "f"), &sb, 0);
		fstatat(dfd, long_path(p, lens[i] + 1, "f"), &sb, AT_SYMLINK_NOFOLLOW);
		fstatat(AT_FDCWD, long_path(p, lens[i], "none"), &sb, 0);
		faccessat(AT_FDCWD, long_path(p, lens[i], "f"), R_OK, 0);
		/* two strings: their sum crosses the room */
		getxattr(long_path(p, lens[i], "f"), "user.none", NULL, 0);
		getxattr(long_path(p, 1100, "f"), long_path(q, 250, "user.x"), NULL, 0);
		readlinkat(dfd, long_path(p, lens[i], "f"), link, sizeof(link));
		utimensat(AT_FDCWD, long_path(p, lens[i], "f"), NULL, 0);
	}
	/* empty and NULL strings: one record with none */
	fstatat(fd, "", &sb, AT_EMPTY_PATH);
	syscall(SYS_utimensat, fd, NULL, NULL, 0);	/* glibc's says path is not NULL */
	/* a path in a page of a file mapping not touched yet: not readable
	 * at entry (no fault there), read again at exit */
	if (pwrite(fd, "f", 2, 8192) == 2 &&
	    (m = mmap(NULL, 16384, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		fstatat(AT_FDCWD, m + 8192, &sb, 0);
		munmap(m, 16384);
	}
	close(dfd);
	close(fd);
	return 0;
}
