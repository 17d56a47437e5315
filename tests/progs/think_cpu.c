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
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long ms = argc > 1 ? atoll(argv[1]) : 300, end;
	volatile unsigned long x = 1;
	int fd = open("think_cpu.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror("think_cpu: think_cpu.out");
		return 1;
	}
	end = cpu_ns() + ms * 1000000LL;
	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	if (write(fd, "done\n", 5) != 5 || close(fd) < 0) {
		perror("think_cpu: write");
		return 1;
	}
	return 0;
}
