/*
 * forkfd.c - LD_PRELOAD shim for iotape itself: every fork() is made
 * while a descriptor without close-on-exec is open, as when another of
 * the recorder's threads holds one at that instant (the bpf backend's
 * loader thread did, reading /proc/sys/kernel/pid_max).  The child keeps
 * its copy; the parent closes its own after the fork.  It makes at once
 * what a race made once in a while, for record_inherit.sh.
 *
 * Environment:
 *   FORKFD_PATH   the file opened (required; unset = inert)
 *
 * The shim takes LD_PRELOAD out of the environment at its start, so the
 * programs iotape runs are not touched.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static pid_t (*real_fork)(void);
static const char *path;

__attribute__((constructor)) static void forkfd_init(void)
{
	real_fork = (pid_t (*)(void))dlsym(RTLD_NEXT, "fork");
	path = getenv("FORKFD_PATH");
	unsetenv("LD_PRELOAD");
}

pid_t fork(void)
{
	int fd = path ? open(path, O_RDONLY) : -1;
	pid_t pid = real_fork();

	if (pid != 0 && fd >= 0)
		close(fd);
	return pid;
}
