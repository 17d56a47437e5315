/*
 * think_cpu.c - computes for a known CPU time between two file calls:
 * creates a file, runs until its thread's CPU clock has advanced by
 * 300 ms (argv[1] ms), writes to the file and closes it.  The replay of
 * its trace must spend that gap as CPU time (--think cpu), or sleep it
 * (--think sleep): tests/integration/replay_think.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compute.h"

int main(int argc, char **argv)
{
	long long ms = argc > 1 ? atoll(argv[1]) : 300;
	int fd = open("think_cpu.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror("think_cpu: think_cpu.out");
		return 1;
	}
	compute_until(cpu_ns() + ms * 1000000LL);
	if (write(fd, "done\n", 5) != 5 || close(fd) < 0) {
		perror("think_cpu: write");
		return 1;
	}
	return 0;
}
