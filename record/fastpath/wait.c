/*
 * wait.c - the libc functions that block until a timeout or an event
 * (sleep, poll, epoll_wait), on fp_call(): a program that sleeps between
 * its file calls (a status timer, a retry loop) pays no stop for it.
 * Each makes the syscall glibc 2.36 makes on x86_64, as wrap.c's do
 * (tests/integration/fp_wrappers.sh).  select and pselect, which turn
 * their timeouts into pselect6's in ways of their own, are left to libc
 * and traced.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define U(x) ((unsigned int)(x))
/* the kernel's sigset_t: what glibc passes as the set's size */
#define KSIGSET 8

/* glibc's nanosleep is clock_nanosleep on CLOCK_REALTIME */
EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)FP(SYS_clock_nanosleep, CLOCK_REALTIME, 0, req, rem, 0, 0);
}

EXPORT int __nanosleep(const struct timespec *req, struct timespec *rem)
	__attribute__((alias("nanosleep")));

/*
 * clock_nanosleep returns the error and leaves errno alone.  The CPU-time
 * clocks glibc maps (the process's) or refuses (the thread's) itself:
 * those calls go to libc.
 */
EXPORT int clock_nanosleep(clockid_t clk, int fl, const struct timespec *req,
			   struct timespec *rem)
{
	int (*f)(clockid_t, int, const struct timespec *, struct timespec *);
	int saved = errno;
	long r;

	if (clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID) {
		f = (int (*)(clockid_t, int, const struct timespec *, struct timespec *))
			dlsym(RTLD_NEXT, "clock_nanosleep");
		return f ? f(clk, fl, req, rem) : EINVAL;
	}
	r = fp_call(SYS_clock_nanosleep, U(clk), U(fl), (long)req, (long)rem, 0, 0);
	errno = saved;
	return r < 0 ? (int)-r : 0;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int ms)
{
	return (int)FP(SYS_poll, fds, n, U(ms), 0, 0, 0);
}

EXPORT int __poll(struct pollfd *fds, nfds_t n, int ms) __attribute__((alias("poll")));

/* the kernel writes what is left into the timeout: glibc passes a copy */
EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *set)
{
	struct timespec copy;

	if (t)
		copy = *t;
	return (int)FP(SYS_ppoll, fds, n, t ? &copy : NULL, set, KSIGSET, 0);
}

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	return (int)FP(SYS_epoll_wait, U(ep), ev, U(max), U(ms), 0, 0);
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *set)
{
	return (int)FP(SYS_epoll_pwait, U(ep), ev, U(max), U(ms), set, KSIGSET);
}
