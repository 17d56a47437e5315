/*
 * failthread.c - LD_PRELOAD shim that makes pthread_create() fail, as it
 * does when no memory is left for a thread's stack or a limit on threads
 * is reached, to prove the replay goes on without the threads it could
 * not start (tests/integration/replay_thread_fail.sh).
 *
 * Environment:
 *   FAILTHREAD_AFTER  calls that succeed before every later one fails
 *                     with EAGAIN (unset = inert)
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static _Atomic long calls;
	create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	const char *after = getenv("FAILTHREAD_AFTER");

	if (after && atomic_fetch_add(&calls, 1) >= atol(after))
		return EAGAIN;
	return real ? real(th, attr, fn, arg) : ENOSYS;
}
