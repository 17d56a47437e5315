/*
 * check.h - what some test programs (aio_more, aio_batch, lock_procs) share: a
 * check that counts what did not give what it should, and a file opened
 * afresh in the directory they are given.
 */
#ifndef IOT_PROGS_CHECK_H
#define IOT_PROGS_CHECK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

static int fails;

#define CHECK(what, got, want) do {					\
	long long g_ = (got), w_ = (want);				\
	if (g_ != w_) {							\
		fprintf(stderr, "%s: %s: %lld, not %lld\n",		\
			program_invocation_short_name, what, g_, w_);	\
		fails++;						\
	}								\
} while (0)

/* DIR/NAME, created empty (read and write) */
static inline int open_in(const char *dir, const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

#endif
