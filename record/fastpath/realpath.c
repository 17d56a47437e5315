/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * realpath.c - realpath(), canonicalize_file_name() and __realpath_chk() on
 * fp_call().
 *
 * glibc's realpath() reads every prefix of the name with readlink(), and
 * calls it inside libc, not through the PLT: each of those calls stopped in
 * the recorder.  cc1 resolves every header it includes, ~1000 readlinks
 * (nearly all EINVAL) for one `gcc -c` of a hello world.
 *
 * This is glibc 2.36's stdlib/canonicalize.c (LGPL-2.1-or-later) for
 * Linux, step for step, so the trace cannot tell the two apart: the same
 * readlink of each prefix with the same buffer size (1023, then 2047, ...:
 * the size is in the trace), the same getcwd for a relative name, the same
 * faccessat check of a name with a trailing "/", "/." or "/..", the same
 * result, errno and partial result left in @resolved, and the same
 * malloc/realloc/free of the buffers.  What Linux has no use for (drive
 * prefixes, "//" as a root of its own) is left out.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))

/* the fortified entry point has no public prototype */
char *__realpath_chk(const char *name, char *resolved, size_t resolvedlen);

/* glibc's MIN_ELOOP_THRESHOLD: symlinks followed before ELOOP */
#define FP_ELOOP_MIN 40

/*
 * glibc's struct scratch_buffer: 1024 bytes on the stack, then the heap,
 * doubling.  The sizes matter beyond memory: the link buffer's size, less
 * one, is readlink's bufsize argument, which the trace records.
 */
struct fp_scratch {
	char *data;
	size_t len;
	union {
		max_align_t align;
		char c[1024];
	} space;
};

struct fp_rp_bufs {
	struct fp_scratch rname;	/* the result being built */
	struct fp_scratch extra;	/* symlink target + rest of the name */
	struct fp_scratch link;		/* readlink's buffer */
};

static void fp_scratch_init(struct fp_scratch *b)
{
	b->data = b->space.c;
	b->len = sizeof(b->space);
}

static void fp_scratch_free(struct fp_scratch *b)
{
	if (b->data != b->space.c)
		free(b->data);
}

/* double, contents lost: the old block is freed before the new malloc */
static bool fp_scratch_grow(struct fp_scratch *b)
{
	size_t n = 2 * b->len;
	void *p;

	fp_scratch_free(b);
	if (n >= b->len) {
		p = malloc(n);
	} else {
		errno = ENOMEM;
		p = NULL;
	}
	if (!p) {
		fp_scratch_init(b);
		return false;
	}
	b->data = p;
	b->len = n;
	return true;
}

/* double, contents kept: malloc+memcpy off the stack, realloc on the heap */
static bool fp_scratch_grow_preserve(struct fp_scratch *b)
{
	size_t n = 2 * b->len;
	void *p;

	if (b->data == b->space.c) {
		p = malloc(n);
		if (!p)
			return false;
		memcpy(p, b->space.c, b->len);
	} else {
		if (n >= b->len) {
			p = realloc(b->data, n);
		} else {
			errno = ENOMEM;
			p = NULL;
		}
		if (!p) {
			free(b->data);
			fp_scratch_init(b);
			return false;
		}
	}
	b->data = p;
	b->len = n;
	return true;
}

/*
 * glibc's __eloop_threshold(): the larger of SYMLOOP_MAX and 40.  Linux
 * has no SYMLOOP_MAX (sysconf says -1, without a syscall), so 40.
 */
static unsigned int fp_eloop_threshold(void)
{
	static long symloop_max;
	unsigned long m;

	if (symloop_max == 0)
		symloop_max = sysconf(_SC_SYMLOOP_MAX);
	m = symloop_max <= 0 ? _POSIX_SYMLOOP_MAX : (unsigned long)symloop_max;
	return m > FP_ELOOP_MIN ? (unsigned int)m : FP_ELOOP_MIN;
}

/*
 * @end, the rest of the name after a component that is no symlink, makes
 * the component's directory-ness matter: a "/" at the end, or a "/." or
 * "/.." anywhere, which the loop below would skip without a readlink.
 */
static bool fp_suffix_requires_dir_check(const char *end)
{
	while (*end == '/') {
		do
			end++;
		while (*end == '/');
		switch (*end++) {
		default:
			return false;
		case '\0':
			return true;
		case '.':
			break;
		}
		if (!*end || (*end == '.' && (!end[1] || end[1] == '/')))
			return true;
	}
	return false;
}

/*
 * @dir names a searchable directory.  Writes "/" at @dirend (the room was
 * reserved) and asks faccessat, which is glibc's own here too: it issues
 * faccessat2 and is traced either way.
 */
static bool fp_dir_check(char *dir, char *dirend)
{
	strcpy(dirend, "/");
	return faccessat(AT_FDCWD, dir, F_OK, AT_EACCESS) == 0;
}

/*
 * The name is NULL.  glibc tests it though the headers declare it nonnull
 * for canonicalize_file_name; the asm keeps the compiler from dropping it.
 */
static int fp_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

/* glibc's realpath_stk(); the buffers are the caller's to free */
static char *fp_realpath_stk(const char *name, char *resolved, struct fp_rp_bufs *bufs)
{
	char *rname = bufs->rname.data;
	bool end_in_extra = false;
	bool failed = true;
	const char *start, *end;
	int num_links = 0;
	char *dest, *buf;
	size_t len;
	ssize_t n;

	if (fp_null(name)) {
		errno = EINVAL;
		return NULL;
	}
	if (name[0] == '\0') {
		errno = ENOENT;
		return NULL;
	}

	if (name[0] != '/') {
		while (!getcwd(bufs->rname.data, bufs->rname.len)) {
			if (errno != ERANGE) {
				dest = rname;
				goto error;
			}
			if (!fp_scratch_grow(&bufs->rname))
				return NULL;
			rname = bufs->rname.data;
		}
		dest = rawmemchr(rname, '\0');
	} else {
		dest = rname;
		*dest++ = '/';
	}

	for (start = name; *start; start = end) {
		size_t startlen;

		while (*start == '/')
			++start;
		for (end = start; *end && *end != '/'; ++end)
			;
		/* zero when the name ends in "/" */
		startlen = (size_t)(end - start);

		if (startlen == 0)
			break;
		if (startlen == 1 && start[0] == '.')
			continue;
		if (startlen == 2 && start[0] == '.' && start[1] == '.') {
			/* back up one component; at the root, stay */
			if (dest > rname + 1)
				for (--dest; dest > rname && dest[-1] != '/'; --dest)
					;
			continue;
		}

		if (dest[-1] != '/')
			*dest++ = '/';
		/* room for the component and fp_dir_check's "/" */
		while ((size_t)(rname + bufs->rname.len - dest) < startlen + sizeof("/")) {
			ptrdiff_t off = dest - rname;

			if (!fp_scratch_grow_preserve(&bufs->rname))
				return NULL;
			rname = bufs->rname.data;
			dest = rname + off;
		}
		dest = mempcpy(dest, start, startlen);
		*dest = '\0';

		/* a target that fills the buffer may be cut: grow, ask again */
		for (;;) {
			buf = bufs->link.data;
			n = FP(SYS_readlink, rname, buf, bufs->link.len - 1, 0, 0, 0);
			if (n < (ssize_t)(bufs->link.len - 1))
				break;
			if (!fp_scratch_grow(&bufs->link))
				return NULL;
		}

		if (n < 0) {
			/* EINVAL: there, and no symlink; anything else fails */
			if (!(fp_suffix_requires_dir_check(end) ?
			      fp_dir_check(rname, dest) : errno == EINVAL))
				goto error;
			continue;
		}

		if (++num_links > (int)fp_eloop_threshold()) {
			errno = ELOOP;
			goto error;
		}
		buf[n] = '\0';

		/*
		 * The rest of the name becomes target + rest, built in extra.
		 * @end may point into extra itself (a symlink met inside an
		 * earlier target): keep its offset across the realloc, and
		 * memmove, not memcpy, the rest into place.
		 */
		{
			char *extra = bufs->extra.data;
			size_t end_idx = end_in_extra ? (size_t)(end - extra) : 0;
			size_t total;

			len = strlen(end);
			if (__builtin_add_overflow(len, (size_t)n, &total)) {
				errno = ENOMEM;
				return NULL;
			}
			while (bufs->extra.len <= total) {
				if (!fp_scratch_grow_preserve(&bufs->extra))
					return NULL;
				extra = bufs->extra.data;
			}
			if (end_in_extra)
				end = extra + end_idx;
			memmove(&extra[n], end, len + 1);
			end = memcpy(extra, buf, (size_t)n);
			end_in_extra = true;
		}

		if (buf[0] == '/') {
			/* an absolute target starts over at the root */
			dest = rname;
			*dest++ = '/';
		} else {
			/* a relative one replaces the link's own component */
			if (dest > rname + 1)
				for (--dest; dest > rname && dest[-1] != '/'; --dest)
					;
		}
	}
	if (dest > rname + 1 && dest[-1] == '/')
		--dest;
	failed = false;

error:
	*dest++ = '\0';
	if (resolved) {
		/*
		 * the partial result too, when a component was missing or
		 * not searchable: callers print it
		 */
		if ((!failed || errno == ENOENT || errno == EACCES) &&
		    dest - rname <= PATH_MAX) {
			strcpy(resolved, rname);
			return failed ? NULL : resolved;
		}
		if (!failed)
			errno = ENAMETOOLONG;
		return NULL;
	}
	return failed ? NULL : strdup(bufs->rname.data);
}

EXPORT char *realpath(const char *name, char *resolved)
{
	struct fp_rp_bufs bufs;
	char *r;

	fp_scratch_init(&bufs.rname);
	fp_scratch_init(&bufs.extra);
	fp_scratch_init(&bufs.link);
	r = fp_realpath_stk(name, resolved, &bufs);
	fp_scratch_free(&bufs.link);
	fp_scratch_free(&bufs.extra);
	fp_scratch_free(&bufs.rname);
	return r;
}

EXPORT char *canonicalize_file_name(const char *name)
{
	return realpath(name, NULL);
}

/*
 * The fortified realpath aborts ("buffer overflow detected") when the
 * caller's buffer is under PATH_MAX: glibc's own does that part.
 */
typedef char *fp_realpath_chk_fn(const char *, char *, size_t);

EXPORT char *__realpath_chk(const char *name, char *resolved, size_t resolvedlen)
{
	fp_realpath_chk_fn *f;

	if (resolvedlen < PATH_MAX &&
	    (f = (fp_realpath_chk_fn *)dlsym(RTLD_NEXT, "__realpath_chk")))
		return f(name, resolved, resolvedlen);
	return realpath(name, resolved);
}
