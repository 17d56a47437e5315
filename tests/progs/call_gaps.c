/*
 * call_gaps.c - N rounds of raw calls, each kind followed by close(-1):
 * newfstatat of PATH, openat of it, read of it, close of it.  In
 * a recording, the gap after each kind (its exit stamp to the next
 * entry's) against the gap after close(-1), which reads nothing: what
 * the BPF programs add to a gap after a call they read more of, which
 * the replay would take for the program's computing
 * (tests/bench/bpf_gaps.sh).
 *   call_gaps N PATH
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	char b[64];
	int n, i;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	for (i = 0; i < n; i++) {
		long fd;

		syscall(SYS_newfstatat, AT_FDCWD, argv[2], &st, 0);
		syscall(SYS_close, -1);
		fd = syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY);
		syscall(SYS_close, -1);
		syscall(SYS_read, fd, b, sizeof(b));
		syscall(SYS_close, -1);
		syscall(SYS_close, fd);
		syscall(SYS_close, -1);
	}
	return 0;
}
