/*
 * wait.c - the libc functions that block until a timeout or an event
 * (sleep, poll, epoll_wait), on fp_call(): a program that sleeps between
 * its file calls (a status timer, a retry loop) pays no stop for it.
 * Each makes the syscall glibc 2.36 makes on x86_64, as wrap.c's do
 * (tests/integration/fp_wrappers.sh).  select and pselect, which turn
 * their timeouts into pselect6's in ways of their own, are left to libc
 * and traced.
 *
 * Each is a cancellation point in glibc, which switches the thread to
 * asynchronous cancellation around the syscall: pthread_cancel() (glibc
 * 2.36) signals a thread only then, else it leaves a flag for the
 * thread's next cancellation point.  Through the stub, a thread
 * cancelled in its wait was not: it timed out, waited again, and its
 * joiner waited for ever (tarantool's exit joins an event loop's thread
 * in epoll_wait: recorded by ptrace, it never ended).  A wait that may
 * block, made by a thread other than the program's first (the one a
 * program cancels is one it started), goes to libc's own function,
 * traced: one stop for a call that waits anyway.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define U(x) ((unsigned int)(x))
/* the kernel's sigset_t: what glibc passes as the set's size */
#define KSIGSET 8

static pthread_t first;

__attribute__((constructor)) static void first_thread(void)
{
	first = pthread_self();
}

/* Does this wait, which blocks if @blocks, go to libc (above)?  *@fn:
 * libc's @name, looked up once. */
static int to_libc(int blocks, void **fn, const char *name)
{
	void *f;

	if (!blocks || pthread_equal(pthread_self(), first))
		return 0;
	if (!(f = __atomic_load_n(fn, __ATOMIC_ACQUIRE))) {
		if (!(f = dlsym(RTLD_NEXT, name)))
			return 0;
		__atomic_store_n(fn, f, __ATOMIC_RELEASE);
	}
	return 1;
}

static int ts_blocks(const struct timespec *t)
{
	return !t || t->tv_sec || t->tv_nsec;
}

/* glibc's nanosleep is clock_nanosleep on CLOCK_REALTIME */
EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	static void *lib;

	if (to_libc(ts_blocks(req), &lib, "nanosleep"))
		return ((int (*)(const struct timespec *, struct timespec *))lib)(req, rem);
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

	static void *lib;

	if (to_libc(ts_blocks(req), &lib, "clock_nanosleep"))
		return ((int (*)(clockid_t, int, const struct timespec *, struct timespec *))lib)(
			clk, fl, req, rem);
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
	static void *lib;

	if (to_libc(ms != 0, &lib, "poll"))
		return ((int (*)(struct pollfd *, nfds_t, int))lib)(fds, n, ms);
	return (int)FP(SYS_poll, fds, n, U(ms), 0, 0, 0);
}

EXPORT int __poll(struct pollfd *fds, nfds_t n, int ms) __attribute__((alias("poll")));

/* the kernel writes what is left into the timeout: glibc passes a copy */
EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *set)
{
	struct timespec copy;
	static void *lib;

	if (to_libc(ts_blocks(t), &lib, "ppoll"))
		return ((int (*)(struct pollfd *, nfds_t, const struct timespec *,
				 const sigset_t *))lib)(fds, n, t, set);
	if (t)
		copy = *t;
	return (int)FP(SYS_ppoll, fds, n, t ? &copy : NULL, set, KSIGSET, 0);
}

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	static void *lib;

	if (to_libc(ms != 0, &lib, "epoll_wait"))
		return ((int (*)(int, struct epoll_event *, int, int))lib)(ep, ev, max, ms);
	return (int)FP(SYS_epoll_wait, U(ep), ev, U(max), U(ms), 0, 0);
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *set)
{
	static void *lib;

	if (to_libc(ms != 0, &lib, "epoll_pwait"))
		return ((int (*)(int, struct epoll_event *, int, int, const sigset_t *))lib)(
			ep, ev, max, ms, set);
	return (int)FP(SYS_epoll_pwait, U(ep), ev, U(max), U(ms), set, KSIGSET);
}
