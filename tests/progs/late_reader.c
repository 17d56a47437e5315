/*
 * late_reader - a write into a pipe whose only reader has begun to exit.
 *
 * The child holds the read end of a pipe and a large mapping of its own;
 * it writes one byte into a second pipe and exits.  The kernel tears the
 * mapping down before it closes the child's descriptors, so the parent,
 * which waits until the child is exiting (PF_EXITING in /proc/PID/stat),
 * writes 4 bytes into the first pipe while its reader is still open:
 * the write succeeds, after the child's exit_group began.  gpg does this
 * when the helper it forks fails to start.  Once the child is reaped, a
 * second write meets EPIPE.
 *
 * Usage: late_reader
 * Exit: 0 if the write succeeded, 3 if it met EPIPE (the child closed
 * first: the race was lost), 1 on an error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAP_BYTES (512UL << 20)
#define PF_EXITING 0x4

/* Is @pid exiting (or gone)? */
static int exiting(pid_t pid)
{
	char name[64], buf[1024], *p;
	unsigned long flags = 0;
	FILE *f;
	int i;

	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(name, "r")))
		return 1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return 1;
	/* fields after the name: state, ppid, pgrp, session, tty_nr, tpgid, flags */
	for (i = 0; i < 7 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 1;
	flags = strtoul(p + 1, NULL, 10);
	return (flags & PF_EXITING) != 0;
}

int main(void)
{
	int in[2], done[2], st;
	char c;
	pid_t pid;
	ssize_t r;

	signal(SIGPIPE, SIG_IGN);
	if (pipe(in) < 0 || pipe(done) < 0) {
		perror("late_reader: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("late_reader: fork");
		return 1;
	}
	if (pid == 0) {
		char *m;

		close(in[1]);
		close(done[0]);
		m = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		madvise(m, MAP_BYTES, MADV_NOHUGEPAGE);
		memset(m, 1, MAP_BYTES);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(in[0]);
	close(done[1]);
	if (read(done[0], &c, 1) != 1) {
		fprintf(stderr, "late_reader: the child wrote nothing\n");
		return 1;
	}
	while (!exiting(pid))
		;
	r = write(in[1], "abcd", 4);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "late_reader: the child failed\n");
		return 1;
	}
	if (write(in[1], "e", 1) != -1 || errno != EPIPE) {
		fprintf(stderr, "late_reader: a write after the reader's end did not meet EPIPE\n");
		return 1;
	}
	if (r == 4)
		return 0;
	if (r < 0 && errno == EPIPE)
		return 3;
	perror("late_reader: write");
	return 1;
}
