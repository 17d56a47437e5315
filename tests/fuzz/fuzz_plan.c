/*
 * fuzz_plan.c - libFuzzer harness for the replayer's plan builder: a
 * mutated trace must give a plan or a clean error, never a crash, a hang
 * or an unbounded allocation.  The input is a whole trace file, or one
 * Record after 'R' (record_file.h); it is handed to the planner through a
 * memfd, as a file on disk would be.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record_file.h"
#include "replay.h"
#include "rpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plan(const uint8_t *data, size_t size)
{
	struct rpl_opts o;
	struct rpl_plan p;
	char path[64];
	size_t off = 0;
	int fd;

	fd = memfd_create("iotape-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			goto out;
		off += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&o, 0, sizeof(o));
	o.trace = path;
	o.timing = RPL_TIMING_ORIGINAL;
	o.quiet = 1;
	o.cmd = "fuzz";
	memset(&p, 0, sizeof(p));
	rpl_plan_build(&p, &o);	/* builds, orders and times the plan */
	rpl_plan_free(&p);
out:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_input(data, size, plan);
	return 0;
}
