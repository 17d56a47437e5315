/*
 * inherit.c - the descriptors a started program inherits: those the
 * recorder was given (a shell's redirections, a make's jobserver pipe),
 * never one the recorder opened itself.
 *
 * The recorder's own descriptors are close-on-exec, but the flag only
 * holds for those it opens itself, and the fork copies whatever any of
 * its threads holds at that instant: with bpf and mixed the programs load
 * in a thread (bpf.c) while the main thread forks the program, and that
 * thread's fopen() of /proc/sys/kernel/pid_max, without "e", was copied
 * into the program when the fork fell between its open and its close.
 * Open across the exec, it stayed open in every process the program
 * started: in a recording of make where it was descriptor 6, GNU ld
 * opened crti.o as 7 and made 29 calls fewer than under ptrace (as it
 * does under ptrace with a descriptor 6 given to it).
 *
 * So the set the recorder was started with is noted before it opens
 * anything (rec_fds_note()), and the forked child marks every other
 * descriptor close-on-exec before it execs or says it is ready
 * (rec_fds_seal()); the program's table read from /proc leaves out any
 * not noted (rec_fd_inherited()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "rec.h"

static int *noted;		/* sorted */
static size_t nnoted;
static int have_noted;		/* 0: /proc was not there, nothing is sealed */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* the descriptor named @s, or -1 if @s is not all digits */
static int fd_of(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (1L << 30))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

int rec_fds_note(void)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int fd = fd_of(de->d_name);

		if (fd < 0 || fd == dirfd(d))
			continue;
		if (nnoted == cap) {
			int *n = realloc(noted, (cap ? 2 * cap : 16) * sizeof(*n));

			if (!n) {
				closedir(d);
				return -ENOMEM;
			}
			noted = n;
			cap = cap ? 2 * cap : 16;
		}
		noted[nnoted++] = fd;
	}
	closedir(d);
	qsort(noted, nnoted, sizeof(*noted), cmp_int);
	have_noted = 1;
	return 0;
}

int rec_fd_inherited(int fd)
{
	if (!have_noted)
		return 1;
	return nnoted && bsearch(&fd, noted, nnoted, sizeof(*noted), cmp_int) != NULL;
}

/* In the forked child of a process with threads: raw getdents64() and
 * fcntl(), nothing that allocates or takes a lock another thread may
 * have held at the fork. */
void rec_fds_seal(void)
{
	char buf[2048];
	ssize_t n;
	int dfd;

	if (!have_noted)
		return;
	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	while ((n = getdents64(dfd, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off < n) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			int fd = fd_of(de->d_name), fl;

			off += de->d_reclen;
			if (fd < 0 || fd == dfd || rec_fd_inherited(fd))
				continue;
			fl = fcntl(fd, F_GETFD);
			if (fl >= 0 && !(fl & FD_CLOEXEC))
				fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
		}
	}
	close(dfd);
}

void rec_fds_free(void)
{
	free(noted);
	noted = NULL;
	nnoted = 0;
	have_noted = 0;
}
