/*
 * trace_build.h - shared by the replayer's unit tests that write small
 * traces by hand: events and path states with made-up times, 10 us apart,
 * into an iot_writer.  The first error sticks in w->err; later calls do
 * nothing.  Included by one test file each.
 */
#ifndef TRACE_BUILD_H
#define TRACE_BUILD_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iotape.h"

#define US 1000LL

struct w {
	struct iot_writer *w;
	int64_t t;
	int err;
};

/* an event of thread (and process) @tid taking 5 us; @nargs int64_t
 * arguments follow */
static inline void ev(struct w *w, int tid, int nr, int64_t ret, const char *path,
		      const char *path2, int nargs, ...)
{
	struct iot_event e = { .pid = tid, .tid = tid, .nr = nr, .ret = ret,
			       .nargs = (uint32_t)nargs, .path = path, .path2 = path2 };
	va_list ap;
	int i;

	va_start(ap, nargs);
	for (i = 0; i < nargs && i < IOT_MAX_ARGS; i++)
		e.args[i] = va_arg(ap, int64_t);
	va_end(ap);
	e.path_len = path ? (uint32_t)strlen(path) : 0;
	e.path2_len = path2 ? (uint32_t)strlen(path2) : 0;
	e.t_enter = w->t;
	e.t_exit = w->t + 5 * US;
	w->t += 10 * US;
	if (!w->err)
		w->err = iot_writer_event(w->w, &e);
}

/* the state of @path before the workload (@type 0: absent) */
static inline void st(struct w *w, const char *path, uint32_t type, uint64_t size,
		      const char *target, uint64_t ino, uint32_t nlink)
{
	struct iot_path_state ps = {
		.path = path, .path_len = (uint32_t)strlen(path), .type = type, .size = size,
		.mode = type == S_IFDIR ? 0755 : 0644, .target = target,
		.target_len = target ? (uint32_t)strlen(target) : 0, .ino = ino, .dev = 1,
		.nlink = nlink, .mtime_ns = 1, .atime_ns = 1, .t_ns = w->t,
	};

	if (!w->err)
		w->err = iot_writer_path_state(w->w, &ps);
}

#define A(x) ((int64_t)(x))

/* A new directory $TMPDIR/@name-XXXXXX (/tmp without TMPDIR) into @tmp,
 * and the path of a trace file in it into @trace: 0, or -1. */
static inline int tb_mkdtemp(char *tmp, size_t n, char *trace, size_t tn, const char *name)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, n, "%s/%s-XXXXXX", t ? t : "/tmp", name);
	if (!mkdtemp(tmp))
		return -1;
	snprintf(trace, tn, "%s/t.iotape", tmp);
	return 0;
}

/* Remove @tmp and all under it: 0, or -1. */
static inline int tb_rmtree(const char *tmp)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
